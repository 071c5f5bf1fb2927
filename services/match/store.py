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
- ``presence``: each player's latest gateway session and whether it is open, match or
  not (ReportPresence), so a match created while a player has no session starts with
  them disconnected, and one created while it is open attaches it.

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

from services.match import codec, domain, metrics
from services.match.domain.events import MatchCreated, MatchEvent, MatchFinished
from services.platform.errors import FailedPrecondition, InvalidArgument
from services.platform.eventstore import (
    NewEvent,
    PostgresEventStore,
    Recorded,
    WrongExpectedVersion,
    check_append,
    encode_metadata,
)
from services.platform.groupcommit import GroupCommit
from services.platform.migrations import quote_schema
from services.platform.notifier import Waiters

STREAM_PREFIX = "match-"
NOTIFY_CHANNEL = "triad_match"
CACHE_SIZE = 10_000
LANDING_WAIT_SECONDS = 1.0
"""How long a view waits for this process's own save of a notified version to return
before it reads the log instead."""
BATCH_TIMEOUT_SECONDS = 10.0
"""How long a group commit may take before its commands are told to retry (UNAVAILABLE).
One batch is in flight at a time, so a connection that hangs (a partition, not a
refusal) must not hold every later command of the process behind it."""


class PlayerBusy(FailedPrecondition):
    """A human player already has an active match (RULES.md 5: at most one)."""


class RequestReused(InvalidArgument):
    pass


class RequestSeen(Exception):
    """The request id was recorded by a concurrent or earlier run: answer from it."""


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


def _describe(timers: Sequence[domain.Deadline]) -> str:
    """The timers as operators read them in the match_timers row."""
    return json.dumps(
        [
            {"kind": t.kind, "seat": t.seat.name, "due": t.due.isoformat(), "turn": t.turn}
            for t in timers
        ]
    )


def stream_id(match_id: str) -> str:
    return f"{STREAM_PREFIX}{match_id}"


def event_id(match_id: str, version: int) -> UUID:
    """Deterministic event ids: a retried append of the same version gets the same id."""
    return uuid5(NAMESPACE_URL, f"triad:match:{match_id}:{version}")


@dataclass(frozen=True, slots=True)
class _Save:
    """One command's writes: its part of ``match_save_batch()``'s arguments."""

    stream: str
    expected: int
    events: list[NewEvent]
    match_id: str
    due: datetime | None
    timers: str
    seated: list[tuple[str, str, int]]
    """(player id, name, seat) of each human seated by this command."""
    finished: bool
    request: Request | None
    version: int

    def request_key(self) -> tuple[str | None, str | None, str | None, int]:
        request = self.request
        if request is None:
            return None, None, None, self.version
        return request.scope, request.request_id, request.fingerprint, self.version

    def failure(
        self, constraint: str | None, detail: str | None, hint: str | None
    ) -> Exception | None:
        """What a known refusal of a command's writes means to the caller; None if unknown."""
        if constraint == "active_matches_pkey":
            busy = next((name for player, name, _ in self.seated if player in str(detail)), None)
            return PlayerBusy(f"{busy or 'a player'} already has an active match; finish it first")
        if constraint in ("events_stream_version", "events_event_id"):
            # A concurrent writer appended the same version and committed first.
            return WrongExpectedVersion(self.stream, self.expected, None)
        if hint == "triad:request-seen" and self.request is not None:
            return RequestSeen(self.request.request_id)
        return None

    def outcome(self, row: Any) -> Exception | None:
        """This command's row of ``match_save_batch()``: None when it was saved."""
        if row["o_outcome"] == "saved":
            return None
        if row["o_outcome"] == "moved":
            return WrongExpectedVersion(self.stream, self.expected, row["o_head"])
        known = self.failure(row["o_constraint"], row["o_detail"], row["o_hint"])
        if known is not None:
            return known
        return RuntimeError(
            f"saving match {self.match_id} failed: {row['o_state']} {row['o_message']}"
        )


