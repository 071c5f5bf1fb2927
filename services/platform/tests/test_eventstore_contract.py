"""The event store contract: every test runs against the in-memory and the PostgreSQL store.

Handlers are unit-tested on the in-memory store; these tests are what makes that
honest, by pinning the behaviour both stores must share.
"""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

import pytest

from services.platform.errors import Conflict
from services.platform.eventstore import (
    START,
    DuplicateEventId,
    EventStore,
    NewEvent,
    Recorded,
    WrongExpectedVersion,
)
from services.platform.memstore import InMemoryEventStore


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore()
    pg_store: EventStore = request.getfixturevalue("pg_store")
    return pg_store


def event(name: str = "CardPlaced", data: bytes = b"\x08\x01") -> NewEvent:
    return NewEvent(type=name, data=data, metadata={"player": "p1"})


def ids(recorded: list[Recorded]) -> list[object]:
    return [r.event_id for r in recorded]


async def test_a_new_stream_starts_at_version_one_and_reads_back_in_order(
    store: EventStore,
) -> None:
    events = [event("MatchCreated"), event("CardPlaced"), event("CardPlaced")]

    appended = await store.append("match-1", 0, events)

    assert [r.version for r in appended] == [1, 2, 3]
    assert [r.event_id for r in appended] == [e.event_id for e in events]
    positions = [r.position for r in appended]
    assert positions == sorted(positions) and len(set(positions)) == 3
    assert await store.read_stream("match-1") == appended


async def test_payload_metadata_and_schema_version_round_trip(store: EventStore) -> None:
    sent = NewEvent(
        type="MatchFinished",
        data=bytes(range(256)),
        metadata={"request_id": "r-1", "trace": {"hops": [1, 2]}, "bot": False},
        schema_version=3,
    )

    (appended,) = await store.append("match-1", 0, [sent])
    (read,) = await store.read_stream("match-1")

    assert read == appended
    assert (read.type, read.data, read.schema_version) == (sent.type, sent.data, 3)
    assert read.metadata == {"request_id": "r-1", "trace": {"hops": [1, 2]}, "bot": False}
    assert read.recorded_at.utcoffset() == timedelta(0)


async def test_reading_after_a_version_returns_only_the_later_events(store: EventStore) -> None:
    appended = await store.append("match-1", 0, [event(), event(), event()])

    assert await store.read_stream("match-1", after_version=1) == appended[1:]
    assert await store.read_stream("match-1", after_version=3) == []


async def test_an_unknown_stream_reads_as_empty(store: EventStore) -> None:
    assert await store.read_stream("match-nobody") == []


async def test_a_stale_expected_version_is_a_conflict_and_appends_nothing(
    store: EventStore,
) -> None:
    before = await store.append("match-1", 0, [event(), event()])

    with pytest.raises(WrongExpectedVersion) as conflict:
        await store.append("match-1", 1, [event()])

    assert isinstance(conflict.value, Conflict)  # ABORTED, should it reach a caller
    assert (conflict.value.stream_id, conflict.value.expected) == ("match-1", 1)
    assert conflict.value.actual == 2
    assert await store.read_stream("match-1") == before


async def test_creating_a_stream_that_exists_is_a_conflict(store: EventStore) -> None:
    await store.append("match-1", 0, [event()])

    with pytest.raises(WrongExpectedVersion):
        await store.append("match-1", 0, [event()])


async def test_expecting_a_version_not_yet_reached_is_a_conflict_and_leaves_no_gap(
    store: EventStore,
) -> None:
    await store.append("match-1", 0, [event()])

    with pytest.raises(WrongExpectedVersion) as conflict:
        await store.append("match-1", 5, [event()])

    assert conflict.value.actual == 1
    assert [r.version for r in await store.read_stream("match-1")] == [1]
    with pytest.raises(WrongExpectedVersion):
        await store.append("match-new", 1, [event()])
    assert await store.read_stream("match-new") == []


async def test_an_event_id_is_stored_once_across_streams(store: EventStore) -> None:
    first = event()
    await store.append("match-1", 0, [first])

    with pytest.raises(DuplicateEventId):
        await store.append("match-2", 0, [event(), first])

    assert await store.read_stream("match-2") == []
    twice = NewEvent("CardPlaced", b"", event_id=uuid4())
    with pytest.raises(DuplicateEventId):
        await store.append("match-3", 0, [twice, twice])
    assert len(await store.read_all()) == 1


async def test_read_all_follows_the_global_order_across_streams(store: EventStore) -> None:
    a1 = await store.append("match-a", 0, [event(), event()])
    b1 = await store.append("match-b", 0, [event()])
    a2 = await store.append("match-a", 2, [event()])

    everything = await store.read_all()

    assert ids(everything) == ids(a1 + b1 + a2)
    assert everything == a1 + b1 + a2
    assert [r.position for r in everything] == sorted(r.position for r in everything)
    assert ids(await store.read_all(after=a1[-1].position)) == ids(b1 + a2)
    assert await store.read_all(after=a2[-1].position) == []


async def test_read_all_pages_by_checkpoint_without_gaps_or_repeats(store: EventStore) -> None:
    written: list[Recorded] = []
    for n in range(7):
        written += await store.append(f"match-{n % 3}", n // 3, [event()])

    seen: list[Recorded] = []
    checkpoint = START
    while page := await store.read_all(after=checkpoint, limit=2):
        assert len(page) <= 2
        seen += page
        checkpoint = page[-1].position

    assert ids(seen) == ids(written)


async def test_bad_arguments_are_programming_errors_not_conflicts(store: EventStore) -> None:
    with pytest.raises(ValueError, match="at least one event"):
        await store.append("match-1", 0, [])
    with pytest.raises(ValueError, match="expected_version"):
        await store.append("match-1", -1, [event()])
    with pytest.raises(ValueError, match="stream_id"):
        await store.append("", 0, [event()])
    with pytest.raises(ValueError, match="limit"):
        await store.read_all(limit=0)
    with pytest.raises(TypeError):
        await store.append("match-1", 0, [NewEvent("X", b"", metadata={"at": object()})])
    assert await store.read_all() == []
