"""Trade rules Direct, Difference and All after a match (RULES.md 13), on both repository
adapters: what moves, to whom, exactly once, and who stays blocked until it has.

Each test finishes a match between two players who each locked five starter copies for
it (as the matchmaker does), settles it as the MatchFinished consumer would (several
times: a delivery may repeat), and checks the owners of the ten copies one by one.
"""

from __future__ import annotations

from datetime import timedelta
from random import Random

from services.collection import handlers, handlers_decks, handlers_trades
from services.collection.domain import trade
from services.collection.domain.events import (
    FinishedMatch,
    FinishedSeat,
    Holder,
    HolderKind,
    PlayerRef,
    TradeRule,
)
from services.collection.handlers import Context
from services.collection.tests.builders import Clock
from services.collection.tests.helpers import (
    assert_copies_come_only_from_grants_and_boosters,
    event_counts,
    key,
    owners,
    refused,
    starter,
)
from services.platform.errors import DomainError


async def decks(ctx: Context, match_id: str, a: str, b: str) -> tuple[tuple[str, ...], ...]:
    found = []
    for player in (a, b):
        copies = await starter(ctx, player)
        done = await handlers_decks.lock_copies(
            ctx, key(player, f"lock-{match_id}"), player, copies[:5],
            Holder(HolderKind.MATCH, match_id),
        )  # fmt: skip
        found.append(tuple(done.copy_ids))
    return tuple(found)


def finished(
    match_id: str,
    players: tuple[str, str],
    deck: tuple[tuple[str, ...], ...],
    rule: TradeRule,
    winner: int | None,
    scores: tuple[int, int] = (5, 5),
    boards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
    at: Clock | None = None,
) -> FinishedMatch:
    seats = tuple(
        FinishedSeat(PlayerRef(p, p.title()), False, deck[i], scores[i], boards[i])
        for i, p in enumerate(players)
    )
    assert at is not None
    return FinishedMatch(match_id, (seats[0], seats[1]), winner, rule, at.now, 9)


async def settle(ctx: Context, match: FinishedMatch, times: int = 3) -> None:
    for _ in range(times):
        await ctx.store.run(lambda unit: handlers_trades.settle_match(ctx, unit, match))


async def test_direct_gives_each_player_the_opponents_copies_they_hold_on_the_final_board(
    ctx: Context, clock: Clock
) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    # Ann's colour on the board: three of Bob's cards and two of her own; Bob's: one of
    # Ann's and one of his own. Unplayed cards (a[4], b[4]) stay with their owners.
    boards = ((b[0], a[0], b[1], a[1], b[2]), (a[2], b[3]))
    before = await owners(ctx.store)
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIRECT, 0, (6, 4), boards, clock)
    )
    after = await owners(ctx.store)
    assert after == {**before, b[0]: "ann", b[1]: "ann", b[2]: "ann", a[2]: "bob"}
    assert (await event_counts(ctx.store))["CopyTransferred"] == 4
    assert await ctx.store.locks([*a, *b]) == {}
    assert await ctx.store.pending_trade_of("ann") is None
    done = await handlers_trades.trade_for(ctx, trade.trade_id_for("m1"), "bob")
    assert done.completed and done.rule is TradeRule.DIRECT
    assert set(done.chosen) == {b[0], b[1], b[2], a[2]}
    moved = (await ctx.store.copies("bob"))[a[2]]
    assert moved.source.value == "trade"
    assert (moved.holo, moved.holo_side) == (
        done.offered[[c.copy_id for c in done.offered].index(a[2])].holo,
        done.offered[[c.copy_id for c in done.offered].index(a[2])].holo_side,
    )
    await refused(
        ctx.store,
        handlers_trades.choose_cards(ctx, key("ann", "c"), done.trade_id, "ann", (b[3],)),
        DomainError,
        "has no choice",
    )
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)


async def test_direct_trades_on_a_draw_too(ctx: Context, clock: Clock) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    boards = ((a[0], b[0], a[1], a[2]), (b[1], a[3], b[2], b[3], a[4]))
    before = await owners(ctx.store)
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIRECT, None, (5, 5), boards, clock)
    )
    assert await owners(ctx.store) == {**before, b[0]: "ann", a[3]: "bob", a[4]: "bob"}


async def test_all_gives_the_loser_whole_original_deck_to_the_winner_at_once(
    ctx: Context, clock: Clock
) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    before = await owners(ctx.store)
    await settle(ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.ALL, 1, (3, 7), at=clock))
    assert await owners(ctx.store) == {**before, **dict.fromkeys(a, "bob")}
    assert (await event_counts(ctx.store))["CopyTransferred"] == 5
    assert await ctx.store.locks([*a, *b]) == {}
    for player in ("ann", "bob"):
        assert await handlers_trades.obligations(ctx, player, "") == []


async def test_all_and_difference_trade_nothing_on_a_draw(ctx: Context, clock: Clock) -> None:
    for n, rule in enumerate((TradeRule.ALL, TradeRule.DIFFERENCE)):
        a, b = await decks(ctx, f"m{n}", f"a{n}", f"b{n}")
        match = finished(f"m{n}", (f"a{n}", f"b{n}"), (a, b), rule, None, (5, 5), at=clock)
        await settle(ctx, match)
        assert await ctx.store.locks([*a, *b]) == {}
    assert "TradeOpened" not in await event_counts(ctx.store)


