"""What the session stream merges besides the match views: the watch streams of the
collection (trades, balance, drafts), the rating service (rating changes) and the
matchmaker (queue status), each translated into the session's pushes by one loop.

A watch stream that breaks (its service restarts) is opened again after a pause. The
matchmaker's WatchQueue follows one ticket and ends when it is paired or cancelled, and
there is nothing to watch while the player has no ticket; so the queue feed looks again
after a short poll, or at once when this gateway enqueued the player (``Nudges``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import matchmaker_pb2 as mm
from triad.v1 import rating_pb2 as r

from gateway.notices import trade_notices
from gateway.status import PlayerStatusReads
from services.platform.errors import DomainError
from services.platform.notifier import Waiters

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Push:
    """A session push: the field of ``OpenSessionResponse.push`` and its message."""

    field: str
    message: Message


RECONNECT_SECONDS = 1.0
QUEUE_POLL_SECONDS = 5.0
"""How soon a ticket made through another gateway replica shows on the session; one
made through this gateway shows at once (a client's calls and its session share one
connection, so one replica, unless it reconnects). While a ticket waits, WatchQueue
streams its changes as they happen; this is only the look for a new ticket."""
MATCH_POLL_SECONDS = 1.0
"""How soon a match this gateway did not start (the other side's join, a pairing seen by
another replica) shows on an idle session; one started here, or paired in the queue
feed, shows at once."""


Nudges = Waiters
"""Wakes a player's feeds (by player id) when this gateway changed what they follow."""


async def follow(
    open_stream: Callable[[], AsyncIterable[T]],
    translate: Callable[[T], Awaitable[list[Push]]],
    updates: asyncio.Queue[Push],
    *,
    pause: float = RECONNECT_SECONDS,
    wake: asyncio.Event | None = None,
) -> None:
    """Forward a watch stream's replies as session pushes, for as long as the session
    lasts: when the stream ends or fails, open it again after ``pause`` (or when
    ``wake`` is set)."""
    while True:
        if wake is not None:
            wake.clear()  # a nudge from here on opens the next round at once
        try:
            async for reply in open_stream():
                for push in await translate(reply):
                    await updates.put(push)
        except grpc.aio.AioRpcError:
            pass  # the service restarts, or (WatchQueue) there is no ticket yet
        if wake is None:
            await asyncio.sleep(pause)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), pause)


class SessionFeeds(PlayerStatusReads):
    _nudges: Nudges
    """Set when this gateway changed what a player's feeds follow (a ticket, a match)."""

    def _feeds(
        self, player_id: str, opened_at: datetime, updates: asyncio.Queue[Push]
    ) -> list[Coroutine[Any, Any, None]]:
        """One feed per configured service that pushes to the session opened at
        ``opened_at``."""
        feeds = []
        if self._collection is not None:
            feeds.append(self._collection_feed(player_id, updates))
        if self._rating is not None:
            feeds.append(self._rating_feed(player_id, updates))
        if self._matchmaker is not None:
            feeds.append(self._queue_feed(player_id, opened_at, updates))
        return feeds

    async def _collection_feed(self, player_id: str, updates: asyncio.Queue[Push]) -> None:
        """Trade prompts and results, balance and draft views, under the session's
        field names of the same meaning."""
        stub = self._collection_stub()
        request = c.CollectionServiceWatchPlayerRequest(player_id=player_id)

        async def translate(reply: c.CollectionServiceWatchPlayerResponse) -> list[Push]:
            kind = reply.WhichOneof("update")
            if kind is None:
                return []
            pushes = [Push(kind, getattr(reply, kind))]
            if kind == "trade_result":  # reported once, when the copy moved
                pushes += [Push("notice", n) for n in trade_notices(reply.trade_result)]
            return pushes

        await follow(lambda: stub.WatchPlayer(request), translate, updates)

    async def _rating_feed(self, player_id: str, updates: asyncio.Queue[Push]) -> None:
        """Rating changes after rated games, as the rating service applies them."""
        stub = self._rating_stub()
        request = r.RatingServiceWatchRatingsRequest(player_id=player_id)

        async def translate(reply: r.RatingServiceWatchRatingsResponse) -> list[Push]:
            return [Push("rating_change", reply.change)]

        await follow(lambda: stub.WatchRatings(request), translate, updates)

    async def _queue_feed(
        self, player_id: str, opened_at: datetime, updates: asyncio.Queue[Push]
    ) -> None:
        """The player's ticket while it waits (mode, time waited, window, queue length),
        then once how it ended: paired or cancelled. A Draft pairing is also the match
        found (its draft comes first); a match's MatchFound comes with its first view."""
        stub = self._matchmaker_stub()
        request = mm.MatchmakerServiceWatchQueueRequest(player_id=player_id)
        # WatchQueue shows a ticket that ended a while ago again on every call: tell
        # each end once, and not at all the end of a ticket older than the session
        # that had ended when the feed first looked (the session's first push shows
        # the player's state then).
        told: str | None = None
        first = True

        async def translate(reply: mm.MatchmakerServiceWatchQueueResponse) -> list[Push]:
            nonlocal told, first
            status, seen_first = reply.status, first
            first = False
            ticket = status.ticket
            if ticket.status == pb.TICKET_STATUS_QUEUED:
                return [Push("queue_status", status)]
            old = seen_first and ticket.enqueue_time.ToDatetime(tzinfo=UTC) <= opened_at
            if ticket.ticket_id == told or old:
                told = ticket.ticket_id
                return []
            told = ticket.ticket_id
            pushes = [Push("queue_status", status)]
            if ticket.status == pb.TICKET_STATUS_PAIRED:
                self._nudges.wake(player_id)  # the match watcher looks for it now
            if ticket.status == pb.TICKET_STATUS_PAIRED and ticket.draft_id:
                pushes.append(Push("match_found", await self._draft_found(ticket, player_id)))
            return pushes

        with self._nudges.watch(player_id) as nudged:
            await follow(
                lambda: stub.WatchQueue(request),
                translate,
                updates,
                pause=QUEUE_POLL_SECONDS,
                wake=nudged,
            )

    async def _draft_found(self, ticket: pb.Ticket, player_id: str) -> g.MatchFound:
        found = g.MatchFound(mode=ticket.mode, draft_id=ticket.draft_id)
        with contextlib.suppress(DomainError):  # the draft view only adds the name
            draft = await self._draft_view(ticket.draft_id, player_id)
            if draft is not None:
                found.opponent_name = draft.opponent_name
        return found
