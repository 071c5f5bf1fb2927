"""The append-only event store: its types, its contract, and its PostgreSQL adapter.

Streams and versions
    A stream (one match, one collection...) is a sequence of events numbered 1, 2, 3...
    An append says which version the writer last saw (0 for a new stream) and fails
    with ``WrongExpectedVersion`` if the stream has moved on; the handler then reloads,
    decides again and retries. The safety lives in the schema: ``PRIMARY KEY
    (stream_id, version)`` makes two writers of the same version collide inside
    PostgreSQL, and the version check is part of the INSERT statement itself; nothing
    is read first and checked in Python.

The global order, and why a reader following it never skips an event
    Every event also has a global position ``(tx_id, seq)``: the 64-bit id of the
    transaction that wrote it (``pg_current_xact_id()``, an ``xid8``, which never wraps)
    and a ``bigserial``. ``read_all`` returns events in ``(tx_id, seq)`` order after a
    checkpoint, and only those with ``tx_id < pg_snapshot_xmin(pg_current_snapshot())``,
    the oldest transaction still running anywhere in the cluster.

    A bigserial alone is not enough: its values are taken at insert time but become
    visible at commit time, in another order. T1 takes seq 1, T2 takes seq 2 and
    commits first; a reader sees 2, checkpoints 2, and never comes back for 1.

    The xmin filter makes what a reader sees final. Every transaction with an id below
    xmin has ended, and a transaction that gets an id later gets one at or above xmin.
    So the rows below xmin never change again, and as xmin rises the rows that appear
    all have ``tx_id`` at or above the old xmin: after everything read so far.

    The checkpoint must be the pair, not ``seq``. A transaction can take its id early
    (any write does) and insert its event late: T_b (id 99) inserts seq 11 and commits
    while T_a (id 100) holds seq 10 open. xmin is 100, so seq 11 is readable; a reader
    checkpointing on seq would skip seq 10 forever once T_a commits. In ``(tx_id, seq)``
    order, T_a's ``(100, 10)`` comes after ``(99, 11)``, where the reader will find it.

    The price: readers lag behind the oldest open *writing* transaction in the cluster
    (read-only transactions take no id), so keep write transactions short.

    Each stream's events appear in version order in the global order too: an append
    is refused (``WrongExpectedVersion``) when its transaction's id is lower than that of
    the stream's last event, which happens only when the transaction took its id before
    that event was committed. The retry runs in a new transaction with a newer id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID, uuid4

import asyncpg

from services.platform.errors import Conflict
from services.platform.migrations import quote_schema


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """Where an event sits in the global order; compare and checkpoint it whole."""

    tx_id: int
    seq: int


START = Position(0, 0)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: the payload is already serialised (protobuf bytes)."""

    type: str
    data: bytes
    metadata: Mapping[str, Any] = field(default_factory=dict)
    event_id: UUID = field(default_factory=uuid4)
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class Recorded:
    """An event as stored: a stream version and a global position of its own."""

    stream_id: str
    version: int
    position: Position
    event_id: UUID
    type: str
    schema_version: int
    data: bytes
    metadata: Mapping[str, Any]
    recorded_at: datetime


class EventStoreError(Exception):
    """Base of the event store's own errors."""


class WrongExpectedVersion(EventStoreError, Conflict):
    """The stream is not at the version the writer expected: reload, decide, retry.

    A ``Conflict``, so once a handler runs out of retries the caller gets ABORTED.
    """

    def __init__(self, stream_id: str, expected: int, actual: int | None, reason: str = "") -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        found = "another writer got there first" if actual is None else f"it is at {actual}"
        super().__init__(
            f"stream {stream_id!r} was expected at version {expected} but {reason or found}"
        )


class DuplicateEventId(EventStoreError):
    """An event id is already stored (or repeated in the batch): events are appended once."""


class EventStore(Protocol):
    async def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[Recorded]: ...

    async def read_stream(self, stream_id: str, after_version: int = 0) -> list[Recorded]: ...

    async def read_all(self, after: Position = START, limit: int = 1000) -> list[Recorded]: ...


def check_append(stream_id: str, expected_version: int, events: Sequence[NewEvent]) -> None:
    """Argument checks every store makes the same way (programming errors, not conflicts)."""
    if not stream_id:
        raise ValueError("stream_id must not be empty")
    if expected_version < 0:
        raise ValueError(f"expected_version must be 0 (new stream) or more, got {expected_version}")
    if not events:
        raise ValueError("append needs at least one event")


def encode_metadata(metadata: Mapping[str, Any]) -> str:
    return json.dumps(dict(metadata), separators=(",", ":"), sort_keys=True)


