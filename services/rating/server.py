"""The RatingService gRPC edge: protobuf in, handlers, protobuf out. Nothing else.

Read-only: ratings change only by consuming MatchFinished (``consumers.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import rating_pb2 as r
from triad.v1 import rating_pb2_grpc

from services.platform.edge import bind, require, require_enum
from services.platform.errors import InvalidArgument
from services.rating import handlers, mapping
from services.rating.domain import LadderKey
from services.rating.handlers import Reader, Wakeups

FIRST_PAGE = 2**62  # "before the newest change": above any feed number


def _page_token(token: str) -> int:
    if not token:
        return FIRST_PAGE
    # isascii: str.isdigit also holds for "²", which int() refuses
    if not (token.isascii() and token.isdigit()) or not 0 < int(token) < FIRST_PAGE:
        raise InvalidArgument("page_token is not one this service handed out")
    return int(token)


class RatingServicer(rating_pb2_grpc.RatingServiceServicer):
    def __init__(self, reader: Reader, wakeups: Wakeups, current_season: int) -> None:
        self._reader = reader
        self._wakeups = wakeups
        self._season = current_season

    def _key(self, message: pb.LadderKey) -> LadderKey:
        require_enum(message.ladder, pb.Ladder.DESCRIPTOR, "ladder")
        key = mapping.ladder_key(message)
        assert key is not None  # every ladder but the unspecified one has a key
        return handlers.check_season(key, self._season)

    def _player_on(self, player_id: str, ladder: pb.LadderKey) -> tuple[str, LadderKey]:
        """The request's player (bound to its log lines) and the ladder it asks about."""
        bind(player_id=player_id)
        return require(player_id, "player_id"), self._key(ladder)

    async def GetRating(
        self, request: r.RatingServiceGetRatingRequest, context: Any
    ) -> r.RatingServiceGetRatingResponse:
        player, key = self._player_on(request.player_id, request.ladder)
        rating = await handlers.get_rating(self._reader, player, key)
        return r.RatingServiceGetRatingResponse(rating=mapping.player_rating(rating, key))

    async def BatchGetRatings(
        self, request: r.RatingServiceBatchGetRatingsRequest, context: Any
    ) -> r.RatingServiceBatchGetRatingsResponse:
        key = self._key(request.ladder)
        players = [require(p, "player_ids") for p in request.player_ids]
        ratings = await handlers.get_ratings(self._reader, players, key)
        return r.RatingServiceBatchGetRatingsResponse(
            ratings=[mapping.player_rating(rating, key) for rating in ratings]
        )

    async def ListRatingHistory(
        self, request: r.RatingServiceListRatingHistoryRequest, context: Any
    ) -> r.RatingServiceListRatingHistoryResponse:
        player, key = self._player_on(request.player_id, request.ladder)
        before = _page_token(request.page_token)
        page = await handlers.history(self._reader, player, key, request.page_size, before)
        return r.RatingServiceListRatingHistoryResponse(
            changes=[mapping.rating_change(c) for c in page.changes],
            next_page_token=str(page.next_before) if page.next_before else "",
        )

    async def GetLeaderboard(
        self, request: r.RatingServiceGetLeaderboardRequest, context: Any
    ) -> r.RatingServiceGetLeaderboardResponse:
        bind(player_id=request.player_id)
        key = self._key(request.ladder)
        player = require(request.player_id, "player_id") if request.player_id else ""
        board = await handlers.leaderboard(self._reader, key, request.top_n, player)
        return r.RatingServiceGetLeaderboardResponse(
            entries=[mapping.leaderboard_entry(e) for e in board.top],
            player_entry=None if board.player is None else mapping.leaderboard_entry(board.player),
            ranked_player_count=board.ranked_players,
        )

    async def GetRank(
        self, request: r.RatingServiceGetRankRequest, context: Any
    ) -> r.RatingServiceGetRankResponse:
        player, key = self._player_on(request.player_id, request.ladder)
        found = await handlers.get_rank(self._reader, player, key)
        return r.RatingServiceGetRankResponse(
            rank=found.rank, ranked_player_count=found.ranked_players
        )

    async def WatchRatings(
        self, request: r.RatingServiceWatchRatingsRequest, context: Any
    ) -> AsyncIterator[r.RatingServiceWatchRatingsResponse]:
        bind(player_id=request.player_id)
        player = require(request.player_id, "player_id")
        async for change in handlers.watch(self._reader, self._wakeups, player):
            yield r.RatingServiceWatchRatingsResponse(change=mapping.rating_change(change))


def register(server: grpc.aio.Server, servicer: RatingServicer) -> None:
    rating_pb2_grpc.add_RatingServiceServicer_to_server(servicer, server)


SERVICE_NAME = r.DESCRIPTOR.services_by_name["RatingService"].full_name
