"""OpenSession: one stream per player of everything that happens to them. It opens with
the player's status and active match, then merges the match views (``_watch_matches``)
with the feeds of the other services (``feeds.py``), adds the notices a change of view
calls for (``notices.py``) and a heartbeat when quiet. It ends when a newer session of
the player opens or their token expires or is revoked (``SessionClosed`` says which).

While it is open the player counts as connected to their match; its end starts the
match's disconnect grace (the presence reports to the match service).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from itertools import count
from typing import Any, cast

import grpc
from google.protobuf.duration_pb2 import Duration
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from gateway import accounts
from gateway.account_rpcs import player_message
from gateway.auth import Authenticator, caller
from gateway.feeds import MATCH_POLL_SECONDS, Push, SessionFeeds
from gateway.notices import match_notices
from gateway.status import or_else
from gateway.store import GatewayStore
from services.platform.downstream import INTERNAL_DEADLINE
from services.platform.errors import Unauthenticated, Unavailable
from services.wire import timestamp


class SessionRpcs(SessionFeeds):
    _store: GatewayStore
    _auth: Authenticator
    _clock: Callable[[], datetime]
    _heartbeat: float

    async def OpenSession(
        self, request: g.OpenSessionRequest, context: Any
    ) -> AsyncIterator[g.OpenSessionResponse]:
        me = caller()
        session_id = uuid.uuid4().hex
        sequence = count(1)

        def push(**fields: Any) -> g.OpenSessionResponse:
            return g.OpenSessionResponse(
                sequence=next(sequence), send_time=timestamp(self._clock()), **fields
            )

        opened_at = self._clock()
        await self._store.open_session(me.player_id, session_id, opened_at)
        updates: asyncio.Queue[Push] = asyncio.Queue()
        watchers: list[asyncio.Task[None]] = []
        try:
            await self._presence(me.player_id, session_id, opened_at, connected=True)
            watchers.append(
                asyncio.create_task(
                    self._watch_matches(me.player_id, session_id, opened_at, updates)
                )
            )
            watchers += [
                asyncio.create_task(f) for f in self._feeds(me.player_id, opened_at, updates)
            ]
            opened = await self._opened(me.player_id, session_id)
            yield push(session_opened=opened)
            # The last view pushed of each match: its notices tell what changed since.
            shown: dict[str, pb.MatchView] = {}
            if opened.active_match.match_id:
                shown[opened.active_match.match_id] = opened.active_match
            while True:
                try:
                    update = await asyncio.wait_for(updates.get(), self._heartbeat)
                except TimeoutError:
                    closed = await self._should_close(me, session_id, context)
                    if closed is not None:
                        yield push(session_closed=closed)
                        return
                    yield push(heartbeat=g.Heartbeat(server_time=timestamp(self._clock())))
                    continue
                if update.field == "notice":
                    if await self._told_here(me.player_id, session_id):
                        yield push(notice=update.message)
                    continue
                if update.field != "match_view":  # queue, trades, balance, draft, ratings
                    yield push(**{update.field: update.message})
                    continue
                view = cast(pb.MatchView, update.message)
                before = shown.get(view.match_id)
                if before is not None and view.version <= before.version:
                    continue
                if before is None:
                    yield push(match_found=_found(view))
                shown[view.match_id] = view
                yield push(match_view=view)
                notices = match_notices(before, view) if before is not None else []
                if notices and await self._told_here(me.player_id, session_id):
                    for notice in notices:
                        yield push(notice=notice)
        finally:
            for watcher in watchers:
                watcher.cancel()
            # The grace starts as the stream ends, not once the watchers have wound
            # down; shielded, so that a second cancellation cannot lose the report.
            await asyncio.shield(
                self._presence(me.player_id, session_id, opened_at, connected=False)
            )
            await asyncio.gather(*watchers, return_exceptions=True)

    async def _opened(self, player_id: str, session_id: str) -> g.SessionOpened:
        """The session's first push: the player's status, active match and open draft."""
        account = await self._store.account(player_id)
        opened = g.SessionOpened(
            session_id=session_id,
            heartbeat_interval=Duration(seconds=int(self._heartbeat)),
        )
        # Only the match part is required: a session keeps the player connected to
        # their match (closing it starts the forfeit grace), which must not depend
        # on the collection or the matchmaker answering.
        if account is not None:
            opened.status.CopyFrom(await self._status(player_message(account), partial=True))
            active = opened.status.active_match_id or None
        else:
            active = await self._active_match_id(player_id)
        if active is not None:
            opened.active_match.CopyFrom(await self._view(active, player_id))
        if opened.status.draft_id:
            draft = await or_else(self._draft_view(opened.status.draft_id, player_id), None)
            if draft is not None:
                opened.draft.CopyFrom(draft)
        return opened

    async def _told_here(self, player_id: str, session_id: str) -> bool:
        """Whether notices go to this session: only the player's current one, so that
        an old stream not yet closed (it was replaced) does not tell them twice."""
        return await self._store.current_session(player_id) == session_id

    async def _should_close(
        self, me: accounts.Claims, session_id: str, context: Any
    ) -> g.SessionClosed | None:
        if await self._store.current_session(me.player_id) != session_id:
            return g.SessionClosed(
                reason=g.SESSION_CLOSE_REASON_REPLACED,
                message="a newer session of yours was opened; this one ends",
            )
        try:
            await self._auth.authenticate(context.invocation_metadata())
        except Unauthenticated as error:
            reason = (
                g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
                if "expired" in str(error)
                else g.SESSION_CLOSE_REASON_LOGGED_OUT
            )
            return g.SessionClosed(reason=reason, message=str(error))
        return None

    async def _presence(
        self, player_id: str, session_id: str, opened_at: datetime, connected: bool
    ) -> None:
        state = m.PRESENCE_STATE_CONNECTED if connected else m.PRESENCE_STATE_DISCONNECTED
        with contextlib.suppress(Exception):  # presence is best effort; the timer decides
            await self._match.ReportPresence(
                m.MatchServiceReportPresenceRequest(
                    request_id=uuid.uuid4().hex,
                    player_id=player_id,
                    session_id=session_id,
                    state=state,
                    open_time=timestamp(opened_at),
                ),
                timeout=INTERNAL_DEADLINE,
            )

    async def _watch_matches(
        self, player_id: str, session_id: str, opened_at: datetime, views: asyncio.Queue[Push]
    ) -> None:
        """Forward every view of the player's active match; look for a new one when idle.
        A match created while the session is open has it attached already; it is
        reported again when found, in case the report at the session's opening was lost
        (a report of a session older than the player's latest changes nothing)."""
        with self._nudges.watch(player_id) as nudged:
            await self._follow_matches(player_id, session_id, opened_at, views, nudged)

    async def _follow_matches(
        self,
        player_id: str,
        session_id: str,
        opened_at: datetime,
        views: asyncio.Queue[Push],
        nudged: asyncio.Event,
    ) -> None:
        while True:
            nudged.clear()  # a match started from here on wakes the idle wait below
            try:
                match_id = await self._active_match_id(player_id)
                if match_id is None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(nudged.wait(), MATCH_POLL_SECONDS)
                    continue
                await self._presence(player_id, session_id, opened_at, connected=True)
                stream = self._match.StreamView(
                    m.MatchServiceStreamViewRequest(match_id=match_id, player_id=player_id)
                )
                async for reply in stream:
                    await views.put(Push("match_view", reply.view))
            except (grpc.aio.AioRpcError, Unavailable):
                # The match service restarts or the stream broke: the session stays,
                # and the next round resumes with the current view.
                await asyncio.sleep(1.0)


def _found(view: pb.MatchView) -> g.MatchFound:
    """The push that announces a match the session has not shown yet."""
    opponent = next(p for p in view.players if p.seat != view.my_seat)
    return g.MatchFound(
        mode=view.mode,
        match_id=view.match_id,
        opponent_name=opponent.player_name,
        opponent_is_bot=opponent.is_bot,
    )
