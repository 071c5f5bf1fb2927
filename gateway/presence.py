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
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

import structlog
from triad.v1 import battle_pb2 as b
from triad.v1 import match_pb2 as m

from gateway.forwarding import Downstreams
from gateway.store import GatewayStore
from services.platform.downstream import INTERNAL_DEADLINE
from services.wire import timestamp

log = structlog.get_logger(__name__)


class PresenceReports(Downstreams):
    _store: GatewayStore
    _clock: Callable[[], datetime]

    async def _presence(
        self, player_id: str, session_id: str, opened_at: datetime, connected: bool
    ) -> None:
        """Tell the match service, and the battle service (Skirmish: 30 s away and the
        CPU plays the seat), at once; best effort: their timers decide."""
        state = m.PRESENCE_STATE_CONNECTED if connected else m.PRESENCE_STATE_DISCONNECTED
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
                        open_time=timestamp(opened_at),
                    ),
                    timeout=INTERNAL_DEADLINE,
                )
            )
        await asyncio.gather(*reports, return_exceptions=True)

    async def sweep(self, dead_after: timedelta) -> bool:
        """Say this gateway lives, and report away the players of gateways not seen for
        ``dead_after``; False: the loop rests until its next sweep."""
        now = self._clock()
        await self._store.beat(now)
        orphans = await self._store.orphaned(now - dead_after)
        for held in orphans:
            log.info("session of a dead gateway ended", player_id=held.player_id)
            await self._presence(held.player_id, held.session_id, held.opened_at, False)
        return False
