"""The match repository: match streams over the platform event store, plus the tables
that must change in the same transaction as a match's events.

- ``match_timers``: one row per running match holding its earliest due timer. A timer
  firing and a player's move both lock that row first (``FOR UPDATE``; the timer
  worker with ``SKIP LOCKED``), then append with the expected version, so they are
  serialised per match, never deadlock, and exactly one of two simultaneous commands
  wins. Which timers exist is a pure function of the state (``domain.deadlines``).
- ``requests``: idempotency keys. A retried request finds its first result here.
- ``active_matches``: one row per seated human, so "at most one active match" is a
  primary key, not a check in Python.

Streams are named ``match-<match_id>``. The state is cached per match and checked
against the stream: a load reads only the events after the cached version.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import asyncpg

from services.match import domain, mapping, metrics
from services.match.events import MatchCreated, MatchEvent, MatchFinished
from services.platform.errors import FailedPrecondition
from services.platform.eventstore import NewEvent, PostgresEventStore, Recorded
from services.platform.migrations import Migration, quote_schema

STREAM_PREFIX = "match-"
NOTIFY_CHANNEL = "triad_match"
CACHE_SIZE = 10_000

MIGRATIONS = (
    Migration(
        "match",
        1,
        "timers, idempotency keys and active matches",
        """
        CREATE TABLE match_timers (
            match_id  text PRIMARY KEY,
            due_at    timestamptz NOT NULL,
            timers    jsonb NOT NULL
        );
        CREATE INDEX match_timers_due ON match_timers (due_at);
        CREATE TABLE requests (
            scope       text NOT NULL,
            request_id  text NOT NULL,
            fingerprint text NOT NULL,
            match_id    text NOT NULL,
            version     integer NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (scope, request_id)
        );
        CREATE TABLE active_matches (
            player_id text PRIMARY KEY,
            match_id  text NOT NULL,
            seat      smallint NOT NULL
        );
        CREATE INDEX active_matches_match ON active_matches (match_id);
        """,
    ),
)


class PlayerBusy(FailedPrecondition):
    """A human player already has an active match (RULES.md 5: at most one)."""


class RequestReused(FailedPrecondition):
    pass


@dataclass(frozen=True, slots=True)
class Request:
    """An idempotent request: who (scope), its id, and a fingerprint of its content."""

    scope: str
    request_id: str
    fingerprint: str

    @staticmethod
    def of(scope: str, request_id: str, *content: object) -> Request:
        digest = hashlib.sha256(repr(content).encode()).hexdigest()
        return Request(scope, request_id, digest)


@dataclass(frozen=True, slots=True)
class Answered:
    """A request seen before: the match and the version its first run produced."""

    match_id: str
    version: int


def stream_id(match_id: str) -> str:
    return f"{STREAM_PREFIX}{match_id}"


def event_id(match_id: str, version: int) -> UUID:
    """Deterministic event ids: a retried append of the same version gets the same id."""
    return uuid5(NAMESPACE_URL, f"triad:match:{match_id}:{version}")


class MatchStore:
    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        self._schema = quote_schema(schema)
        self._events = PostgresEventStore(pool, schema)
        self._cache: OrderedDict[str, domain.Match] = OrderedDict()

    @property
    def pool(self) -> Any:
        return self._pool

    async def load(self, match_id: str) -> domain.Match | None:
        cached = self._cache.get(match_id)
        after = cached.version if cached is not None else 0
        records = await self._events.read_stream(stream_id(match_id), after)
        state = cached
        for record in records:
            setup = state.setup if state is not None else None
            event = mapping.decode(record.type, record.data, record.recorded_at, setup)
            state = domain.evolve(state, event)
        if state is not None:
            self._remember(state)
        return state

    async def load_at(self, match_id: str, version: int) -> domain.Match | None:
        """The state as it was at ``version`` (for answering a retried request)."""
        state: domain.Match | None = None
        for record in await self._events.read_stream(stream_id(match_id)):
            if record.version > version:
                break
            setup = state.setup if state is not None else None
            state = domain.evolve(
                state, mapping.decode(record.type, record.data, record.recorded_at, setup)
            )
        return state

    async def answered(self, request: Request) -> Answered | None:
        row = await self._pool.fetchrow(
            f"SELECT fingerprint, match_id, version FROM {self._schema}.requests "
            "WHERE scope = $1 AND request_id = $2",
            request.scope,
            request.request_id,
        )
        if row is None:
            return None
        if row["fingerprint"] != request.fingerprint:
            raise RequestReused(
                f"request id {request.request_id!r} was already used for a different request; "
                "use a new request id for a new action"
            )
        return Answered(row["match_id"], row["version"])

    async def active_match(self, player_id: str) -> str | None:
        value = await self._pool.fetchval(
            f"SELECT match_id FROM {self._schema}.active_matches WHERE player_id = $1", player_id
        )
        return str(value) if value is not None else None

    async def save(
        self,
        before: domain.Match | None,
        events: Sequence[MatchEvent],
        request: Request | None = None,
        conn: Any = None,
        correlation_id: str = "",
    ) -> domain.Match:
        """Append ``events`` to the match at ``before``'s version, with its timers, its
        active-match rows and the request key, in one transaction. Raises
        ``WrongExpectedVersion`` when another command got there first."""
        after = domain.fold(list(events), before)
        assert after is not None
        with metrics.APPEND_SECONDS.time():
            if conn is None:
                async with self._pool.acquire() as own, own.transaction():
                    await self._write(own, before, after, events, request, correlation_id)
            else:
                await self._write(conn, before, after, events, request, correlation_id)
        self._remember(after)
        ended = after.finished
        age = (ended.finished_at - after.created_at).total_seconds() if ended is not None else 0.0
        metrics.observe(events, after.setup.mode.value, age)
        return after

    async def _write(
        self,
        conn: Any,
        before: domain.Match | None,
        after: domain.Match,
        events: Sequence[MatchEvent],
        request: Request | None,
        correlation_id: str,
    ) -> None:
        schema, match_id = self._schema, after.match_id
        expected = before.version if before is not None else 0
        # The timer row first: a timer firing holds it, so both serialise here.
        await conn.execute(
            f"SELECT 1 FROM {schema}.match_timers WHERE match_id = $1 FOR UPDATE", match_id
        )
        new = []
        for offset, event in enumerate(events, start=1):
            payload = mapping.encode(event, after.cards)
            new.append(
                NewEvent(
                    type=mapping.type_name(payload),
                    data=payload.SerializeToString(),
                    metadata={"correlation_id": correlation_id} if correlation_id else {},
                    event_id=event_id(match_id, expected + offset),
                )
            )
        await self._events.append_in(conn, stream_id(match_id), expected, new)
        await self._write_timers(conn, after)
        for event in events:
            if isinstance(event, MatchCreated):
                await self._seat_players(conn, after)
            elif isinstance(event, MatchFinished):
                await conn.execute(
                    f"DELETE FROM {schema}.active_matches WHERE match_id = $1", match_id
                )
        if request is not None:
            await conn.execute(
                f"INSERT INTO {schema}.requests (scope, request_id, fingerprint, match_id, version)"
                " VALUES ($1, $2, $3, $4, $5)",
                request.scope,
                request.request_id,
                request.fingerprint,
                match_id,
                after.version,
            )
        await conn.execute(
            "SELECT pg_notify($1, $2)", NOTIFY_CHANNEL, f"{match_id}:{after.version}"
        )

    async def _write_timers(self, conn: Any, match: domain.Match) -> None:
        timers = domain.deadlines(match)
        if not timers:
            await conn.execute(
                f"DELETE FROM {self._schema}.match_timers WHERE match_id = $1", match.match_id
            )
            return
        described = [
            {"kind": t.kind, "seat": t.seat.name, "due": t.due.isoformat(), "turn": t.turn}
            for t in timers
        ]
        await conn.execute(
            f"INSERT INTO {self._schema}.match_timers (match_id, due_at, timers) "
            "VALUES ($1, $2, $3::jsonb) ON CONFLICT (match_id) DO UPDATE "
            "SET due_at = EXCLUDED.due_at, timers = EXCLUDED.timers",
            match.match_id,
            min(t.due for t in timers),
            json.dumps(described),
        )

    async def _seat_players(self, conn: Any, match: domain.Match) -> None:
        for seat in domain.SEATS:
            player = match.player(seat)
            if player.is_bot:
                continue
            try:
                await conn.execute(
                    f"INSERT INTO {self._schema}.active_matches (player_id, match_id, seat) "
                    "VALUES ($1, $2, $3)",
                    player.player_id,
                    match.match_id,
                    int(seat),
                )
            except asyncpg.UniqueViolationError:
                raise PlayerBusy(
                    f"{player.name} already has an active match; finish it first"
                ) from None

    @asynccontextmanager
    async def claim_due(self, now: datetime) -> AsyncIterator[tuple[Any, str | None]]:
        """Claim the match whose earliest timer is most overdue, if any, for the length
        of one transaction. Another replica skips it (``SKIP LOCKED``)."""
        async with self._pool.acquire() as conn, conn.transaction():
            match_id = await conn.fetchval(
                f"SELECT match_id FROM {self._schema}.match_timers WHERE due_at <= $1 "
                "ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED",
                now,
            )
            yield conn, match_id

    async def refresh_timers(self, conn: Any, match: domain.Match) -> None:
        """Rewrite a match's timer row from its state (after a stale firing)."""
        await self._write_timers(conn, match)

    async def count_active(self) -> int:
        value = await self._pool.fetchval(
            f"SELECT count(DISTINCT match_id) FROM {self._schema}.match_timers"
        )
        return int(value)

    async def records(self, match_id: str, after_version: int, limit: int) -> list[Recorded]:
        """The raw stored events of a match, for operators."""
        found = await self._events.read_stream(stream_id(match_id), after_version)
        return found[:limit]

    def forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)

    def _remember(self, state: domain.Match) -> None:
        self._cache[state.match_id] = state
        self._cache.move_to_end(state.match_id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
