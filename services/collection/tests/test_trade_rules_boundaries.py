"""Trade rule boundaries (RULES.md 11, 13): All and Difference with a 13-card hand (a
5x5 board, whose scores add up to 26), and Difference's choice at its deadline instant.
"""

from __future__ import annotations

from datetime import timedelta

from services.collection import handlers, handlers_decks, handlers_trades
from services.collection.domain import trade
from services.collection.domain.events import Holder, HolderKind, TradeRule
from services.collection.handlers import Context
from services.collection.tests.builders import Clock
from services.collection.tests.helpers import event_counts, key, owners, refused
from services.collection.tests.test_trade_rules import decks, finished, settle
from services.platform.errors import DomainError


async def thirteen(ctx: Context, match_id: str, player: str) -> tuple[str, ...]:
    """Thirteen copies of thirteen characters granted to ``player``, locked for the match."""
    characters = [c.id for c in list(ctx.catalog)[:13]]
    done = await handlers.grant_copies(ctx, key(player, "grant"), player, characters, "test")
    copies = [c.copy_id for c in await ctx.store.copies_from(done.grant_id)]
    locked = await handlers_decks.lock_copies(
        ctx, key(player, f"lock-{match_id}"), player, copies, Holder(HolderKind.MATCH, match_id)
    )
    return tuple(locked.copy_ids)


async def test_all_with_a_13_card_hand_moves_all_13_copies(ctx: Context, clock: Clock) -> None:
    a, b = await thirteen(ctx, "m1", "ann"), await thirteen(ctx, "m1", "bob")
    before = await owners(ctx.store)
    await settle(ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.ALL, 0, (14, 12), at=clock))
    assert await owners(ctx.store) == {**before, **dict.fromkeys(b, "ann")}
    assert (await event_counts(ctx.store))["CopyTransferred"] == 13
    assert await ctx.store.locks([*a, *b]) == {}


async def test_difference_on_5x5_is_capped_at_13_and_a_one_point_win_takes_one(
    ctx: Context, clock: Clock
) -> None:
    a, b = await thirteen(ctx, "m1", "ann"), await thirteen(ctx, "m1", "bob")
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIFFERENCE, 0, (26, 0), at=clock)
    )
    capped = await handlers_trades.pending_trade(ctx, "bob")
    assert capped is not None and capped.count == 13 == len(capped.offered)
    await handlers_trades.choose_cards(ctx, key("ann", "all"), capped.trade_id, "ann", b)
    assert (await event_counts(ctx.store))["CopyTransferred"] == 13
    assert trade.difference(14, 12, 13) == 2 and trade.difference(13, 13, 13) == 1


async def test_difference_chosen_at_the_deadline_instant_is_refused_and_drawn(
    ctx: Context, clock: Clock
) -> None:
    """ "within 2 minutes": at 120 s the choice is closed and the server draws the d."""
    a, b = await decks(ctx, "m1", "ann", "bob")
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIFFERENCE, 0, (7, 3), at=clock)
    )
    pending = await handlers_trades.pending_trade(ctx, "ann")
    assert pending is not None and pending.deadline == clock.now + timedelta(seconds=120)
    clock.advance(119.999)
    assert not await handlers_trades.fire_due_trade(ctx)
    clock.advance(0.001)
    await refused(
        ctx.store,
        handlers_trades.choose_cards(ctx, key("ann", "late"), pending.trade_id, "ann", b[:4]),
        DomainError,
        "the choice closed",
    )
    assert await handlers_trades.fire_due_trade(ctx)
    done = await handlers_trades.trade_for(ctx, pending.trade_id, "ann")
    assert done.auto_picked and len(set(done.chosen)) == 4 and set(done.chosen) <= set(b)
