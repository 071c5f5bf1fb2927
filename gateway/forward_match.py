"""The public RPCs of a match, forwarded to the match service with the token's player:
the active match, a match's view, placing a card and forfeiting. The match service
decides whether the player is seated; the gateway never names another player."""

from __future__ import annotations

from typing import Any

from triad.v1 import gateway_pb2 as g

from gateway.auth import caller
from gateway.forwarding import Downstreams, forwarded
from services.platform.edge import require

WHAT = "match"


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

    # expected_version goes only when given; lair is Realm Triad's (issue 20).
    PlaceCard = forwarded(WHAT, "PlaceCard", g.PlaceCardResponse)
    Forfeit = forwarded(WHAT, "Forfeit", g.ForfeitResponse)
