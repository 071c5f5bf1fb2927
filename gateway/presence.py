"""Where a player is: each session's opening and end told to the match and battle
services (their timers decide what being away costs), and the sessions of a gateway that
died without telling.

A killed gateway runs no ``finally``: its sessions never report their end, and its
players would count as connected for ever (no disconnect grace, no CPU takeover in a
battle, whatever RULES.md 5 and BATTLE.md 5 say). So every gateway says it lives
(``GatewayStore.beat``, a row per gateway every ``TRIAD_GATEWAY_SWEEP_SECONDS``), and
each looks for sessions held by a gateway not seen for ``TRIAD_GATEWAY_DEAD_SECONDS``
(60 s: six missed beats, so that a gateway merely slow never has its players counted
away). Their players are reported disconnected as of then, once: the sessions row is
given up as it is read. A query pair per gateway per sweep, nothing per session.

A session that opens is told what ended while its player had none open (``Missed``:
the match and the battle services each keep theirs, and hand it to one report only),
as ``SessionOpened.missed_match`` and ``missed_battle`` (:meth:`PresenceReports._missed`).

A session that ends with its access token (TOKEN_EXPIRED) or with this gateway
(SERVER_SHUTDOWN) is reported away :data:`REOPEN_SECONDS` later (``Departures``):
gateway.proto asks the client to reopen at once (refreshed; on any gateway), and the new
session, reported connected meanwhile, is newer, so the late report changes nothing.
Otherwise the opponent would read "lost their connection" and "connected again" every
token lifetime (15 minutes), and at every rolling restart, about a player who never
left. A player who does not come back has their grace start those seconds late.

A session that ends otherwise (the client closed, killed, or its connection lost) and is
not followed by another of its player's, on any gateway, within
``TRIAD_QUEUE_AWAY_SECONDS`` (15 s) leaves what waits for the player to be there: the
queued ticket is cancelled and the open table they host closed, as Logout does
(``_gone``). Found from outside: a browser tab closed, or a terminal client killed,
while queued for Ranked stayed queued, was paired, and lost the match, its rating and a
card by the disconnection forfeit (RULES.md 5), the opponent waiting two minutes for it.
A ticket or table made after the session ended (a one-shot ``triad-client enqueue``
needs no session) is left alone. A check still waiting when its gateway stops is
dropped: the player's ticket then waits as before.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

import structlog
from triad.v1 import battle_pb2 as b
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from gateway.notices import missed_is_news
from gateway.status import PlayerStatusReads, or_else
from gateway.store import GatewayStore
from services.platform.downstream import INTERNAL_DEADLINE
from services.wire import timestamp

log = structlog.get_logger(__name__)

HELD_TRIES = 120
HELD_RETRY_CEILING = 5.0
"""A held report that fails (a server out of reach) is tried again, each wait half a
second longer up to this, ``HELD_TRIES`` times in all: about nine minutes."""

REOPEN_SECONDS = 5.0
"""How long a session ended by its token's expiry has to be reopened before its player is
reported away."""


@dataclass(frozen=True, slots=True)
class Missed:
    """What finished while the player had no session open, as a connected report was
    told it: a match, a Skirmish battle ("" if none)."""

    match_id: str = ""
    battle_id: str = ""


NOTHING_MISSED = Missed()


class Departures:
    """Away reports held back a few seconds, each its own task until sent; ``finish``
    waits for those still held (at the gateway's stop, so that none is lost and the
    players it moved to other gateways have their seconds to reopen there)."""

    def __init__(self, seconds: float = REOPEN_SECONDS, retry: float = 0.5) -> None:
        self.seconds, self.retry = seconds, retry
        self._waiting: set[asyncio.Task[None]] = set()

    def later(self, report: Callable[[], Awaitable[object]]) -> None:
        task = asyncio.get_running_loop().create_task(self._after(report))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _after(self, report: Callable[[], Awaitable[object]]) -> None:
        """``report`` after the held seconds, tried again until it is made: found from
        outside, with PostgreSQL away for a moment the check that a player left was
        dropped ("Task exception was never retrieved"), and their ticket stayed queued
        for good. A held report that keeps failing is given up after ``HELD_TRIES``."""
        await asyncio.sleep(self.seconds)
        for attempt in range(1, HELD_TRIES + 1):
            try:
                await report()
                return
            except Exception as error:
                if attempt == 1:
                    log.warning("a held presence report failed; retrying", error=repr(error))
                if attempt == HELD_TRIES:
                    log.error("a held presence report given up", error=repr(error))
                    return
            await asyncio.sleep(min(HELD_RETRY_CEILING, self.retry * attempt))

    async def finish(self) -> None:
        await asyncio.gather(*self._waiting, return_exceptions=True)

    async def drop(self) -> None:
        """Give up those still held (their time not come)."""
        for task in self._waiting:
            task.cancel()
        await self.finish()


class PresenceReports(PlayerStatusReads):
    _store: GatewayStore
    _clock: Callable[[], datetime]
    departures: Departures
    away: Departures
    """The checks, ``TRIAD_QUEUE_AWAY_SECONDS`` after a session ended for good, that its
    player came back (``_gone``)."""

    async def _ended(
        self, player_id: str, session_id: str, opened_at: datetime, back_soon: bool
    ) -> None:
        """A session ended: its player is away from now (the match's grace starts), or,
        when its client reopens at once (its token expired, or this gateway stops), from
        a few seconds on (``Departures``). Meanwhile the match and battle services know
        the session ended (LEAVING), so that a match or battle ending in those seconds is
        told to the next session as missed."""
        report = partial(self._presence, player_id, session_id, opened_at, False)
        if back_soon:
            await self._leaving(player_id, session_id, opened_at)  # (again: idempotent)
            self.departures.later(report)
        else:
            await report()
            self.away.later(partial(self._gone, player_id, session_id, self._clock()))

    async def _gone(self, player_id: str, session_id: str, ended_at: datetime) -> None:
        """The session ended at ``ended_at`` and none of its player's has opened since
        (the sessions table holds each player's latest, whichever gateway holds it): what
        waits for the player, made before then, is given up."""
        if await self._store.current_session(player_id) != session_id:
            return  # back meanwhile, here or on another gateway
        log.info("a player gone leaves the queue", player_id=player_id)
        await self._leave_waiting(player_id, f"away:{session_id}", made_before=ended_at)

    async def _leaving(self, player_id: str, session_id: str, opened_at: datetime) -> None:
        """Told before the client hears its session end, so that no match can end
        between the two unrecorded as missed."""
        await self._presence(player_id, session_id, opened_at, False, leaving=True)

    async def _presence(
        self,
        player_id: str,
        session_id: str,
        opened_at: datetime,
        connected: bool,
        *,
        leaving: bool = False,
    ) -> Missed:
        """Tell the match service, and the battle service (Skirmish: 30 s away and the
        CPU plays the seat), at once; best effort: their timers decide. Connected: the
        match and the battle that finished while the player was away, as each service
        said."""
        state = m.PRESENCE_STATE_CONNECTED if connected else m.PRESENCE_STATE_DISCONNECTED
        state = m.PRESENCE_STATE_LEAVING if leaving else state
        reports: list[Awaitable[object]] = [
            self._match.ReportPresence(
                m.MatchServiceReportPresenceRequest(
                    request_id=uuid.uuid4().hex,
                    player_id=player_id,
                    session_id=session_id,
                    state=state,
                    open_time=timestamp(opened_at),
                ),
                timeout=INTERNAL_DEADLINE,
            )
        ]
        if self._battle is not None:
            reports.append(
                self._battle.ReportPresence(
                    b.BattleServiceReportPresenceRequest(
                        request_id=uuid.uuid4().hex,
                        player_id=player_id,
                        session_id=session_id,
                        connected=connected,
                        leaving=leaving,
                        open_time=timestamp(opened_at),
                    ),
                    timeout=INTERNAL_DEADLINE,
                )
            )
        answer, *battle = await asyncio.gather(*reports, return_exceptions=True)
        match_id = (
            answer.missed_match_id
            if isinstance(answer, m.MatchServiceReportPresenceResponse)
            else ""
        )
        battle_id = next(
            (
                a.missed_battle_id
                for a in battle
                if isinstance(a, b.BattleServiceReportPresenceResponse)
            ),
            "",
        )
        return Missed(match_id, battle_id)

    async def _missed(self, opened: g.SessionOpened, player_id: str, missed: Missed) -> None:
        """The final views of what ``missed`` names, as the player sees them, into the
        session's opening (its notices follow: ``notices.away_notices``); each left out
        when its service does not answer."""
        if missed.match_id:
            ended = await or_else(self._view(missed.match_id, player_id), None)
            if ended is not None and missed_is_news(ended):
                opened.missed_match.CopyFrom(ended)
        if missed.battle_id:
            battle = await or_else(self._battle_view_for(missed.battle_id, player_id), None)
            if battle is not None and missed_is_news(battle):
                opened.missed_battle.CopyFrom(battle)

    async def sweep(self, dead_after: timedelta) -> bool:
        """Say this gateway lives, and report away the players of gateways not seen for
        ``dead_after``; False: the loop rests until its next sweep."""
        now = self._clock()
        await self._store.beat(now)
        orphans = await self._store.orphaned(now - dead_after)
        for held in orphans:
            log.info("session of a dead gateway ended", player_id=held.player_id)
            await self._presence(held.player_id, held.session_id, held.opened_at, False)
            await self._gone(held.player_id, held.session_id, now - dead_after)
        return False
