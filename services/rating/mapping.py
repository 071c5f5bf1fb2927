"""Protobuf <-> rating domain, at the edge: MatchFinished and DraftForfeited in, ratings
and changes out."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.rating.domain import DRAW, LOSS, WIN, Contestant, FinishedGame, Ladder, LadderKey
from services.rating.handlers import Rating
from services.rating.read_models import LoggedChange
from services.wire import timestamp

MATCH_FINISHED = "triad.v1.MatchFinished"
DRAFT_FORFEITED = "triad.v1.DraftForfeited"
BOT_PREFIX = "bot-"
"""A bot's player id starts with this (common.proto PlayerRef)."""

LADDERS: dict[Ladder, pb.Ladder.ValueType] = {
    Ladder.RANKED: pb.LADDER_RANKED,
    Ladder.DRAFT: pb.LADDER_DRAFT,
}
LADDERS_BACK = {v: k for k, v in LADDERS.items()}
MODE_LADDERS: dict[pb.Mode.ValueType, Ladder] = {
    pb.MODE_RANKED: Ladder.RANKED,
    pb.MODE_DRAFT: Ladder.DRAFT,
}
OTHER_SEAT = {pb.SEAT_A: pb.SEAT_B, pb.SEAT_B: pb.SEAT_A}


def ladder_key(message: pb.LadderKey) -> LadderKey | None:
    """None for an unspecified (or unknown) ladder."""
    ladder = LADDERS_BACK.get(message.ladder)
    return None if ladder is None else LadderKey(ladder, message.season)


def ladder_key_message(key: LadderKey) -> pb.LadderKey:
    return pb.LadderKey(ladder=LADDERS[key.ladder], season=key.season)


def score_a(outcome: pb.MatchOutcome) -> float | None:
    """Seat A's score: a winner, a draw, or (a forfeit recorded without a winner) the
    other seat of the one that forfeited; None when the outcome names none of these."""
    result = outcome.WhichOneof("result")
    if result == "draw":
        return DRAW
    winner = outcome.winner_seat if result == "winner_seat" else pb.SEAT_UNSPECIFIED
    if winner == pb.SEAT_UNSPECIFIED:
        winner = OTHER_SEAT.get(outcome.forfeiting_seat, pb.SEAT_UNSPECIFIED)
    if winner == pb.SEAT_A:
        return WIN
    if winner == pb.SEAT_B:
        return LOSS
    return None


def finished_game(message: ev.MatchFinished) -> FinishedGame:
    """The ladders' view of a MatchFinished. Seats come seat A first; a malformed event
    (not two seats) is treated as a game with no result, never rated."""
    seats = [
        Contestant(s.player.player_id, s.player.player_name, s.player.is_bot) for s in message.seats
    ]
    two = len(seats) == 2
    return FinishedGame(
        match_id=message.match_id,
        rated=message.rated,
        seats=(seats[0], seats[1]) if two else (Contestant("", ""), Contestant("", "")),
        score_a=score_a(message.outcome) if two else None,
        ladder=ladder_key(message.ladder) if message.HasField("ladder") else None,
        mode_ladder=MODE_LADDERS.get(message.mode),
        draft_id=message.origin_id if message.mode == pb.MODE_DRAFT else "",
    )


def forfeited_draft(message: ev.DraftForfeited) -> FinishedGame:
    """The ladders' view of a draft forfeited before its match (RULES.md 10): the one
    participant who forfeited loses to the other. Both forfeited, or no winner named:
    no result. An event from before it carried the participants gives the winner and
    the forfeiter, seat order unknown and names empty (the names known are kept)."""
    forfeiting = list(message.forfeiting_player_ids)
    winner = message.winner_player_id
    seats = [
        Contestant(p.player_id, p.player_name, p.player_id.startswith(BOT_PREFIX))
        for p in message.players
    ]
    if len(seats) != 2 and len(forfeiting) == 1 and winner:
        seats = [Contestant(i, "", i.startswith(BOT_PREFIX)) for i in (winner, forfeiting[0])]
    two = len(seats) == 2
    ids = [s.player_id for s in seats]
    score: float | None = None
    if (
        two
        and len(forfeiting) == 1
        and winner != forfeiting[0]
        and {winner, forfeiting[0]} == set(ids)
    ):
        score = LOSS if forfeiting[0] == ids[0] else WIN
    return FinishedGame(
        match_id="",
        rated=True,
        seats=(seats[0], seats[1]) if two else (Contestant("", ""), Contestant("", "")),
        score_a=score,
        ladder=ladder_key(message.ladder) if message.HasField("ladder") else None,
        mode_ladder=Ladder.DRAFT,
        draft_id=message.draft_id,
    )


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
