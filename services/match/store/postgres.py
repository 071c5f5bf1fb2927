"""The match repository on PostgreSQL: match streams over the platform event store,
plus the tables that must change in the same transaction as a match's events
(``schema.py`` describes them: timers, request keys, active matches, presence).

Streams are named ``match-<match_id>``. The state is cached per match and checked
against the stream: a load reads only the events after the cached version, and a view
notified of a version the cache already holds reads nothing.

Group commit: the commands that arrive while a transaction is in flight go together in
the next one, one call of ``match_save_batch()`` (``services/platform/groupcommit.py``).
Each command runs in a subtransaction of its own, so a refused or failing command
undoes only itself; the batch is sorted by match, so batches lock timer rows in one
order; the batch sends one notice for all it saved. A timer firing is a batch of one,
inside its claim's transaction. Measured in the match benchmark (64 concurrent matches):
2 to 8 commands per transaction; PostgreSQL's CPU per placement 0.85 ms with a
transaction each, 0.14-0.17 ms now.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from services.match import domain, metrics
from services.match.store.port import (
    Answered,
    PlayerBusy,
    SessionReport,
    TimerClaim,
    Write,
    describe,
    replay,
    stream_id,
)
from services.platform.claims import DueWork, claimed, next_due
from services.platform.eventstore import (
    PostgresEventStore,
    Recorded,
    WrongExpectedVersion,
    encode_metadata,
)
from services.platform.groupcommit import GroupCommit
from services.platform.migrations import quote_schema
from services.platform.notifier import Waiters
from services.platform.presence import REPORT_WINS, take_missed
from services.platform.requests import Request, RequestSeen, answered

NOTIFY_CHANNEL = "triad_match"
CACHE_SIZE = 10_000
LANDING_WAIT_SECONDS = 1.0
"""How long a view waits for this process's own save of a notified version to return
before it reads the log instead."""
BATCH_TIMEOUT_SECONDS = 10.0
"""How long a group commit may take before its commands are told to retry (UNAVAILABLE).
One batch is in flight at a time, so a connection that hangs (a partition, not a
refusal) must not hold every later command of the process behind it."""


def _failure(
    write: Write, constraint: str | None, detail: str | None, hint: str | None
) -> Exception | None:
    """What a known refusal of a command's writes means to the caller; None if unknown."""
    if constraint == "active_matches_pkey":
        busy = next((p.name for p in write.seated if p.player_id in str(detail)), None)
        return PlayerBusy.naming(busy)
    if constraint in ("events_stream_version", "events_event_id"):
        # A concurrent writer appended the same version and committed first.
        return WrongExpectedVersion(write.stream, write.expected, None)
    if hint == "triad:request-seen" and write.request is not None:
        return RequestSeen(write.request.request_id)
    return None


def _outcome(write: Write, row: Any) -> Exception | None:
    """A command's row of ``match_save_batch()``: None when it was saved."""
    if row["o_outcome"] == "saved":
        return None
    if row["o_outcome"] == "moved":
        return WrongExpectedVersion(write.stream, write.expected, row["o_head"])
    known = _failure(write, row["o_constraint"], row["o_detail"], row["o_hint"])
    if known is not None:
        return known
    return RuntimeError(
        f"saving match {write.match_id} failed: {row['o_state']} {row['o_message']}"
    )


def _request_key(write: Write) -> tuple[str | None, str | None, str | None, int]:
    request = write.request
    if request is None:
        return None, None, None, write.version
    return request.scope, request.request_id, request.fingerprint, write.version


@dataclass(frozen=True, slots=True)
class _Claim:
    """A timer claim on PostgreSQL: the timer row locked in ``conn``'s transaction."""

    store: MatchStore
    conn: Any
    match_id: str | None

    async def save(self, before: domain.Match, decision: domain.Decision) -> domain.Match:
        return await self.store.save(before, decision, conn=self.conn)

    async def refresh_timers(self, match: domain.Match) -> None:
        await self.store.refresh_timers(self.conn, match)