_COLUMNS = (
    "stream_id, version, tx_id::text AS tx_text, seq, event_id, type, schema_version, data, "
    "metadata::text AS metadata, recorded_at"
)


class PostgresEventStore:
    """The event store in one schema's ``events`` table (see ``MIGRATIONS``).

    asyncpg has no codec for ``xid8``, so transaction ids cross the wire as text, under
    another name (``tx_text``): an output column named ``tx_id`` would be what ``ORDER BY
    tx_id`` sorts, as text, and "1000" sorts before "999".
    """

    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        table = f"{quote_schema(schema)}.events"
        self._append_sql = (
            f"SELECT version, tx_text, seq, recorded_at FROM {quote_schema(schema)}.append_events("
            "$1, $2, $3::uuid[], $4::text[], $5::integer[], $6::bytea[], $7::text[])"
        )
        self._head_sql = f"SELECT coalesce(max(version), 0) FROM {table} WHERE stream_id = $1"
        self._stream_sql = (
            f"SELECT {_COLUMNS} FROM {table} WHERE stream_id = $1 AND version > $2 ORDER BY version"
        )
        # xmin comes from a sub-select so it is computed once per query, from the same
        # snapshot that decides which rows the query can see.
        self._all_sql = f"""
            SELECT {_COLUMNS} FROM {table}
            WHERE (tx_id, seq) > ($1::text::xid8, $2::bigint)
              AND tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
            ORDER BY tx_id, seq
            LIMIT $3"""

    async def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[Recorded]:
        """Append in a transaction of its own (one statement, so atomic)."""
        return await self._append(self._pool, stream_id, expected_version, events)

    async def append_in(
        self, conn: Any, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[Recorded]:
        """Append inside the caller's transaction on ``conn``, with the outbox or deadlines.

        The events exist only if the caller commits. After a ``WrongExpectedVersion`` the
        transaction may be aborted (a unique violation aborts it): roll it back and retry.
        """
        return await self._append(conn, stream_id, expected_version, events)

    async def read_stream(self, stream_id: str, after_version: int = 0) -> list[Recorded]:
        rows = await self._pool.fetch(self._stream_sql, stream_id, after_version)
        return [_recorded(row) for row in rows]

    async def read_all(self, after: Position = START, limit: int = 1000) -> list[Recorded]:
        """Events after ``after`` in global order; checkpoint the last one's position."""
        if limit < 1:
            raise ValueError(f"limit must be positive, got {limit}")
        rows = await self._pool.fetch(self._all_sql, str(after.tx_id), after.seq, limit)
        return [_recorded(row) for row in rows]

    async def _append(
        self,
        target: Any,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
    ) -> list[Recorded]:
        check_append(stream_id, expected_version, events)
        try:
            rows = await target.fetch(
                self._append_sql,
                stream_id,
                expected_version,
                [e.event_id for e in events],
                [e.type for e in events],
                [e.schema_version for e in events],
                [e.data for e in events],
                [encode_metadata(e.metadata) for e in events],
            )
        except asyncpg.UniqueViolationError as error:
            if error.constraint_name == "events_event_id":
                raise DuplicateEventId(str(error.detail or error)) from error
            if error.constraint_name != "events_stream_version":
                raise
            # A concurrent writer inserted the same version and committed first. Inside
            # a caller's transaction, now aborted, the actual version cannot be asked.
            actual = None
            if target is self._pool:
                actual = await target.fetchval(self._head_sql, stream_id)
            raise WrongExpectedVersion(stream_id, expected_version, actual) from error
        if not rows:
            actual = await target.fetchval(self._head_sql, stream_id)
            reason = ""
            if actual == expected_version:
                reason = (
                    "this transaction is older than the one that wrote the stream's last "
                    "event (appending would break the stream's order); retry in a new one"
                )
            raise WrongExpectedVersion(stream_id, expected_version, actual, reason)
        by_version = {row["version"]: row for row in rows}
        return [
            Recorded(
                stream_id=stream_id,
                version=version,
                position=Position(int(by_version[version]["tx_text"]), by_version[version]["seq"]),
                event_id=event.event_id,
                type=event.type,
                schema_version=event.schema_version,
                data=event.data,
                metadata=json.loads(encode_metadata(event.metadata)),
                recorded_at=by_version[version]["recorded_at"],
            )
            for version, event in enumerate(events, start=expected_version + 1)
        ]


def _recorded(row: Any) -> Recorded:
    return Recorded(
        stream_id=row["stream_id"],
        version=row["version"],
        position=Position(int(row["tx_text"]), row["seq"]),
        event_id=row["event_id"],
        type=row["type"],
        schema_version=row["schema_version"],
        data=bytes(row["data"]),
        metadata=json.loads(row["metadata"]),
        recorded_at=row["recorded_at"],
    )
