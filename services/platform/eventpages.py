"""A stream's stored events for operators, a page at a time: the one paging of
``GetMatchEvents`` and ``GetBattleEvents`` (``triad-admin match show``, ``battle show``).

A service's handler names its store's reader and the word for the thing::

    await events_page(ctx.store.records, battle_id, from_version, limit, "battle")

and its servicer answers the call with :func:`answer_events`: the operator's token
checked, the page capped by :func:`page_limit`, the events as envelopes. On the
operator's side, :func:`operator_events` asks a service for page after page until the
last, with the operator's token, and :func:`event_line` prints one event as every
``show`` command does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import grpc
from google.protobuf.message import Message
from triad.v1 import events_pb2 as ev

from services.platform.bus import envelope
from services.platform.edge import bind, check_operator, operator_metadata, require
from services.platform.errors import NotFound
from services.platform.eventstore import Recorded
from services.platform.pages import page_size

DEFAULT_PAGE = 500
"""Events in a page when the request leaves ``page_size`` at 0."""
MAX_EVENTS_PAGE = 5000
"""The most events one page holds, whatever the request asks."""
OPERATOR_TIMEOUT = 10.0
"""Seconds an operator's tool waits for one page."""
ID_LENGTH = 32
"""A match or battle id is a UUID: 32 hex digits (36 characters with its dashes)."""

ReadRecords = Callable[[str, int, int], Awaitable[list[Recorded]]]
"""A store's ``records(id, after_version, limit)``: up to ``limit`` stored events of one
stream after ``after_version``, in version order."""


Reply = TypeVar("Reply")


@dataclass(frozen=True, slots=True)
class EventsPage:
    """Stored events of one stream for operators, and the version the next page starts
    at (0: this is the last page)."""

    events: list[Recorded]
    next_version: int


ReadPage = Callable[[str, int, int], Awaitable[EventsPage]]
"""A handler's page of one stream: ``(id, from_version, limit)`` to an :class:`EventsPage`."""


def page_limit(requested: int) -> int:
    """The events a page holds for a request's ``page_size`` (``page_size``'s rule: 0 is
    the default, more than the cap is the cap, a negative size is INVALID_ARGUMENT)."""
    return page_size(requested, DEFAULT_PAGE, MAX_EVENTS_PAGE)


async def events_page(
    records: ReadRecords, key: str, from_version: int, limit: int, what: str
) -> EventsPage:
    """Up to ``limit`` stored events of the ``what`` ("match", "battle") ``key`` from
    ``from_version`` (1 = the start); NotFound when it has none at all."""
    after = max(from_version - 1, 0)
    found = await records(key, after, limit + 1)
    if not found and after == 0:
        short = len(key) < ID_LENGTH
        raise NotFound(
            f"no {what} {key}"
            + (f": give the whole {what} id, not the start the screens show" if short else "")
        )
    page = found[:limit]
    more = len(found) > limit
    return EventsPage(page, page[-1].version + 1 if more else 0)


class EventsRequest(Protocol):
    """A ``Get...Events`` request: where the page starts and how many events it asks for
    (besides the stream's id, which the servicer names)."""

    @property
    def from_version(self) -> int: ...

    @property
    def page_size(self) -> int: ...


async def answer_events(
    request: EventsRequest,
    field: str,
    read: ReadPage,
    reply: Callable[..., Reply],
    admin_token: str | None,
    context: Any,
) -> Reply:
    """A servicer's answer to a ``Get...Events`` call: the stream's id is the request's
    ``field`` ("match_id", "battle_id"), on every log line and required; only an operator
    (``check_operator``) gets the page ``read`` finds, at most :func:`page_limit` events,
    as ``reply(events=..., next_version=...)``."""
    key: str = getattr(request, field)
    bind(**{field: key, "player_id": ""})
    check_operator(admin_token, context)
    key = require(key, field)
    page = await read(key, request.from_version, page_limit(request.page_size))
    return reply(events=[envelope(r) for r in page.events], next_version=page.next_version)


class EventsReply(Protocol):
    """A ``Get...Events`` response: a page of envelopes and where the next one starts."""

    @property
    def events(self) -> Sequence[ev.EventEnvelope]: ...

    @property
    def next_version(self) -> int: ...


async def every_event(page: Callable[[int], Awaitable[EventsReply]]) -> list[ev.EventEnvelope]:
    """Every event of a stream, asking ``page(from_version)`` until the last page."""
    envelopes: list[ev.EventEnvelope] = []
    version = 1
    while version:
        reply = await page(version)
        envelopes.extend(reply.events)
        version = reply.next_version
    return envelopes


async def operator_events(
    address: str,
    token: str,
    method: Callable[[grpc.aio.Channel], Callable[..., Awaitable[EventsReply]]],
    request: Callable[[int], Message],
) -> list[ev.EventEnvelope]:
    """Every event of a stream from the service at ``address``, as an operator: the
    ``Get...Events`` RPC ``method(channel)`` is asked ``request(from_version)`` with the
    operator's ``token``, page after page. A refused or unanswered call raises
    ``grpc.aio.AioRpcError``."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = method(channel)
        return await every_event(
            lambda version: call(
                request(version), metadata=operator_metadata(token), timeout=OPERATOR_TIMEOUT
            )
        )


def event_line(envelope: ev.EventEnvelope, description: str) -> str:
    """One event as ``triad-admin ... show`` prints it: version, type, what it says."""
    kind = envelope.event_type.removeprefix("triad.v1.")
    return f"{envelope.version:4}  {kind:20} {description}"
