"""Protobuf <-> rating domain at the edges: ladder keys in, ratings, leaderboard
entries and changes out (on gRPC, and each change pushed to its player: ``ChangePushes``
over the platform's player pushes). Consumed event bytes are read in ``codec.py``."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from services.platform.pushes import PlayerPushes
from services.rating.domain import Ladder, LadderKey
from services.rating.handlers import Rating
from services.rating.read_models import LoggedChange
from services.wire import timestamp

LADDERS: dict[Ladder, pb.Ladder.ValueType] = {
    Ladder.RANKED: pb.LADDER_RANKED,
    Ladder.DRAFT: pb.LADDER_DRAFT,
}
LADDERS_BACK = {v: k for k, v in LADDERS.items()}


def ladder_key(message: pb.LadderKey) -> LadderKey | None:
    """None for an unspecified (or unknown) ladder."""
    ladder = LADDERS_BACK.get(message.ladder)
    return None if ladder is None else LadderKey(ladder, message.season)


def ladder_key_message(key: LadderKey) -> pb.LadderKey:
    return pb.LadderKey(ladder=LADDERS[key.ladder], season=key.season)


def player_rating(rating: Rating, key: LadderKey) -> pb.PlayerRating:
    entry, standing = rating.entry, rating.entry.standing
    return pb.PlayerRating(
        ladder=ladder_key_message(key),
        player_id=entry.player_id,
        player_name=entry.name,
        rating=standing.rating,
        games=standing.games,
        wins=standing.wins,
        losses=standing.losses,
        draws=standing.draws,
        provisional=standing.provisional,
        rank=rating.rank,
        update_time=timestamp(entry.updated_at),
    )


def leaderboard_entry(rating: Rating) -> pb.LeaderboardEntry:
    standing = rating.entry.standing
    return pb.LeaderboardEntry(
        rank=rating.rank,
        player_name=rating.entry.name,
        rating=standing.rating,
        games=standing.games,
        provisional=standing.provisional,
    )


def rating_change(change: LoggedChange) -> pb.RatingChange:
    return pb.RatingChange(
        ladder=ladder_key_message(change.key),
        match_id=change.match_id,
        # The contract: draft_id names a draft forfeited before its match, the result
        # rated; a Draft match's change names its match only.
        draft_id="" if change.match_id else change.draft_id,
        rating_before=change.rating_before,
        rating_after=change.rating_after,
        delta=change.delta,
        k_factor=change.k,
        expected_score=change.expected,
        actual_score=change.actual,
        opponent_name=change.opponent_name,
        opponent_rating_before=change.opponent_rating_before,
        games_after=change.games_after,
        change_time=timestamp(change.applied_at),
    )


RATING_CHANGE = "rating_change"
"""The session push a change travels as (``OpenSessionResponse.push``)."""


class ChangePushes:
    """``handlers.ChangePushes`` on player pushes: the very RatingChange WatchRatings
    streams, on the player's ``rating_change`` subject."""

    def __init__(self, pushes: PlayerPushes) -> None:
        self._pushes = pushes

    async def rating_changed(self, change: LoggedChange) -> None:
        await self._pushes.send(change.player_id, RATING_CHANGE, rating_change(change))
