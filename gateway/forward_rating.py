"""The public RPCs the rating service answers: the caller's rating, its history, and the
leaderboard with the caller's own entry. Read-only; always about the token's player."""

from __future__ import annotations

from typing import Any

from triad.v1 import gateway_pb2 as g
from triad.v1 import rating_pb2 as r

from gateway.auth import caller
from gateway.forwarding import Downstreams, page_size, present
from services.platform.downstream import INTERNAL_DEADLINE, call

WHAT = "rating"


class RatingRpcs(Downstreams):
    async def GetRating(self, request: g.GetRatingRequest, context: Any) -> g.GetRatingResponse:
        me = caller()
        reply = await call(
            WHAT,
            self._rating_stub().GetRating(
                r.RatingServiceGetRatingRequest(
                    player_id=me.player_id, ladder=present(request, "ladder", request.ladder)
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        rating = reply.rating
        if not rating.player_name:
            # The rating service learns names from rated matches; a player who has not
            # played one yet is still themselves.
            rating.player_name = me.name
        return g.GetRatingResponse(rating=rating)

    async def ListRatingHistory(
        self, request: g.ListRatingHistoryRequest, context: Any
    ) -> g.ListRatingHistoryResponse:
        reply = await call(
            WHAT,
            self._rating_stub().ListRatingHistory(
                r.RatingServiceListRatingHistoryRequest(
                    player_id=caller().player_id,
                    ladder=present(request, "ladder", request.ladder),
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListRatingHistoryResponse(
            changes=reply.changes, next_page_token=reply.next_page_token
        )

    async def GetLeaderboard(
        self, request: g.GetLeaderboardRequest, context: Any
    ) -> g.GetLeaderboardResponse:
        reply = await call(
            WHAT,
            self._rating_stub().GetLeaderboard(
                r.RatingServiceGetLeaderboardRequest(
                    ladder=present(request, "ladder", request.ladder),
                    top_n=request.top_n,
                    player_id=caller().player_id,  # for my_entry
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetLeaderboardResponse(
            entries=reply.entries,
            my_entry=present(reply, "player_entry", reply.player_entry),
            ranked_player_count=reply.ranked_player_count,
        )
