"""OpenSession: one stream per player of everything that happens to them.

It opens with the player's status and active match, read once, followed by the open
challenges addressed to the player (each pushed once when made, perhaps before the
session opened, as a ``challenge`` push); from then on it waits on
the player's push subject (``pushes.PushHub``): the services publish each change for
the player there (match views, queue status, trades, balance, drafts, ratings, tables),
whichever gateway replica holds the session. Nothing is polled and no internal stream is
held: an idle session costs a subscription and a heartbeat.

The session shows each change once (``Shown``): match views only when newer, with the
notices a change of view calls for (``notices.py``) and ``MatchFound`` for a match it had
not shown; a ticket's end and a trade's result once; anything else when it differs from
what it last showed. When pushes may have been lost (the gateway's NATS connection came
back) it reads the player's state again and shows what changed.

It ends when a newer session of the player opens (announced on the player's subject,
decided by the sessions table), when a logout revokes its token (announced likewise) or
when its token expires (``SessionClosed`` says which). While it is open the player
counts as connected to their match; its end starts the match's disconnect grace (the
presence reports to the match service; a few seconds later when the token expired, so
that the client's reopening shows no absence: ``presence.Departures``).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from itertools import count
from typing import Any, cast

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway import accounts
from gateway.account_rpcs import player_message
from gateway.auth import Authenticator, caller
from gateway.metrics import SESSIONS
from gateway.notices import (
    away_notices,
    match_found,
    match_notices,
    replaced,
    shutting_down,
    table_notices,
    trade_notices,
)
from gateway.presence import NOTHING_MISSED, Missed, PresenceReports
from gateway.pushes import (
    ANSWERED,
    RESYNC,
    SESSION_CLOSED,
    SESSION_OPENED,
    SHUTDOWN,
    Inbox,
    Push,
    PushHub,
)
from gateway.shown import Shown, Shows
from gateway.status import or_else
from gateway.store import GatewayStore
from services.platform.errors import DomainError, Unauthenticated
from services.wire import duration, timestamp


class SessionRpcs(PresenceReports):
    _store: GatewayStore
    _auth: Authenticator
    _clock: Callable[[], datetime]
    _heartbeat: float
    _hub: PushHub

    async def OpenSession(
        self, request: g.OpenSessionRequest, context: Any
    ) -> AsyncIterator[g.OpenSessionResponse]:
        me = caller()
        player_id = me.player_id
        session_id = uuid.uuid4().hex
        sequence = count(1)

        def push(**fields: Any) -> g.OpenSessionResponse:
            return g.OpenSessionResponse(
                sequence=next(sequence), send_time=timestamp(self._clock()), **fields
            )

        opened_at = self._clock()
        moving = False
        inbox = Inbox()
        # Subscribed before anything is written or read, so nothing changes unseen in
        # between (a newer session's announcement included).
        async with self._hub.listen(player_id, inbox, session_id):
            held = await self._store.open_session(player_id, session_id, opened_at)
            SESSIONS.inc()
            try:
                if not held:  # one opened later (at the same moment) holds the player
                    yield push(session_closed=replaced())
                    return
                # Connected before the older session hears of this one: its end, told
                # after, is an older session's and changes nothing (no flicker away).
                missed = await self._presence(player_id, session_id, opened_at, connected=True)
                await self._hub.publish.send(
                    player_id, SESSION_OPENED, g.SessionOpened(session_id=session_id)
                )
                opened, challenges = await asyncio.gather(
                    self._opened(player_id, session_id, missed), self._pending_challenges(me)
                )
                # A newer session may have been opened while the state was read: then it
                # holds the player, and this stream, opened at the same moment, says only
                # that (found from outside: six opened at once, some were told
                # SessionOpened after the one that kept the player, then REPLACED).
                # What ended while the player was away is told once: the holder says it.
                if await self._store.current_session(player_id) != session_id:
                    for notice in away_notices(opened):
                        await self._hub.publish.send(player_id, "notice", notice)
                    yield push(session_closed=replaced())
                    return
                yield push(session_opened=opened)
                for notice in away_notices(opened):
                    yield push(notice=notice)
                shown = Shown(player_id, session_id, opened_at)
                if (active := opened.active_match).match_id:
                    shown.views[active.match_id] = active
                    shown.met[active.match_id] = {p.seat for p in active.players if p.connected}
                if (battle := opened.active_battle).battle_id:
                    shown.battles[battle.battle_id] = battle.version
                # a session's lasting cost is its subscription and ``shown``
                del active, battle, opened
                for each in challenges:
                    for name, message in await self._show(shown, each):
                        yield push(**{name: message})
                del challenges
                while True:
                    try:
                        # asyncio.timeout, not wait_for: no task per waiting session.
                        async with asyncio.timeout(self._quiet_wait(me)):
                            update = await inbox.get()
                    except TimeoutError:
                        closed = await self._should_close(me, session_id, context)
                        if closed is not None:  # the token's end: LEAVING before it is told
                            await self._leaving(player_id, session_id, opened_at)
                            yield push(session_closed=closed)
                            return
                        yield push(heartbeat=g.Heartbeat(server_time=timestamp(self._clock())))
                        continue
                    closed = await self._closes(update, me, session_id, context)
                    if closed is not None:
                        yield push(session_closed=closed)
                        return
                    if update.field in (SESSION_OPENED, SESSION_CLOSED):
                        continue  # announcements between gateways, not for the client
                    if update.field == SHUTDOWN:
                        moving = True  # to another gateway, at once: as at a token's end
                        await self._leaving(player_id, session_id, opened_at)
                        yield push(session_closed=shutting_down())
                        return
                    updates = [update]
                    if update.field == RESYNC:  # announcements may have been lost too
                        closed = await self._looked_up(me, session_id, context)
                        if closed is not None:
                            yield push(session_closed=closed)
                            return
                        updates = await self._current(me)
                    for each in updates:
                        for name, message in await self._show(shown, each):
                            yield push(**{name: message})
            finally:
                SESSIONS.dec()
                # Shielded, so that a second cancellation cannot lose the report.
                back_soon = moving or self._clock() >= me.expires_at
                await asyncio.shield(self._ended(player_id, session_id, opened_at, back_soon))

    def _quiet_wait(self, me: accounts.Claims) -> float:
        """How long to wait for a push before a heartbeat: the heartbeat interval, or
        less when the token expires sooner (the session then ends)."""
        left = (me.expires_at - self._clock()).total_seconds()
        return max(0.0, min(self._heartbeat, left))

    async def _opened(
        self, player_id: str, session_id: str, missed: Missed = NOTHING_MISSED
    ) -> g.SessionOpened:
        """The session's first push: the player's status, active match, open draft,
        battle in progress, and the match and battle that ended while they were away."""
        account = await self._store.account(player_id)
        opened = g.SessionOpened(
            session_id=session_id,
            heartbeat_interval=duration(self._heartbeat),  # 0.5 s is not "0 s"
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
        if (battle := await or_else(self._battle_now(player_id), None)) is not None:
            opened.active_battle.CopyFrom(battle)
        await self._missed(opened, player_id, missed)
        return opened

    async def _pending_challenges(self, me: accounts.Claims) -> list[Push]:
        """The open challenges addressed to the player, as the pushes that made them,
        oldest first; none when the matchmaker does not answer (like the status)."""
        player = pb.PlayerRef(player_id=me.player_id, player_name=me.name)
        tables = await or_else(self._challenges(player), [])
        return [Push("challenge", table) for table in reversed(tables)]

    async def _current(self, me: accounts.Claims) -> list[Push]:
        """The player's state read again, as the pushes that would show it (after
        pushes may have been lost); what the session showed already is not repeated."""
        opened, challenges = await asyncio.gather(
            self._opened(me.player_id, ""), self._pending_challenges(me)
        )
        status = opened.status
        current: list[Push] = []
        if opened.active_match.match_id:
            current.append(Push("match_view", opened.active_match))
        shown: tuple[tuple[Message, str, str], ...] = (  # holder, field, push
            (status, "balance", "balance"),
            (status, "pending_trade", "trade_prompt"),
            (opened, "draft", "draft"),
            (opened, "active_battle", "battle"),
            (status, "hosted_table", "table"),
        )
        for holder, part, kind in shown:
            if holder.HasField(part):
                current.append(Push(kind, getattr(holder, part)))
        if status.HasField("ticket"):
            current.append(Push("queue_status", pb.QueueStatus(ticket=status.ticket)))
        return current + challenges

    async def _closes(
        self, update: Push, me: accounts.Claims, session_id: str, context: Any
    ) -> g.SessionClosed | None:
        """Whether an announcement on the player's subject ends this session: a newer
        session opened (the sessions table says which is current), or a logout revoked
        this session's token."""
        if update.field == SESSION_OPENED:
            newer = cast(g.SessionOpened, update.message)
            if newer.session_id == session_id:
                return None
            if await self._store.current_session(me.player_id) == session_id:
                return None  # an older session's announcement, arriving late
            return replaced()
        if update.field == SESSION_CLOSED:
            self._auth.forget(me)  # the cached "not revoked" is stale now
            return await self._refused(context)
        return None

    async def _should_close(
        self, me: accounts.Claims, session_id: str, context: Any
    ) -> g.SessionClosed | None:
        """At a heartbeat: whether the token expired. Without NATS (no announcements
        reach the session) the session also looks up the tables, as a fallback."""
        if self._clock() >= me.expires_at:
            return g.SessionClosed(
                reason=g.SESSION_CLOSE_REASON_TOKEN_EXPIRED,
                message="your access token expired: refresh it and open a new session",
            )
        if self._hub.live:
            return None
        return await self._looked_up(me, session_id, context)

    async def _looked_up(
        self, me: accounts.Claims, session_id: str, context: Any
    ) -> g.SessionClosed | None:
        """What the tables say where an announcement may have been lost: a newer
        session holds the player, or a logout revoked this session's token."""
        if await self._store.current_session(me.player_id) != session_id:
            return replaced()
        return await self._refused(context)

    async def _refused(self, context: Any) -> g.SessionClosed | None:
        try:
            await self._auth.check(context.invocation_metadata())
        except Unauthenticated as error:
            reason = (
                g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
                if "expired" in str(error)
                else g.SESSION_CLOSE_REASON_LOGGED_OUT
            )
            return g.SessionClosed(reason=reason, message=str(error))
        return None

    async def _show(self, shown: Shown, update: Push) -> Shows:
        """What the session sends for one push of the player's subject."""
        message = update.message
        if message is None:
            return []
        if update.field == "match_view":
            view = cast(pb.MatchView, message)
            return await self._show_view(shown, view)
        if update.field == ANSWERED:  # the client has it (PlaceCard's reply): not again
            view = cast(pb.MatchView, message)
            known = view.match_id in shown.views
            shows = await self._show_view(shown, view)
            return [(name, m) for name, m in shows if name != "match_view"] if known else shows
        if update.field == "battle":  # a view not newer than the one shown is dropped
            battle = cast(pb.BattleView, message)
            if shown.battles.get(battle.battle_id, 0) >= battle.version:
                return []
            shown.battles[battle.battle_id] = battle.version
            return [("battle", battle)]
        if update.field == "queue_status":
            return await self._show_queue(shown, cast(pb.QueueStatus, message))
        if update.field == "trade_result":
            trade = cast(pb.Trade, message)
            if trade.trade_id in shown.ended:
                return []
            shown.ended.add(trade.trade_id)
            return [("trade_result", trade), *(("notice", n) for n in trade_notices(trade))]
        key = update.field
        if update.field in _ID_OF:
            key += ":" + getattr(message, f"{_ID_OF[update.field]}")
        if update.field == "notice":
            return [(update.field, message)]
        if update.field == "challenge" and key not in shown.last:
            ended = cast(pb.Table, message).status != pb.TABLE_STATUS_OPEN
            if ended:  # a challenge never shown here, ended (its push came late)
                return []
        if shown.differs(key, message):
            told = table_notices(cast(pb.Table, message)) if update.field == "table" else []
            return [(update.field, message), *(("notice", n) for n in told)]
        return []

    async def _show_view(self, shown: Shown, view: pb.MatchView) -> Shows:
        before = shown.views.get(view.match_id)
        if before is not None and view.version <= before.version:
            return []
        shown.views[view.match_id] = view
        met = shown.met.setdefault(view.match_id, set())
        told = [] if before is None else match_notices(before, view, met)
        met.update(p.seat for p in view.players if p.connected)
        if before is None:
            # A match this session had not shown: the player is in it from now on, so
            # say so again, in case the report at the session's opening was lost (a
            # report of a session older than the player's latest changes nothing).
            if view.status == pb.MATCH_STATUS_IN_PROGRESS:
                await self._presence(
                    shown.player_id, shown.session_id, shown.opened_at, connected=True
                )
            return [("match_found", match_found(view)), ("match_view", view)]
        return [("match_view", view), *(("notice", n) for n in told)]

    async def _show_queue(self, shown: Shown, status: pb.QueueStatus) -> Shows:
        ticket = status.ticket
        if ticket.ticket_id in shown.ended:
            return []  # its end was told: a "queued" from a slower replica is stale
        if ticket.status == pb.TICKET_STATUS_QUEUED:
            return [("queue_status", status)] if shown.differs("queue", status) else []
        shown.ended.add(ticket.ticket_id)
        shows: Shows = [("queue_status", status)]
        if ticket.status == pb.TICKET_STATUS_PAIRED and ticket.draft_id:
            shows.append(("match_found", await self._draft_found(ticket, shown.player_id)))
        return shows

    async def _draft_found(self, ticket: pb.Ticket, player_id: str) -> g.MatchFound:
        found = g.MatchFound(mode=ticket.mode, draft_id=ticket.draft_id)
        with contextlib.suppress(DomainError):  # the draft view only adds the name
            draft = await self._draft_view(ticket.draft_id, player_id)
            if draft is not None:
                found.opponent_name = draft.opponent_name
        return found


_ID_OF = {
    "trade_prompt": "trade_id",
    "draft": "draft_id",
    "table": "table_id",
    "challenge": "table_id",
    "listing": "listing_id",
}
"""The id that tells apart the messages of a push field shown side by side."""
