"""Group commit on real PostgreSQL: commands written together in ``match_save_batch``
each get their own outcome, and a refused one leaves no trace while the rest commit."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace

import pytest
from prometheus_client import REGISTRY

from services.match import domain
from services.match.domain.events import MatchRules, Mode, TradeRule
from services.match.store import NOTIFY_CHANNEL, MatchStore, PlayerBusy
from services.match.tests.builders import ALL, T0, hand, players
from services.platform.eventstore import WrongExpectedVersion
from services.platform.requests import Request, RequestSeen
from services.rules import Seat, Visibility

pytestmark = pytest.mark.integration

SETUP = MatchRules(Mode.RANKED, ALL, Visibility.ALL_OPEN, trade=TradeRule.ONE, ladder="ranked")


def creation(match_id: str, tag: str) -> domain.Decision:
    seated = tuple(replace(p, player_id=f"{p.player_id}-{tag}") for p in players())
    hands = (hand(f"{match_id}a"), hand(f"{match_id}b"))
    shown = tuple(frozenset(c.card_id for c in h) for h in hands)
    draws = domain.StartDraws(Seat.A, (None,) * 9, (shown[0], shown[1]))
    return domain.create(None, match_id, SETUP, seated, hands, draws, T0, 60, 120)  # type: ignore[arg-type]


def a_move(match: domain.Match, cell: int) -> tuple[domain.Decision, Request]:
    seat = match.position.to_move
    player = match.player(seat).player_id
    card = match.position.hand(seat)[0].id
    events = domain.place(match, player, card, cell, T0)
    return events, Request.of(player, f"{match.match_id}-{cell}", card, cell)


def batches() -> tuple[float, float]:
    name = "triad_match_save_batch_commands"
    count = REGISTRY.get_sample_value(f"{name}_count") or 0.0
    total = REGISTRY.get_sample_value(f"{name}_sum") or 0.0
    return count, total


async def test_commands_in_one_batch_get_their_own_outcomes(pg_store: MatchStore) -> None:
    store = pg_store
    started = {}
    for match_id in ("m1", "m2", "m3"):
        started[match_id] = await store.save(None, creation(match_id, match_id))
    m1, m2, m3 = started["m1"], started["m2"], started["m3"]
    replayed_events, replayed = a_move(m2, 4)
    await store.save(m2, replayed_events, replayed)
    count_before, sum_before = batches()

    win_events, win_request = a_move(m1, 0)
    late_events, late_request = a_move(m1, 1)  # decided on the same state: must lose
    fresh_events, fresh_request = a_move(m3, 8)
    m2_now = await store.load("m2")
    assert m2_now is not None
    reused_events, _ = a_move(m2_now, 5)
    results = await asyncio.gather(
        store.save(m1, win_events, win_request),
        store.save(m1, late_events, late_request),
        store.save(m2_now, reused_events, replayed),  # a request id used before
        store.save(m3, fresh_events, fresh_request),
        store.save(None, creation("m4", "m1")),  # m1's players are busy
        return_exceptions=True,
    )
    winner, loser, seen, fresh, busy = results
    assert isinstance(winner, domain.Match) and winner.version == 2
    assert isinstance(loser, WrongExpectedVersion)
    assert isinstance(seen, RequestSeen)
    assert isinstance(fresh, domain.Match) and fresh.version == 2
    assert isinstance(busy, PlayerBusy) and "Ann" in str(busy)
    count_after, sum_after = batches()
    assert sum_after - sum_before == 5
    assert count_after - count_before < 5, "the commands should have shared transactions"

    reader = MatchStore(store.pool, store._schema.strip('"'))  # no cache: the log itself
    logged = {m: await reader.load(m) for m in ("m1", "m2", "m3", "m4")}
    assert logged["m1"] == winner
    assert logged["m2"] is not None and logged["m2"].version == 2
    assert logged["m3"] == fresh
    assert logged["m4"] is None
    assert await store.active_match("p-a-m1") == "m1"


class CountingPool:
    """The pool, counting the reads a store makes through it and the connections it
    takes from it."""

    def __init__(self, pool: object) -> None:
        self._pool = pool
        self.fetches = 0
        self.acquires = 0

    def acquire(self, *args: object, **options: object) -> object:
        self.acquires += 1
        return self._pool.acquire(*args, **options)  # type: ignore[attr-defined]

    async def fetch(self, *args: object, **options: object) -> object:
        self.fetches += 1
        return await self._pool.fetch(*args, **options)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._pool, name)


async def test_a_notified_version_the_cache_holds_is_served_without_reading_the_log(
    pg_store: MatchStore,
) -> None:
    writer = pg_store
    counting = CountingPool(writer.pool)
    store = MatchStore(counting, writer._schema.strip('"'))
    match = await store.save(None, creation("m1", "m1"))
    events, request = a_move(match, 4)
    moved = await store.save(match, events, request)
    reads = counting.fetches
    assert await store.load("m1", known=moved.version) == moved
    assert counting.fetches == reads, "the cached state was current: no read"
    assert await store.load("m1", known=moved.version + 1) == moved  # not cached yet
    assert await store.load("m1") == moved  # no version known: the log is read
    assert counting.fetches == reads + 2


async def test_a_finished_match_leaves_the_cache_and_is_read_from_the_log(
    pg_store: MatchStore,
) -> None:
    """Found from outside (a soak run): finished matches stayed cached, up to 10,000 of
    them, and the match service's memory never came back down after the load."""
    writer = pg_store
    counting = CountingPool(writer.pool)
    store = MatchStore(counting, writer._schema.strip('"'))
    match = await store.save(None, creation("m1", "m1"))
    over = await store.save(match, domain.forfeit(match, match.player(Seat.A).player_id, T0))
    assert not over.in_progress
    reads = counting.fetches
    assert await store.load("m1", known=over.version) == over
    assert counting.fetches == reads + 1, "not cached: the log is read"


