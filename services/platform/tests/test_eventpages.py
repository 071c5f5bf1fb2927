"""The servicer's side of an operators' ``Get...Events`` call (``answer_events``): only
an operator gets a page, the stream's id is required, the page is capped, and the
events come back as envelopes with where the next page starts. Pure: no server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import structlog

from services.platform.edge import operator_metadata
from services.platform.errors import InvalidArgument, PermissionDenied
from services.platform.eventpages import (
    DEFAULT_PAGE,
    MAX_EVENTS_PAGE,
    EventsPage,
    answer_events,
    events_page,
)
from services.platform.eventstore import NewEvent, Recorded
from services.platform.memstore import InMemoryEventStore

TOKEN = "s3cret"


@dataclass(frozen=True, slots=True)
class EventsRequest:
    battle_id: str
    from_version: int = 0
    page_size: int = 0


class Context:
    def __init__(self, *metadata: tuple[str, str]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> Any:
        return self._metadata


def reply(**fields: Any) -> dict[str, Any]:
    return fields


async def stored(count: int) -> InMemoryEventStore:
    store = InMemoryEventStore()
    events = [NewEvent(type="triad.v1.Thing", data=b"") for _ in range(count)]
    await store.append("battle-b1", 0, events)
    return store


async def test_an_operator_gets_a_page_of_envelopes_naming_where_the_next_starts() -> None:
    store = await stored(3)

    async def records(key: str, after: int, limit: int) -> list[Recorded]:
        return (await store.read_stream(f"battle-{key}", after))[:limit]

    async def read_page(key: str, from_version: int, limit: int) -> EventsPage:
        return await events_page(records, key, from_version, limit, "battle")

    context = Context(*operator_metadata(TOKEN))
    request = EventsRequest("b1", from_version=1, page_size=2)
    first = await answer_events(request, "battle_id", read_page, reply, TOKEN, context)
    assert [e.version for e in first["events"]] == [1, 2] and first["next_version"] == 3
    assert structlog.contextvars.get_contextvars()["battle_id"] == "b1"
    request = EventsRequest("b1", from_version=3, page_size=2)
    last = await answer_events(request, "battle_id", read_page, reply, TOKEN, context)
    assert [e.version for e in last["events"]] == [3] and last["next_version"] == 0


async def test_only_an_operator_gets_a_page_and_the_id_is_required() -> None:
    limits: list[int] = []

    async def read_page(key: str, from_version: int, limit: int) -> Any:
        limits.append(limit)
        raise AssertionError("not to be read")

    with pytest.raises(PermissionDenied):
        await answer_events(EventsRequest("b1"), "battle_id", read_page, reply, TOKEN, Context())
    with pytest.raises(PermissionDenied):  # no admin token: every operator call refused
        context = Context(*operator_metadata(TOKEN))
        await answer_events(EventsRequest("b1"), "battle_id", read_page, reply, None, context)
    with pytest.raises(InvalidArgument, match="battle_id is required"):
        context = Context(*operator_metadata(TOKEN))
        await answer_events(EventsRequest(""), "battle_id", read_page, reply, TOKEN, context)
    assert limits == []


async def test_the_page_is_capped_whatever_the_request_asks() -> None:
    limits: list[int] = []

    async def read_page(key: str, from_version: int, limit: int) -> EventsPage:
        limits.append(limit)
        return EventsPage([], 0)

    context = Context(*operator_metadata(TOKEN))
    for size in (0, 7, MAX_EVENTS_PAGE + 1):
        await answer_events(
            EventsRequest("b1", page_size=size), "battle_id", read_page, reply, TOKEN, context
        )
    assert limits == [DEFAULT_PAGE, 7, MAX_EVENTS_PAGE]
