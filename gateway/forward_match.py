"""The public RPCs of a match, forwarded to the match service with the token's player:
the active match, a match's view, placing a card and forfeiting. The match service
decides whether the player is seated; the gateway never names another player."""

from __future__ import annotations

from typing import Any

from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from gateway.auth import caller
from gateway.forwarding import Downstreams, request_id
from services.platform.downstream import INTERNAL_DEADLINE, call
from services.platform.edge import require


class MatchRpcs(Downstreams):
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
        internal = m.MatchServicePlaceCardRequest(
            request_id=request_id(request.request_id),
            match_id=request.match_id,
            player_id=caller().player_id,
            card_id=request.card_id,
            cell=request.cell,
            lair=request.lair,  # Realm Triad (issue 20)
        )
        if request.HasField("expected_version"):
            internal.expected_version = request.expected_version
        reply = await call("match", self._match.PlaceCard(internal, timeout=INTERNAL_DEADLINE))
        return g.PlaceCardResponse(view=reply.view)

    async def Forfeit(self, request: g.ForfeitRequest, context: Any) -> g.ForfeitResponse:
        reply = await call(
            "match",
            self._match.Forfeit(
                m.MatchServiceForfeitRequest(
                    request_id=request_id(request.request_id),
                    match_id=request.match_id,
                    player_id=caller().player_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ForfeitResponse(view=reply.view)
