"""One contract, two adapters: the collection repository in memory and on PostgreSQL
answer alike (the ``store`` fixture runs each test on both; the PostgreSQL run is
``integration``). The handler tests hold both to the use cases; these pin down the port
itself: recorded results, stale appends, the read models and their order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any, TypeVar

import pytest

from services.collection import handlers_decks, handlers_drafts, handlers_economy, handlers_trades
from services.collection.domain.events import (
    BoosterDraw,
    CurrencyCredited,
    CurrencyReason,
    DeckSaved,
    Holder,
    HolderKind,
    PlayerRef,
)
from services.collection.handlers import Context
from services.collection.results import Balance, DeckResolved, SeedRecord
from services.collection.store import Repository, Request, Unit, player_stream
from services.collection.tests.builders import T0, Clock
from services.collection.tests.helpers import key, refused, snapshot, starter
from services.collection.tests.test_trades import ranked_match, settle
from services.platform.errors import Conflict
from services.platform.requests import RequestReused

T = TypeVar("T")


async def test_a_retried_request_answers_the_first_result_as_the_same_typed_value(
    ctx: Context,
) -> None:
    mine = await starter(ctx)
    request = key("p1", "resolve")
    first = await handlers_decks.resolve_deck_for_match(ctx, request, "p1", None, "m1", None)
    again = await handlers_decks.resolve_deck_for_match(ctx, request, "p1", None, "m1", None)
    assert isinstance(again, DeckResolved) and again == first
    assert set(first.copy_ids) <= set(mine) and first.random
    paid = await handlers_economy.credit(ctx, key("p1", "c"), "p1", 5, CurrencyReason.GRANT, "r")
    assert paid == Balance(305, T0)
    assert await handlers_economy.credit(
        ctx, key("p1", "c"), "p1", 5, CurrencyReason.GRANT, "r"
    ) == Balance(305, T0)


async def test_a_request_id_used_again_for_other_content_is_refused_and_changes_nothing(
    ctx: Context,
) -> None:
    await handlers_economy.credit(ctx, key("p1", "c"), "p1", 5, CurrencyReason.GRANT, "r")
    other = Request.of("p1", "c", "other content")
    await refused(
        ctx.store,
        handlers_economy.credit(ctx, other, "p1", 6, CurrencyReason.GRANT, "r2"),
        RequestReused,
        "already used",
    )


async def test_an_append_at_a_stale_version_is_retried_and_then_refused_whole(
    store: Repository,
) -> None:
    async def stale(unit: Unit) -> None:
        await unit.player("p1")
        event = CurrencyCredited("p1", 10, CurrencyReason.GRANT, "x", 10)
        await unit.append(player_stream("p1"), 0, [event])  # the stream is at 1 by now

    await store.run(
        lambda unit: unit.append_player(
            "p1", [CurrencyCredited("p1", 1, CurrencyReason.GRANT, "first", 1)]
        )
    )
    await refused(store, store.run(stale, attempts=3), Conflict, "changing too fast")
    assert [type(e).__name__ for e, _ in await store.stream(player_stream("p1"))] == [
        "CurrencyCredited"
    ]


async def test_a_work_that_raises_leaves_nothing_behind(store: Repository) -> None:
    async def fails(unit: Unit) -> None:
        await unit.player("p1")
        await unit.append_player("p1", [DeckSaved("p1", "d1", "Main", ("a",))])
        raise Conflict("changed my mind")

    before = await snapshot(store)
    with pytest.raises(Conflict, match="changed my mind"):
        await store.run(fails)
    assert await snapshot(store) == before
    assert await store.deck("p1", "d1") is None


async def test_decks_are_listed_last_changed_first_and_only_to_their_owner(ctx: Context) -> None:
    mine = await starter(ctx)
    for name in ("one", "two"):
        await handlers_decks.save_deck(ctx, key("p1", name), "p1", "", name, mine[:5])
    listed = await ctx.store.decks("p1", 10)
    assert len(listed) == 2 and listed[0].updated_at >= listed[1].updated_at
    assert [d.copy_ids for d in listed] == [tuple(mine[:5])] * 2
    assert await ctx.store.deck("p2", listed[0].deck_id) is None
    after = (listed[0].updated_at, listed[0].deck_id)
    assert await ctx.store.decks("p1", 1, after) == listed[1:]


async def test_locks_name_their_holder_and_a_settling_match_other_than_the_current_one(
    ctx: Context,
) -> None:
    mine = await starter(ctx)
    match = Holder(HolderKind.MATCH, "m1")
    await handlers_decks.lock_copies(ctx, key("p1", "l"), "p1", mine[:2], match)
    assert await ctx.store.locks(mine[:3]) == {mine[0]: match, mine[1]: match}
    times = await ctx.store.lock_times(mine[:2])
    assert {t.holder for t in times.values()} == {match}
    assert await ctx.store.settling_match_of("p1") == "m1"
    assert await ctx.store.settling_match_of("p1", "m1") is None
    trade = Holder(HolderKind.TRADE, "t1")
    await handlers_decks.lock_copies(ctx, key("p1", "t"), "p1", mine[2:5], trade)
    assert await ctx.store.count_locks() == {"match": 2, "trade": 3}
    assert await ctx.store.count_lock_holders() == {"match": 1, "trade": 1}
    released = await handlers_decks.release_copies(ctx, key("p1", "r"), match)
    assert sorted(released.copy_ids) == sorted(mine[:2])
    assert await ctx.store.count_locks() == {"trade": 3}
    assert await ctx.store.count_lock_holders() == {"trade": 1}
    assert await ctx.store.locks(mine[:5]) == dict.fromkeys(mine[2:5], trade)


async def test_seeds_and_draws_read_back_newest_first_with_the_secret_only_once_revealed(
    ctx: Context, clock: Clock
) -> None:
    await starter(ctx)
    first = await handlers_economy.open_booster(ctx, key("p1", "b1"), "p1", "")
    clock.advance(1)
    rotated = await handlers_economy.set_client_seed(ctx, key("p1", "s"), "p1", "mine")
    second = await handlers_economy.open_booster(ctx, key("p1", "b2"), "p1", "")
    seeds = await ctx.store.seeds("p1", 10)
    assert seeds[0].seed_id == rotated.seed_id and len(seeds) == 2
    assert seeds[0].server_seed == "" and seeds[1].server_seed != ""
    assert seeds[1].revealed_at is not None and seeds[1].draw_count == 1
    draws = await ctx.store.draws("p1", "", 10)
    assert [d.draw_id for d in draws] == [second.draw_id, first.draw_id]
    assert [d.draw_id for d in await ctx.store.draws("p1", seeds[1].seed_id, 10)] == [first.draw_id]
    found = await ctx.store.draw(first.draw_id)
    assert found == draws[1] and len(found.copies) == 5
    assert await ctx.store.balance("nobody") == Balance(0, None)


def seed_key(s: SeedRecord) -> tuple[datetime, str]:
    return s.committed_at, s.seed_id


def draw_key(d: BoosterDraw) -> tuple[datetime, int, str]:
    return d.opened_at, d.counter, d.draw_id


async def walk(fetch: Callable[[Any], Awaitable[list[T]]], position: Callable[[T], Any]) -> list[T]:
    """Every item, page after page, each page read from where the last one ended."""
    found: list[T] = []
    while page := await fetch(position(found[-1]) if found else None):
        found += page
    return found


async def test_seeds_and_draws_page_by_keyset_in_one_total_order_across_ties(
    ctx: Context, clock: Clock
) -> None:
    await starter(ctx)
    await handlers_economy.credit(ctx, key("p1", "c"), "p1", 900, CurrencyReason.GRANT, "r")
    for n in range(3):  # seeds and draws committed and opened at one instant, then another
        for b in range(3 - n):
            await handlers_economy.open_booster(ctx, key("p1", f"b{n}{b}"), "p1", "")
        await handlers_economy.set_client_seed(ctx, key("p1", f"s{n}"), "p1", f"c{n}")
        clock.advance(n)
    seeds = await ctx.store.seeds("p1", 100)
    assert [(s.committed_at, s.seed_id) for s in seeds] == sorted(
        ((s.committed_at, s.seed_id) for s in seeds), key=lambda k: (-k[0].timestamp(), k[1])
    )
    draws = await ctx.store.draws("p1", "", 100)
    keys = [(d.opened_at, d.counter, d.draw_id) for d in draws]
    assert len(draws) == 6 and keys[0][0] > keys[-1][0]
    assert keys == sorted(keys, key=lambda k: (-k[0].timestamp(), -k[1], k[2]))
    assert len({(at, counter) for at, counter, _ in keys}) < len(keys)  # draw_id breaks a tie
    for size in (1, 2, 4):
        assert await walk(partial(ctx.store.seeds, "p1", size), seed_key) == seeds
        assert await walk(partial(ctx.store.draws, "p1", "", size), draw_key) == draws
    first = next(s.seed_id for s in seeds if s.draw_count == 3)  # at counters 2, 1, 0
    mine = [d for d in draws if d.seed_id == first]
    assert await ctx.store.draws("p1", first, 5, draw_key(mine[0])) == mine[1:]
    assert await ctx.store.draws("p2", "", 5) == []


async def test_nothing_is_due_before_its_time(ctx: Context) -> None:
    async def due(unit: Unit) -> tuple[str | None, str | None]:
        return await unit.due_trade(T0), await unit.due_draft(T0 + timedelta(days=1))

    assert await ctx.store.run(due) == (None, None)


async def test_the_next_deadline_of_each_kind_is_the_earliest_still_waiting(
    ctx: Context, clock: Clock
) -> None:
    assert await ctx.store.next_due_trade() is None
    assert await ctx.store.next_due_draft() is None
    await settle(ctx, await ranked_match(ctx, "m1", "win", "lose"))
    ann, bea, cy, dee = (PlayerRef(p, p.title()) for p in ("ann", "bea", "cy", "dee"))
    await handlers_drafts.create_draft(ctx, key("d", "1"), "d1", "p1", "draft", 0, (ann, bea))
    clock.advance(10)
    await handlers_drafts.create_draft(ctx, key("d", "2"), "d2", "p2", "draft", 0, (cy, dee))
    # a trade's choice closes after 120 s; a draft's first deadline is its players'
    # inactivity (120 s), before its pick deadline (180 s)
    assert await ctx.store.next_due_trade() == T0 + timedelta(seconds=120)
    assert await ctx.store.next_due_draft() == T0 + timedelta(seconds=120)
    clock.advance(111)
    assert await handlers_trades.fire_due_trade(ctx)  # auto-picked: the trade waits no more
    assert await handlers_drafts.fire_due_draft(ctx)  # d1 forfeited: d2 comes next
    assert await ctx.store.next_due_trade() is None
    assert await ctx.store.next_due_draft() == T0 + timedelta(seconds=130)
