"""The public RPCs the rating service answers: the caller's rating, its history, and the
leaderboard with the caller's own entry. Read-only; always about the token's player."""

from __future__ import annotations

from typing import Any

from triad.v1 import gateway_pb2 as g
from triad.v1 import rating_pb2 as r

from gateway.auth import caller
from gateway.forwarding import Downstreams, answer, ask, forwarded, present

WHAT = "rating"


class RatingRpcs(Downstreams):
    async def GetRating(self, request: g.GetRatingRequest, context: Any) -> g.GetRatingResponse:
        reply = await ask(
            WHAT, self._rating_stub().GetRating, r.RatingServiceGetRatingRequest, request
        )
        if not reply.rating.player_name:
            # The rating service learns names from rated matches; a player who has not
            # played one yet is still themselves.
            reply.rating.player_name = caller().name
        return answer(g.GetRatingResponse, reply)

    ListRatingHistory = forwarded(WHAT, "ListRatingHistory", g.ListRatingHistoryResponse)

    async def GetLeaderboard(
        self, request: g.GetLeaderboardRequest, context: Any
    ) -> g.GetLeaderboardResponse:
        # The caller goes as player_id, for my_entry.
        reply = await ask(
            WHAT, self._rating_stub().GetLeaderboard, r.RatingServiceGetLeaderboardRequest, request
        )
        return answer(
            g.GetLeaderboardResponse,
            reply,
            my_entry=present(reply, "player_entry", reply.player_entry),
        )