class MatchStore:
    def __init__(self, pool: Any, schema: str, linger: float = 0.0) -> None:
        self._pool = pool
        self._schema = quote_schema(schema)
        self._events = PostgresEventStore(pool, schema)
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
        self._group: GroupCommit[_Save, None] = GroupCommit(
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
        records = await self._events.read_stream(stream_id(match_id), after)
        state = cached
        for record in records:
            setup = state.setup if state is not None else None
            state = domain.evolve(state, codec.decode_record(record, setup))
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
        state: domain.Match | None = None
        for record in await self._events.read_stream(stream_id(match_id)):
            if record.version > version:
                break
            setup = state.setup if state is not None else None
            state = domain.evolve(state, codec.decode_record(record, setup))
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

    async def record_presence(
        self, player_id: str, session_id: str, opened_at: datetime, connected: bool
    ) -> bool:
        """Record that a session of the player opened or ended; False (nothing
        recorded) when a session opened later is already known, or when an ended
        session reports itself open again (a late report of a stream that is gone)."""
        row = await self._pool.fetchval(
            f"INSERT INTO {self._schema}.presence AS p "
            "(player_id, session_id, opened_at, connected) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (player_id) DO UPDATE SET session_id = EXCLUDED.session_id, "
            "opened_at = EXCLUDED.opened_at, connected = EXCLUDED.connected "
            "WHERE p.opened_at < EXCLUDED.opened_at "
            "OR (p.session_id = EXCLUDED.session_id AND (p.connected OR NOT EXCLUDED.connected)) "
            "RETURNING true",
            player_id,
            session_id,
            opened_at,
            connected,
        )
        return bool(row)

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
        conn: Any = None,
        correlation_id: str = "",
    ) -> domain.Match:
        """Append the decision's events to the match at ``before``'s version, with its
        timers, its active-match rows and the request key, in one transaction; the state
        after them is the decision's (not folded again). Raises ``WrongExpectedVersion``
        when another command got there first."""
        events, after = decision.events, decision.state
        match_id = after.match_id
        self._saving[match_id] = self._saving.get(match_id, 0) + 1
        try:
            with metrics.APPEND_SECONDS.time():
                # One statement: part of the caller's transaction, or of a group commit.
                await self._write(conn, before, after, events, request, correlation_id)
            self._remember(after)
        finally:
            left = self._saving.pop(match_id) - 1
            if left:
                self._saving[match_id] = left
            self._landed.wake(match_id)
        ended = after.finished
        age = (ended.finished_at - after.created_at).total_seconds() if ended is not None else 0.0
        metrics.observe(events, after.setup.mode.value, age)
        return after

    def _command(
        self,
        before: domain.Match | None,
        after: domain.Match,
        events: Sequence[MatchEvent],
        request: Request | None,
        correlation_id: str,
    ) -> _Save:
        match_id = after.match_id
        expected = before.version if before is not None else 0
        new = []
        for offset, event in enumerate(events, start=1):
            stored = codec.encode(event, after.cards)
            new.append(
                NewEvent(
                    type=stored.type,
                    schema_version=stored.schema_version,
                    data=stored.data,
                    metadata={"correlation_id": correlation_id} if correlation_id else {},
                    event_id=event_id(match_id, expected + offset),
                )
            )
        check_append(stream_id(match_id), expected, new)
        timers = domain.deadlines(after)
        seated = (
            [s for s in domain.SEATS if not after.player(s).is_bot]
            if any(isinstance(e, MatchCreated) for e in events)
            else []
        )
        return _Save(
            stream=stream_id(match_id),
            expected=expected,
            events=new,
            match_id=match_id,
            due=min((t.due for t in timers), default=None),
            timers=_describe(timers),
            seated=[(after.player(s).player_id, after.player(s).name, int(s)) for s in seated],
            finished=any(isinstance(e, MatchFinished) for e in events),
            request=request,
            version=after.version,
        )

    async def _write(
        self,
        conn: Any,
        before: domain.Match | None,
        after: domain.Match,
        events: Sequence[MatchEvent],
        request: Request | None,
        correlation_id: str,
    ) -> None:
        """On ``conn`` (the caller's transaction) alone; else with the other commands
        waiting to be written (group commit)."""
        command = self._command(before, after, events, request, correlation_id)
        if conn is None:
            await self._group.submit(command)
            return
        (outcome,) = await self._flush([command], conn)
        if outcome is not None:
            raise outcome

    async def _flush_group(self, commands: Sequence[_Save]) -> list[Exception | None]:
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

    async def _flush(self, commands: Sequence[_Save], conn: Any) -> list[Exception | None]:
        """Write a batch in one statement on ``conn``; each command's outcome, None
        when saved.

        Sorted by match, so batches (of this and other replicas) lock timer rows in one
        order. A batch that fails as a whole by contention (deadlock, serialization)
        tells each command to try again, as a moved stream would."""
        order = sorted(range(len(commands)), key=lambda i: commands[i].match_id)
        batch = [commands[i] for i in order]
        events = [e for c in batch for e in c.events]
        seats = [seat for c in batch for seat in c.seated]
        keys = [c.request_key() for c in batch]
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
                [player for player, _, _ in seats],
                [seat for _, _, seat in seats],
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
            outcomes[index] = command.outcome(row)
        return outcomes

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
            _describe(timers),
        )

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
