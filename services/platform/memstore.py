"""The event store contract held in memory, for fast unit tests of handlers.

It behaves like the PostgreSQL store as the contract tests pin it down: the same
versions, conflicts, errors and global order. Each append counts as one transaction,
so an event's position is (append number, event number). Metadata makes a JSON round
trip, as it does through ``jsonb``, so a handler that stores something JSON cannot hold
fails here first. Appends run without an ``await`` in between, which makes them atomic
on one event loop.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from services.platform.eventstore import (
    START,
    DuplicateEventId,
    NewEvent,
    Position,
    Recorded,
    WrongExpectedVersion,
    check_append,
    encode_metadata,
)


class InMemoryEventStore:
    def __init__(self, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._clock = clock
        self._streams: dict[str, list[Recorded]] = {}
        self._log: list[Recorded] = []
        self._event_ids: set[object] = set()
        self._transactions = 0

    async def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent]
    ) -> list[Recorded]:
        check_append(stream_id, expected_version, events)
        stream = self._streams.get(stream_id, [])
        if len(stream) != expected_version:
            raise WrongExpectedVersion(stream_id, expected_version, len(stream))
        ids = [event.event_id for event in events]
        if len(set(ids)) != len(ids) or not self._event_ids.isdisjoint(ids):
            raise DuplicateEventId(f"an event id in this append to {stream_id!r} is already used")
        self._transactions += 1
        now = self._clock()
        recorded = [
            Recorded(
                stream_id=stream_id,
                version=version,
                position=Position(self._transactions, len(self._log) + offset),
                event_id=event.event_id,
                type=event.type,
                schema_version=event.schema_version,
                data=bytes(event.data),
                metadata=json.loads(encode_metadata(event.metadata)),
                recorded_at=now,
            )
            for offset, (version, event) in enumerate(
                enumerate(events, start=expected_version + 1), start=1
            )
        ]
        self._streams[stream_id] = stream + recorded
        self._log.extend(recorded)
        self._event_ids.update(ids)
        return recorded

    async def read_stream(self, stream_id: str, after_version: int = 0) -> list[Recorded]:
        return list(self._streams.get(stream_id, [])[max(after_version, 0) :])

    async def read_all(self, after: Position = START, limit: int = 1000) -> list[Recorded]:
        if limit < 1:
            raise ValueError(f"limit must be positive, got {limit}")
        start = bisect_right(self._log, after, key=lambda recorded: recorded.position)
        return self._log[start : start + limit]
