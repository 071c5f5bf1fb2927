"""The public RPCs of a match, forwarded to the match service with the token's player:
the active match, a match's view, placing a card and forfeiting. The match service
decides whether the player is seated; the gateway never names another player."""

from __future__ import annotations

from typing import Any

from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from gateway.auth import caller
from gateway.forwarding import Downstreams, answer, ask, forwarded
from gateway.pushes import ANSWERED, RESYNC, Push, PushHub
from services.platform.edge import require
from services.platform.errors import DomainError, Unavailable

WHAT = "match"


class MatchRpcs(Downstreams):
    _hub: PushHub

    async def GetActiveMatch(
        self, request: g.GetActiveMatchRequest, context: Any
    ) -> g.GetActiveMatchResponse:
        me = caller()
        match_id = await self._active_match_id(me.player_id)
        if match_id is None:
            return g.GetActiveMatchResponse()
        return g.GetActiveMatchResponse(view=await self._view(match_id, me.player_id))

    async def GetMatchView(
        self, request: g.GetMatchViewRequest, context: Any
    ) -> g.GetMatchViewResponse:
        match_id = require(request.match_id, "match_id")
        return g.GetMatchViewResponse(view=await self._view(match_id, caller().player_id))

    async def PlaceCard(self, request: g.PlaceCardRequest, context: Any) -> g.PlaceCardResponse:
        """Forwarded field for field (expected_version only when given; lair is Realm
        Triad's, issue 20). When the request names a session of the caller held here,
        the reply's view is the placer's only copy: the match service does not publish
        it, and the session is told it (``ANSWERED``) to show what it changes without
        sending it again. Should the call fail otherwise than by a refusal (the service
        unreachable, the deadline passed), the placement may still have been made: that
        session reads the player's state again (``RESYNC``)."""
        me = caller()
        session = request.session_id if self._hub.holds(me.player_id, request.session_id) else ""
        kind = m.MatchServicePlaceCardRequest
        place = self._stub(WHAT).PlaceCard
        try:
            reply = await ask(WHAT, place, kind, request, placer_view_in_reply=bool(session))
        except BaseException as error:
            refused = isinstance(error, DomainError) and not isinstance(error, Unavailable)
            if session and not refused:  # a refusal places nothing; anything else may have
                self._hub.tell(session, Push(RESYNC, None))
            raise
        response = answer(g.PlaceCardResponse, reply)
        if session:
            self._hub.tell(session, Push(ANSWERED, response.view))
        return response

    Forfeit = forwarded(WHAT, "Forfeit", g.ForfeitResponse)