async def test_a_notice_that_overtakes_its_own_save_waits_for_it_instead_of_reading(
    pg_store: MatchStore,
) -> None:
    """PostgreSQL delivers a commit's notice on another connection; it can arrive before
    the commit's answer. A view asked for that version then waits for the save in flight
    here rather than reading the log."""
    writer = pg_store
    counting = CountingPool(writer.pool)
    store = MatchStore(counting, writer._schema.strip('"'))
    match = await store.save(None, creation("m1", "m1"))
    events, request = a_move(match, 4)
    saving = asyncio.create_task(store.save(match, events, request))
    await asyncio.sleep(0)  # the save is in flight: submitted, not answered
    reads = counting.fetches
    seen = await store.load("m1", known=match.version + 1)
    moved = await saving
    assert seen == moved and seen is not None and seen.version == match.version + 1
    assert counting.fetches == reads, "the log was not read (the save has a connection of its own)"


async def test_a_batch_notifies_what_it_saved_in_one_notice(pg_store: MatchStore) -> None:
    """Listeners get one message per group commit: a line per saved command, none for a
    refused one. (Channels are per database, so the ids are this test's own.)"""
    store = pg_store
    tag = uuid.uuid4().hex[:8]
    first, second = f"{tag}-1", f"{tag}-2"
    one = await store.save(None, creation(first, first))
    two = await store.save(None, creation(second, second))
    notices: list[str] = []

    def heard(*notice: object) -> None:
        notices.append(str(notice[-1]))  # (connection, pid, channel, payload)

    async with store.pool.acquire() as listener:
        await listener.add_listener(NOTIFY_CHANNEL, heard)
        try:
            (won, _), (lost, _), (other, _) = a_move(one, 0), a_move(one, 1), a_move(two, 8)
            results = await asyncio.gather(
                store.save(one, won),
                store.save(one, lost),  # decided on the same state: refused
                store.save(two, other),
                return_exceptions=True,
            )
            assert isinstance(results[1], WrongExpectedVersion)
            expected = {f"{first}:2", f"{second}:2"}
            mine = [n for n in notices if tag in n]
            async with asyncio.timeout(10):
                while not mine:
                    await asyncio.sleep(0.01)
                    mine = [n for n in notices if tag in n]
            await asyncio.sleep(0.2)  # anything else this batch sent has arrived too
            mine = [n for n in notices if tag in n]
        finally:
            await listener.remove_listener(NOTIFY_CHANNEL, heard)
    assert len(mine) == 1, mine
    assert set(mine[0].split("\n")) == expected


async def test_batches_queued_behind_a_flush_reuse_its_connection(pg_store: MatchStore) -> None:
    """A busy stream of group commits takes a connection from the pool once: the one a
    batch wrote on stays held while more commands wait, and goes back once none do."""
    writer = pg_store
    counting = CountingPool(writer.pool)
    store = MatchStore(counting, writer._schema.strip('"'))
    started = [await store.save(None, creation(f"m{i}", f"m{i}")) for i in range(3)]
    taken, (count_before, _) = counting.acquires, batches()
    first = asyncio.create_task(store.save(started[0], a_move(started[0], 0)[0]))
    await asyncio.sleep(0)  # the flush has taken m0's command alone and is writing it
    rest = [asyncio.create_task(store.save(m, a_move(m, 4)[0])) for m in started[1:]]
    await asyncio.gather(first, *rest)
    assert batches()[0] - count_before == 2, "m0 alone, then the two queued behind it"
    assert counting.acquires - taken == 1, "the second batch should reuse the first's connection"
    assert store._held is None, "with nothing waiting the connection goes back to the pool"