class MatchStore:
    def __init__(self, pool: Any, schema: str, linger: float = 0.0) -> None:
        self._pool = pool
        self._schema = quote_schema(schema)
        self._events = PostgresEventStore(pool, schema)
        self._timers = DueWork(table=f"{self._schema}.match_timers", key="match_id")
        self._cache: OrderedDict[str, domain.Match] = OrderedDict()
        self._saving: dict[str, int] = {}
        """Saves in flight per match: their notice can arrive before they return."""
        self._landed = Waiters()
        self._batch_sql = (
            f"SELECT o_outcome, o_head, o_state, o_constraint, o_detail, o_hint, o_message "
            f"FROM {self._schema}.match_save_batch($1::integer[], $2::text[], $3::integer[], "
            "$4::uuid[], $5::text[], $6::integer[], $7::bytea[], $8::text[], $9::text[], "
            "$10::timestamptz[], $11::text[], $12::integer[], $13::text[], $14::smallint[], "
            "$15::boolean[], $16::text[], $17::text[], $18::text[], $19::integer[])"
        )
        self._group: GroupCommit[Write, None] = GroupCommit(
            self._flush_group, observe=metrics.SAVE_BATCH.observe, linger=linger
        )
        self._held: Any = None
        """The group commit's connection while more batches are queued behind the one
        written: a busy stream of batches takes it from the pool once, not per batch."""

    @property
    def pool(self) -> Any:
        return self._pool

    async def current(self, match_id: str) -> domain.Match | None:
        """The cached state if there is one (a command's append checks it was current),
        else the state loaded from the log."""
        cached = self._cache.get(match_id)
        return cached if cached is not None else await self.load(match_id)

    async def load(self, match_id: str, known: int | None = None) -> domain.Match | None:
        """The current state: the cache brought up to date with the stream.

        ``known``: a version known to be committed (a notice named it). A cached state
        at or past it is current enough for a view, and the stream is not read."""
        cached = self._cache.get(match_id)
        if known is not None and cached is not None and cached.version < known:
            cached = await self._landing(match_id, known)
        if cached is not None and known is not None and cached.version >= known:
            return cached
        after = cached.version if cached is not None else 0
        state = replay(await self._events.read_stream(stream_id(match_id), after), cached)
        if state is not None:
            self._remember(state)
        return state

    async def _landing(self, match_id: str, known: int) -> domain.Match | None:
        """The cached state once this process's saves of the match have returned, when
        one is in flight: the notice of a commit can overtake the commit's own answer,
        and the state it brings is the one ``known`` names."""
        with self._landed.watch(match_id) as landed:
            while self._saving.get(match_id):
                cached = self._cache.get(match_id)
                if cached is not None and cached.version >= known:
                    break
                landed.clear()
                try:
                    await asyncio.wait_for(landed.wait(), LANDING_WAIT_SECONDS)
                except TimeoutError:
                    break
        return self._cache.get(match_id)

    async def load_at(self, match_id: str, version: int) -> domain.Match | None:
        """The state as it was at ``version`` (for answering a retried request)."""
        records = await self._events.read_stream(stream_id(match_id))
        return replay([r for r in records if r.version <= version])

    async def answered(self, request: Request) -> Answered | None:
        row = await answered(self._pool, f"{self._schema}.requests", request, "match_id", "version")
        return None if row is None else Answered(row["match_id"], row["version"])

    async def active_match(self, player_id: str) -> str | None:
        value = await self._pool.fetchval(
            f"SELECT match_id FROM {self._schema}.active_matches WHERE player_id = $1", player_id
        )
        return str(value) if value is not None else None

    async def record_presence(self, report: SessionReport) -> bool:
        """Record that a session of the player opened or ended; False (nothing
        recorded) when a session opened later is already known, or when an ended
        session reports itself open again (a late report of a stream that is gone)."""
        row = await self._pool.fetchval(
            f"INSERT INTO {self._schema}.presence AS p "
            "(player_id, session_id, opened_at, connected, away_since) "
            "VALUES ($1, $2, $3, $4, $5) "
            "ON CONFLICT (player_id) DO UPDATE SET session_id = EXCLUDED.session_id, "
            "opened_at = EXCLUDED.opened_at, connected = EXCLUDED.connected, "
            "away_since = CASE WHEN p.session_id = EXCLUDED.session_id AND NOT p.connected "
            "THEN coalesce(p.away_since, EXCLUDED.away_since) ELSE EXCLUDED.away_since END "
            f"WHERE {REPORT_WINS} RETURNING true",
            report.player_id,
            report.session_id,
            report.opened_at,
            report.connected,
            report.away_since,
        )
        return bool(row)

    async def away_since(self, player_id: str) -> datetime | None:
        value: datetime | None = await self._pool.fetchval(
            f"SELECT away_since FROM {self._schema}.presence "
            "WHERE player_id = $1 AND NOT connected",
            player_id,
        )
        return value

    async def missed_match(self, player_id: str) -> str | None:
        return await take_missed(
            self._pool, f"{self._schema}.presence", "missed_match_id", player_id
        )

    async def open_sessions(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The open session of each of ``player_ids`` that has one."""
        rows = await self._pool.fetch(
            f"SELECT player_id, session_id FROM {self._schema}.presence "
            "WHERE player_id = ANY($1::text[]) AND connected",
            list(player_ids),
        )
        return {r["player_id"]: r["session_id"] for r in rows}

    async def save(
        self,
        before: domain.Match | None,
        decision: domain.Decision,
        request: Request | None = None,
        correlation_id: str = "",
        conn: Any = None,
    ) -> domain.Match:
        """Write the decision at ``before``'s version (``Write``: its events, timers,
        active-match rows and the request key) in one transaction; the state after it is
        the decision's, not folded again. On ``conn`` (a timer claim's transaction)
        alone; else with the other commands waiting to be written (group commit).
        Raises ``WrongExpectedVersion`` when another command got there first."""
        write = Write.of(before, decision, request, correlation_id)
        after = write.state
        match_id = after.match_id
        self._saving[match_id] = self._saving.get(match_id, 0) + 1
        try:
            with metrics.APPEND_SECONDS.time():
                if conn is None:
                    await self._group.submit(write)
                else:
                    (outcome,) = await self._flush([write], conn)
                    if outcome is not None:
                        raise outcome
            self._remember(after)
        finally:
            left = self._saving.pop(match_id) - 1
            if left:
                self._saving[match_id] = left
            self._landed.wake(match_id)
        ended = after.finished
        age = (ended.finished_at - after.created_at).total_seconds() if ended is not None else 0.0
        metrics.observe(decision.events, after.setup.mode.value, age)
        return after

    async def _flush_group(self, commands: Sequence[Write]) -> list[Exception | None]:
        """A group commit's batch, on the connection the batch before it left held, or
        on one from the pool. Only the group's one flush at a time gets here."""
        conn, self._held = self._held, None
        if conn is None:
            conn = await self._pool.acquire()
        try:
            outcomes = await self._flush(commands, conn)
        except BaseException:
            await self._pool.release(conn)  # the pool resets or replaces a broken one
            raise
        if self._group.waiting:
            self._held = conn
        else:
            await self._pool.release(conn)
        return outcomes

    async def _flush(self, commands: Sequence[Write], conn: Any) -> list[Exception | None]:
        """Write a batch in one statement on ``conn``; each command's outcome, None
        when saved.

        Sorted by match, so batches (of this and other replicas) lock timer rows in one
        order. A batch that fails as a whole by contention (deadlock, serialization)
        tells each command to try again, as a moved stream would."""
        order = sorted(range(len(commands)), key=lambda i: commands[i].match_id)
        batch = [commands[i] for i in order]
        events = [e for c in batch for e in c.events]
        seats = [seat for c in batch for seat in c.seated]
        keys = [_request_key(c) for c in batch]
        try:
            rows = await conn.fetch(
                self._batch_sql,
                [len(c.events) for c in batch],
                [c.stream for c in batch],
                [c.expected for c in batch],
                [e.event_id for e in events],
                [e.type for e in events],
                [e.schema_version for e in events],
                [e.data for e in events],
                [encode_metadata(e.metadata) for e in events],
                [c.match_id for c in batch],
                [c.due for c in batch],
                [c.timers for c in batch],
                [len(c.seated) for c in batch],
                [seat.player_id for seat in seats],
                [seat.seat for seat in seats],
                [c.finished for c in batch],
                *(list(column) for column in zip(*keys, strict=True)),
                timeout=BATCH_TIMEOUT_SECONDS,
            )
        except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError) as error:
            return [
                WrongExpectedVersion(c.stream, c.expected, None, f"batch lost a race: {error}")
                for c in commands
            ]
        outcomes: list[Exception | None] = [None] * len(commands)
        for index, command, row in zip(order, batch, rows, strict=True):
            outcomes[index] = _outcome(command, row)
        return outcomes

    @asynccontextmanager
    async def claim_due(self, now: datetime) -> AsyncIterator[TimerClaim]:
        """Claim the match whose earliest timer is most overdue, if any, for the length
        of one transaction. Another replica skips it (``SKIP LOCKED``)."""
        async with claimed(self._pool, self._timers, now) as claim:
            yield _Claim(self, claim.conn, None if claim.key is None else str(claim.key))

    async def refresh_timers(self, conn: Any, match: domain.Match) -> None:
        """Rewrite a match's timer row from its state (after a stale firing)."""
        timers = domain.deadlines(match)
        if not timers:
            await conn.execute(
                f"DELETE FROM {self._schema}.match_timers WHERE match_id = $1", match.match_id
            )
            return
        await conn.execute(
            f"UPDATE {self._schema}.match_timers SET due_at = $2, timers = $3::jsonb "
            "WHERE match_id = $1",
            match.match_id,
            min(t.due for t in timers),
            describe(timers),
        )

    async def next_due(self) -> datetime | None:
        return await next_due(self._pool, self._timers)

    async def count_active(self) -> int:
        value = await self._pool.fetchval(
            f"SELECT count(DISTINCT match_id) FROM {self._schema}.match_timers"
        )
        return int(value)

    async def in_progress(self) -> list[str]:
        rows = await self._pool.fetch(
            f"SELECT DISTINCT match_id FROM {self._schema}.active_matches ORDER BY match_id"
        )
        return [str(r["match_id"]) for r in rows]

    async def records(self, match_id: str, after_version: int, limit: int) -> list[Recorded]:
        """The raw stored events of a match, for operators."""
        found = await self._events.read_stream(stream_id(match_id), after_version)
        return found[:limit]

    def forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)

    def _remember(self, state: domain.Match) -> None:
        if not state.in_progress:
            # Found from outside (a soak run): finished matches filled the cache to its
            # 10,000, some 26 kB each, and the process never gave the memory back. A
            # finished match is read again at most by a late view, from the log.
            self._cache.pop(state.match_id, None)
            return
        self._cache[state.match_id] = state
        self._cache.move_to_end(state.match_id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
