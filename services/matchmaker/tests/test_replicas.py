"""Two matchmaker replicas under load (issue 6): 1,000 players enqueue, cancel and
re-enqueue at random, each call on either replica, while both replicas run their
pairing rounds and start recovery side by side.

The replicas are two complete handler stacks (own connection pool, store, context,
random source and background loops) on one PostgreSQL schema, in one process: what
two processes would share is exactly the database and the match service. The match
service here is an in-memory stand-in that records every match and, unlike the real
one, refuses nothing: keeping a player out of two matches is the matchmaker's alone.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from random import Random
from typing import Any

import asyncpg
import pytest

from services.matchmaker import handlers_pairing, handlers_queues, handlers_starts
from services.matchmaker.domain import Mode, TicketState
from services.matchmaker.handlers import Config, Context, MatchSpec
from services.matchmaker.store import MatchmakerStore
from services.matchmaker.tests.conftest import DECK, Fakes, make_context, player
from services.platform.errors import AlreadyExists, FailedPrecondition

pytestmark = pytest.mark.integration

PLAYERS = int(os.environ.get("TRIAD_TEST_MATCHMAKER_PLAYERS", "1000"))
MODES = (Mode.UNRANKED, Mode.RANKED, Mode.ROULETTE)


class RecordingMatches:
    """Creates every match asked for (once per id) and remembers who is in one."""

    def __init__(self) -> None:
        self.created: dict[str, MatchSpec] = {}
        self.active: dict[str, str] = {}

    async def active_match(self, player_id: str) -> str | None:
        await asyncio.sleep(0)  # a network call yields
        return self.active.get(player_id)

    async def away_since(self, player_id: str) -> datetime | None:
        await asyncio.sleep(0)
        return None  # every player here is at their client

    async def create(self, spec: MatchSpec) -> None:
        await asyncio.sleep(0)
        self.created.setdefault(spec.match_id, spec)
        for seat in spec.seats:
            if seat.bot_level is None:
                self.active.setdefault(seat.player_id, spec.match_id)


def now() -> datetime:
    return datetime.now(UTC)


async def loop(stop: asyncio.Event, step: Callable[[], Awaitable[bool]]) -> None:
    while not stop.is_set():
        if not await step():
            await asyncio.sleep(0.01)


async def play(
    index: int, replicas: list[Context], acked: dict[str, str], cancels: set[str]
) -> None:
    """One player: enqueue, wait a moment, then cancel and queue again, or leave the
    ticket to its fate (paired, or still queued at the end); each call on a random
    replica."""
    rng = Random(index)
    me = player(f"p{index:04d}")
    for attempt in range(rng.randint(1, 4)):
        try:
            ticket = await handlers_queues.enqueue(
                rng.choice(replicas), f"q{attempt}", me, rng.choice(MODES), DECK
            )
        except FailedPrecondition:
            return  # in a match now
        except AlreadyExists:
            raise AssertionError(f"{me.name} still had a waiting ticket") from None
        acked[ticket.ticket_id] = me.player_id
        await asyncio.sleep(rng.uniform(0, 0.4))
        if rng.random() < 0.4:
            return
        try:
            done = await handlers_queues.cancel(
                rng.choice(replicas), f"c{attempt}", me.player_id, ticket.ticket_id
            )
        except FailedPrecondition:
            cancels.add(f"refused:{ticket.ticket_id}")
            return  # paired meanwhile: a paired ticket cannot be cancelled
        assert done.state is TicketState.CANCELLED
        cancels.add(ticket.ticket_id)


async def test_two_replicas_never_double_book_a_player_nor_lose_a_ticket(
    shared_database_url: str, migrated: str
) -> None:
    fakes = Fakes()
    matches = RecordingMatches()
    fakes.matches = matches  # type: ignore[assignment]
    for i in range(PLAYERS):
        fakes.ratings.known[f"id-p{i:04d}"] = int(Random(i).gauss(1500, 120))
    config = Config(bot_fill_seconds=0.1, lease_seconds=2.0)
    pools = [
        await asyncpg.create_pool(shared_database_url, min_size=2, max_size=10) for _ in range(2)
    ]
    try:
        replicas = [
            make_context(pool, migrated, fakes, now, config, seed)
            for seed, pool in enumerate(pools)
        ]
        stop = asyncio.Event()
        workers = [
            asyncio.create_task(loop(stop, step))
            for ctx in replicas
            for step in (
                lambda c=ctx: handlers_pairing.pair_all(c),
                lambda c=ctx: handlers_starts.recover_due_start(c),
            )
        ]
        acked: dict[str, str] = {}
        cancels: set[str] = set()
        await asyncio.gather(*(play(i, replicas, acked, cancels) for i in range(PLAYERS)))
        await _drained(pools[0], migrated)
        stop.set()
        await asyncio.gather(*workers)
        await _check(pools[0], migrated, matches, acked, cancels)
    finally:
        for pool in pools:
            await pool.close()


async def _drained(pool: Any, schema: str) -> None:
    """Until no match start is pending (every claimed ticket settled)."""
    for _ in range(500):
        pending = await pool.fetchval(
            f"SELECT count(*) FROM {schema}.match_starts WHERE state = 'pending'"
        )
        if pending == 0:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("match starts still pending")


async def _check(
    pool: Any,
    schema: str,
    matches: RecordingMatches,
    acked: dict[str, str],
    cancels: set[str],
) -> None:
    rows = await pool.fetch(f"SELECT ticket_id, player_id, state, match_id FROM {schema}.tickets")
    tickets = {r["ticket_id"]: r for r in rows}
    # Never lose a ticket: every acknowledged one is there, paired, cancelled or queued.
    assert set(acked) == set(tickets)
    states: dict[str, int] = defaultdict(int)
    for row in rows:
        states[row["state"]] += 1
    assert set(states) <= {"queued", "paired", "cancelled"}, states
    refused = {t.removeprefix("refused:") for t in cancels if t.startswith("refused:")}
    assert all(
        tickets[t]["state"] == "cancelled" for t in cancels - {f"refused:{r}" for r in refused}
    )
    assert all(tickets[t]["state"] == "paired" for t in refused)
    # Never two matches for one player, and every match is some tickets' pairing.
    by_player: dict[str, set[str]] = defaultdict(set)
    for match_id, spec in matches.created.items():
        for seat in spec.seats:
            if seat.bot_level is None:
                by_player[seat.player_id].add(match_id)
    assert all(len(found) == 1 for found in by_player.values())
    paired = {r["player_id"]: r["match_id"] for r in rows if r["state"] == "paired"}
    assert paired == {p: next(iter(found)) for p, found in by_player.items()}
    waiting = [r["player_id"] for r in rows if r["state"] == "queued"]
    assert len(waiting) == len(set(waiting))  # at most one waiting ticket each
    # The log tells the same story.
    log = await MatchmakerStore(pool, schema).appended()
    types: dict[str, int] = defaultdict(int)
    for record in log:
        types[record.type.rsplit(".", 1)[-1]] += 1
    assert types["TicketQueued"] == len(rows)
    assert types["TicketCancelled"] == states["cancelled"]
    assert types["TicketsPaired"] == len(matches.created)
    assert len(matches.created) > 100 and states["cancelled"] > 100  # the load was real
    print(
        f"\n{len(rows)} tickets: {dict(states)}; {len(refused)} cancels lost the race to a "
        f"pairing; {len(matches.created)} matches "
        f"({sum(1 for s in matches.created.values() if any(x.bot_level for x in s.seats))} "
        "with a bot)"
    )
