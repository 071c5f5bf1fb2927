"""MatchFinished as the ladders read it: seats, the result, the ladder."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.rating import mapping
from services.rating.domain import DRAW, LOSS, WIN, Ladder, LadderKey
from services.rating.tests.builders import DRAFT, bot, game, match_finished


def test_a_match_finished_reads_back_as_the_game_it_came_from() -> None:
    for g in (
        game("m1", "ann", "bea", WIN),
        game("m2", "ann", "bea", LOSS, key=DRAFT),
        game("m3", "ann", bot("bot-1"), DRAW),
        game("m4", "ann", "bea", rated=False, key=None),
    ):
        back = mapping.finished_game(match_finished(g))
        assert back == g.__class__(g.match_id, g.rated, g.seats, g.score_a, g.ladder, Ladder.RANKED)


def test_a_forfeit_is_a_loss_for_the_seat_that_forfeited() -> None:
    winner = pb.MatchOutcome(reason=pb.FINISH_REASON_FORFEIT, forfeiting_seat=pb.SEAT_A)
    winner.winner_seat = pb.SEAT_B
    assert mapping.score_a(winner) == LOSS
    # A forfeit recorded without its winner still has one: the other seat.
    bare = pb.MatchOutcome(reason=pb.FINISH_REASON_DISCONNECT, forfeiting_seat=pb.SEAT_B)
    assert mapping.score_a(bare) == WIN
    assert mapping.score_a(pb.MatchOutcome(reason=pb.FINISH_REASON_BOARD_FULL)) is None


def test_a_rated_match_without_a_ladder_counts_for_its_modes_ladder() -> None:
    message = match_finished(game("m1", "ann", "bea", key=None), mode=pb.MODE_DRAFT)
    g = mapping.finished_game(message)
    assert g.ladder is None and g.mode_ladder is Ladder.DRAFT
    unranked = mapping.finished_game(match_finished(game("m1", "a", "b"), mode=pb.MODE_UNRANKED))
    assert unranked.mode_ladder is None
    assert mapping.ladder_key(pb.LadderKey(ladder=pb.LADDER_DRAFT, season=3)) == LadderKey(
        Ladder.DRAFT, 3
    )
    assert mapping.ladder_key(pb.LadderKey()) is None


def test_a_match_finished_without_two_seats_has_no_result() -> None:
    g = mapping.finished_game(ev.MatchFinished(match_id="m1", rated=True))
    assert g.score_a is None