async def test_difference_takes_d_copies_chosen_in_one_call(ctx: Context, clock: Clock) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIFFERENCE, 0, (7, 3), at=clock)
    )
    pending = await handlers_trades.pending_trade(ctx, "bob")
    assert pending is not None and pending.count == 4 and pending.rule is TradeRule.DIFFERENCE
    locks = await ctx.store.locks([*a, *b])
    assert set(locks) == set(b) and {h.kind for h in locks.values()} == {HolderKind.TRADE}
    trade_id = pending.trade_id
    bad = [
        ("bob", b[:4], "only the winner"),
        ("ann", b[:3], "takes 4 cards, all in one choice; 3 were named"),
        ("ann", (b[0], b[0], b[1], b[2]), "name each copy only once"),
        ("ann", (b[0], b[1], b[2], a[0]), "not in the loser's deck"),
    ]
    for n, (who, chosen, why) in enumerate(bad):
        await refused(
            ctx.store,
            handlers_trades.choose_cards(ctx, key(who, f"bad{n}"), trade_id, who, tuple(chosen)),
            DomainError,
            why,
        )
    before = await owners(ctx.store)
    wanted = (b[4], b[0], b[2], b[3])
    await handlers_trades.choose_cards(ctx, key("ann", "pick"), trade_id, "ann", wanted)
    # The same request again answers the same; the copies moved once.
    await handlers_trades.choose_cards(ctx, key("ann", "pick"), trade_id, "ann", wanted)
    assert await owners(ctx.store) == {**before, **dict.fromkeys(wanted, "ann")}
    assert (await event_counts(ctx.store))["CopyTransferred"] == 4
    assert await ctx.store.locks([*a, *b]) == {}
    await refused(
        ctx.store,
        handlers_trades.choose_cards(ctx, key("ann", "again"), trade_id, "ann", wanted),
        DomainError,
        "already chosen",
    )
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)


async def test_difference_is_capped_at_the_deck_and_a_forfeit_still_takes_one(
    ctx: Context, clock: Clock
) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIFFERENCE, 0, (9, 1), at=clock)
    )
    capped = await handlers_trades.pending_trade(ctx, "ann")
    assert capped is not None and capped.count == 5
    # Carl forfeited while he led 6-4: Dee still takes one card.
    c, d = await decks(ctx, "m2", "carl", "dee")
    await settle(
        ctx, finished("m2", ("carl", "dee"), (c, d), TradeRule.DIFFERENCE, 1, (6, 4), at=clock)
    )
    forfeit = await handlers_trades.pending_trade(ctx, "dee")
    assert forfeit is not None and forfeit.count == 1 and forfeit.winner.player_id == "dee"


async def test_difference_left_to_the_deadline_draws_the_d_copies_and_records_the_draws(
    ctx: Context, clock: Clock
) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIFFERENCE, 1, (4, 6), at=clock)
    )
    assert not await handlers_trades.fire_due_trade(ctx)
    clock.advance(121)
    before = await owners(ctx.store)
    assert await handlers_trades.fire_due_trade(ctx)
    done = await handlers_trades.trade_for(ctx, trade.trade_id_for("m1"), "ann")
    assert done.completed and done.auto_picked and len(set(done.chosen)) == 2
    assert set(done.chosen) <= set(a)
    assert await owners(ctx.store) == {**before, **dict.fromkeys(done.chosen, "bob")}
    assert not await handlers_trades.fire_due_trade(ctx)
    # The draw is in the log: the trade read back from its stream names the same copies.
    again = await handlers_trades.trade_for(ctx, done.trade_id, "bob")
    assert again.chosen == done.chosen


async def test_both_players_are_blocked_until_a_difference_moves(
    ctx: Context, clock: Clock
) -> None:
    a, b = await decks(ctx, "m1", "ann", "bob")
    await settle(
        ctx, finished("m1", ("ann", "bob"), (a, b), TradeRule.DIFFERENCE, 0, (6, 4), at=clock)
    )
    for player in ("ann", "bob"):
        (owed,) = await handlers_trades.obligations(ctx, player, "")
        assert owed.message == (
            "the Difference trade of your last match: 2 cards must change hands "
            "before your next match"
        )
        spare = list(await ctx.store.copies(player))[5:10]
        deck = await handlers_decks.save_deck(ctx, key(player, "deck"), player, "", "Next", spare)
        await refused(
            ctx.store,
            handlers_decks.resolve_deck_for_match(
                ctx, key(player, "m2"), player, deck.deck_id, "m2", None
            ),
            handlers.PendingObligation,
            "must change hands",
        )
    late = Context(ctx.store, ctx.catalog, Clock(clock.now + timedelta(seconds=121)), Random(2))
    assert await handlers_trades.fire_due_trade(late)
    for player in ("ann", "bob"):
        assert await handlers_trades.obligations(ctx, player, "") == []
