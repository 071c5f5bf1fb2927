"""Trade One and the copy invariants, on both repository adapters (RULES.md 7 and 9).

- A finished match settles once however often (and in whatever order) it arrives.
- A copy has exactly one owner at every moment: a trade moves a copy, never makes one.
- Copies come into existence only through grants and boosters.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from random import Random

from structlog.testing import capture_logs

from services.collection import handlers, handlers_decks, handlers_trades
from services.collection.domain import trade, wealth
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


async def ranked_match(
    ctx: Context, match_id: str, a: str, b: str, rule: TradeRule = TradeRule.ONE
) -> FinishedMatch:
    """Both players bring five starter copies, locked for the match as the matchmaker does."""
    decks = []
    for player in (a, b):
        copies = await starter(ctx, player)
        done = await handlers_decks.lock_copies(
            ctx, key(player, f"lock-{match_id}"), player, copies[:5],
            Holder(HolderKind.MATCH, match_id),
        )  # fmt: skip
        decks.append(done.copy_ids)
    return FinishedMatch(
        match_id,
        (
            FinishedSeat(PlayerRef(a, a.title()), False, decks[0]),
            FinishedSeat(PlayerRef(b, b.title()), False, decks[1]),
        ),
        winner=0,
        trade=rule,
        finished_at=ctx.clock(),
        placements=9,
    )


async def settle(ctx: Context, finished: FinishedMatch) -> None:
    await ctx.store.run(lambda unit: handlers_trades.settle_match(ctx, unit, finished))


async def test_a_match_finished_ten_times_and_out_of_order_opens_one_trade_per_match(
    ctx: Context,
) -> None:
    matches = [await ranked_match(ctx, f"m{n}", f"w{n}", f"l{n}") for n in range(3)]
    deliveries = [m for m in matches for _ in range(10)]
    Random(4).shuffle(deliveries)
    for finished in deliveries:
        await settle(ctx, finished)
    counts = await event_counts(ctx.store)
    assert counts["TradeOpened"] == 3
    for n, finished in enumerate(matches):
        pending = await handlers_trades.pending_trade(ctx, f"w{n}")
        assert pending is not None and pending.match_id == finished.match_id
        assert [c.copy_id for c in pending.offered] == list(finished.seats[1].deck)
        # The match's locks are gone; the loser's five are locked for the trade.
        locks = await ctx.store.locks([*finished.seats[0].deck, *finished.seats[1].deck])
        assert set(locks) == set(finished.seats[1].deck)
        assert {h.kind for h in locks.values()} == {HolderKind.TRADE}
        balance = (await ctx.store.balance(f"w{n}")).coins
        assert (
            balance
            == wealth.STARTER_COINS + wealth.DAILY_FIRST_MATCH_COINS + wealth.MATCH_WIN_COINS
        )


async def test_the_winner_takes_one_copy_which_moves_exactly_once(ctx: Context) -> None:
    finished = await ranked_match(ctx, "m1", "win", "lose")
    await settle(ctx, finished)
    pending = await handlers_trades.pending_trade(ctx, "lose")
    assert pending is not None
    trade_id, wanted = pending.trade_id, finished.seats[1].deck[2]
    before = await owners(ctx.store)
    bad = [
        ("lose", wanted, DomainError, "only the winner"),
        ("stranger", wanted, DomainError, "no trade"),
        ("win", finished.seats[0].deck[0], DomainError, "not in the loser's deck"),
    ]
    for n, (who, copy_id, kind, rule) in enumerate(bad):
        await refused(
            ctx.store,
            handlers_trades.choose_card(ctx, key(who, f"bad{n}"), trade_id, who, copy_id),
            kind,
            rule,
        )
    await handlers_trades.choose_card(ctx, key("win", "pick"), trade_id, "win", wanted)
    after = await owners(ctx.store)
    assert after == {**before, wanted: "win"}
    assert await ctx.store.locks(list(finished.seats[1].deck)) == {}
    await refused(
        ctx.store,
        handlers_trades.choose_card(ctx, key("win", "again"), trade_id, "win", wanted),
        DomainError,
        "already chosen",
    )
    moved = (await ctx.store.copies("win"))[wanted]
    assert moved.source.value == "trade"
    assert await ctx.store.pending_trade_of("win") is None
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)


async def test_at_the_deadline_the_server_picks_and_a_late_choice_is_refused(
    ctx: Context, clock: Clock
) -> None:
    finished = await ranked_match(ctx, "m1", "win", "lose")
    await settle(ctx, finished)
    assert not await handlers_trades.fire_due_trade(ctx)
    clock.advance(121)
    pending = await handlers_trades.pending_trade(ctx, "win")
    assert pending is not None
    await refused(
        ctx.store,
        handlers_trades.choose_card(
            ctx, key("win", "late"), pending.trade_id, "win", pending.offered[0].copy_id
        ),
        DomainError,
        "the choice closed at",
    )
    assert await handlers_trades.fire_due_trade(ctx)
    done = await handlers_trades.trade_for(ctx, pending.trade_id, "lose")
    assert done.completed and done.auto_picked and done.chosen[0] in finished.seats[1].deck
    assert (await owners(ctx.store))[done.chosen[0]] == "win"
    assert not await handlers_trades.fire_due_trade(ctx)


async def test_both_players_are_blocked_from_matches_until_the_transfer(ctx: Context) -> None:
    finished = await ranked_match(ctx, "m1", "win", "lose")
    await settle(ctx, finished)
    for player in ("win", "lose"):
        deck = await handlers_decks.save_deck(
            ctx,
            key(player, "deck"),
            player,
            "",
            "Next",
            list(await ctx.store.copies(player))[5:10],
        )
        await refused(
            ctx.store,
            handlers_decks.resolve_deck_for_match(
                ctx, key(player, "m2"), player, deck.deck_id, "m2", None
            ),
            handlers.PendingObligation,
            "must change hands",
        )
    pending = await handlers_trades.pending_trade(ctx, "win")
    assert pending is not None
    await handlers_trades.choose_card(
        ctx, key("win", "c"), pending.trade_id, "win", pending.offered[0].copy_id
    )
    deck_id = (await ctx.store.decks("lose", 1))[0].deck_id
    await handlers_decks.resolve_deck_for_match(ctx, key("lose", "m3"), "lose", deck_id, "m3", None)


async def test_a_draw_trades_nothing_and_frees_the_decks(ctx: Context) -> None:
    finished = await ranked_match(ctx, "m1", "ann", "bea")
    await settle(
        ctx, FinishedMatch(finished.match_id, finished.seats, None, TradeRule.ONE, ctx.clock(), 9)
    )
    assert "TradeOpened" not in await event_counts(ctx.store)
    assert await ctx.store.locks([*finished.seats[0].deck, *finished.seats[1].deck]) == {}


async def test_a_choice_racing_the_deadline_moves_exactly_one_copy_once(
    ctx: Context, clock: Clock
) -> None:
    for n in range(6):
        finished = await ranked_match(ctx, f"m{n}", f"w{n}", f"l{n}")
        await settle(ctx, finished)
        trade_id = trade.trade_id_for(f"m{n}")
        racing_clock = Clock(clock.now + timedelta(seconds=119.999))
        racer = Context(ctx.store, ctx.catalog, racing_clock, Random(n))
        late = Context(ctx.store, ctx.catalog, Clock(clock.now + timedelta(seconds=121)), Random(n))
        choose = handlers_trades.choose_card(
            racer, key(f"w{n}", "c"), trade_id, f"w{n}", finished.seats[1].deck[n % 5]
        )
        results = await asyncio.gather(
            choose, handlers_trades.fire_due_trade(late), return_exceptions=True
        )
        assert sum(1 for r in results if isinstance(r, Exception)) <= 1
        counts = await event_counts(ctx.store)
        assert counts["CopyTransferred"] == n + 1
        moved = [
            i
            for i, o in (await owners(ctx.store)).items()
            if o == f"w{n}" and i in finished.seats[1].deck
        ]
        assert len(moved) == 1
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)


async def test_copies_are_conserved_at_every_moment_under_concurrent_trades(
    ctx: Context, clock: Clock
) -> None:
    """Eight players, four trades settled twice each at once, chosen or auto-picked at
    once, while a sampler reads the table: every sample shows each copy with one owner,
    each pair holding its twenty copies between them, and no copy made or lost."""
    pairs = [(f"w{n}", f"l{n}") for n in range(4)]
    matches = [await ranked_match(ctx, f"m{n}", w, lo) for n, (w, lo) in enumerate(pairs)]
    total = len(await owners(ctx.store))
    samples = 0
    stop = asyncio.Event()

    async def sample() -> None:
        nonlocal samples
        while not stop.is_set():
            seen = await owners(ctx.store)
            assert len(seen) == total
            for w, lo in pairs:
                assert sum(1 for o in seen.values() if o in (w, lo)) == 20
            samples += 1
            await asyncio.sleep(0)

    sampler = asyncio.create_task(sample())
    await asyncio.gather(*(settle(ctx, m) for m in matches + matches))
    late = Context(ctx.store, ctx.catalog, Clock(clock.now + timedelta(seconds=121)), Random(3))
    choices = [
        handlers_trades.choose_card(
            ctx, key(w, "c"), trade.trade_id_for(m.match_id), w, m.seats[1].deck[n]
        )
        for n, ((w, _), m) in enumerate(zip(pairs[:2], matches[:2], strict=True))
    ]
    await asyncio.gather(
        *choices, *(handlers_trades.fire_due_trade(late) for _ in range(4)), return_exceptions=True
    )
    while await handlers_trades.fire_due_trade(late):
        pass
    stop.set()
    await sampler
    assert samples > 3
    assert (await event_counts(ctx.store))["CopyTransferred"] == 4
    for (w, lo), m in zip(pairs, matches, strict=True):
        assert len(await ctx.store.copies(w)) == 11 and len(await ctx.store.copies(lo)) == 9
        assert await ctx.store.locks(list(m.seats[1].deck)) == {}
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)


async def test_a_trade_opened_here_wakes_the_deadline_loop_only_if_due_before_it_looks(
    ctx: Context, clock: Clock
) -> None:
    loop = ctx.wakes.trades
    loop.sleeping_until(clock.now + timedelta(seconds=60))  # before the 120-s choice closes
    await settle(ctx, await ranked_match(ctx, "m1", "a", "b"))
    assert not loop.woken.is_set()
    loop.sleeping_until(clock.now + timedelta(seconds=300))
    await settle(ctx, await ranked_match(ctx, "m2", "c", "d"))
    assert loop.woken.is_set()


async def test_a_trades_end_is_logged_with_its_match_and_players(
    ctx: Context, clock: Clock
) -> None:
    """Found from outside: an operator answering "where did my card go?" found the
    trade's choice in the log without the match or the players it was between."""
    ends = []
    for match_id, late in (("m1", False), ("m2", True)):
        finished = await ranked_match(ctx, match_id, f"win{match_id}", f"lose{match_id}")
        await settle(ctx, finished)
        pending = await handlers_trades.pending_trade(ctx, f"win{match_id}")
        assert pending is not None
        with capture_logs() as logs:
            if late:
                clock.advance(121)
                assert await handlers_trades.fire_due_trade(ctx)
            else:
                wanted = pending.offered[0].copy_id
                who = f"win{match_id}"
                await handlers_trades.choose_card(
                    ctx, key(who, "pick"), pending.trade_id, who, wanted
                )
        ends += [e for e in logs if e["event"].startswith("trade ")]
    assert [(e["event"], e["match_id"], e["winner"], e["loser"]) for e in ends] == [
        ("trade cards chosen", "m1", "winm1", "losem1"),
        ("trade auto-picked", "m2", "winm2", "losem2"),
    ]
