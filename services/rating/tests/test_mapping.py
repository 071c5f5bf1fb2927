"""MatchFinished and DraftForfeited as the ladders read them: seats, the result, the ladder."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from uuid import uuid4

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.rating import codec, domain, mapping
from services.rating.domain import DRAW, LOSS, WIN, Contestant, Ladder, LadderKey, Unrated
from services.rating.read_models import LoggedChange
from services.rating.tests.builders import DRAFT, bot, game, human, match_finished


def test_a_match_finished_reads_back_as_the_game_it_came_from() -> None:
    for g in (
        game("m1", "ann", "bea", WIN),
        game("m2", "ann", "bea", LOSS, key=DRAFT),
        game("m3", "ann", bot("bot-1"), DRAW),
        game("m4", "ann", "bea", rated=False, key=None),
    ):
        back = codec.finished_game(match_finished(g))
        assert back == g.__class__(g.match_id, g.rated, g.seats, g.score_a, g.ladder, Ladder.RANKED)


def test_a_forfeit_is_a_loss_for_the_seat_that_forfeited() -> None:
    winner = pb.MatchOutcome(reason=pb.FINISH_REASON_FORFEIT, forfeiting_seat=pb.SEAT_A)
    winner.winner_seat = pb.SEAT_B
    assert codec.score_a(winner) == LOSS
    # A forfeit recorded without its winner still has one: the other seat.
    bare = pb.MatchOutcome(reason=pb.FINISH_REASON_DISCONNECT, forfeiting_seat=pb.SEAT_B)
    assert codec.score_a(bare) == WIN
    assert codec.score_a(pb.MatchOutcome(reason=pb.FINISH_REASON_BOARD_FULL)) is None


def test_a_rated_match_without_a_ladder_counts_for_its_modes_ladder() -> None:
    message = match_finished(game("m1", "ann", "bea", key=None), mode=pb.MODE_DRAFT)
    g = codec.finished_game(message)
    assert g.ladder is None and g.mode_ladder is Ladder.DRAFT
    unranked = codec.finished_game(match_finished(game("m1", "a", "b"), mode=pb.MODE_UNRANKED))
    assert unranked.mode_ladder is None
    assert mapping.ladder_key(pb.LadderKey(ladder=pb.LADDER_DRAFT, season=3)) == LadderKey(
        Ladder.DRAFT, 3
    )
    assert mapping.ladder_key(pb.LadderKey()) is None


def test_a_match_finished_without_two_seats_has_no_result() -> None:
    g = codec.finished_game(ev.MatchFinished(match_id="m1", rated=True))
    assert g.score_a is None


def forfeited(forfeiting: list[str], winner: str, seats: bool = True) -> ev.DraftForfeited:
    return ev.DraftForfeited(
        draft_id="d1",
        ladder=pb.LadderKey(ladder=pb.LADDER_DRAFT, season=0),
        forfeiting_player_ids=forfeiting,
        winner_player_id=winner,
        players=[pb.PlayerRef(player_id=p, player_name=f"name-{p}") for p in ("ann", "bea")]
        if seats
        else [],
    )


def test_a_draft_forfeited_by_one_participant_is_their_loss_on_the_draft_ladder() -> None:
    g = codec.forfeited_draft(forfeited(["ann"], "bea"))
    assert (g.match_id, g.draft_id, g.rated, g.ladder) == ("", "d1", True, DRAFT)
    assert g.seats == (human("ann"), human("bea")) and g.score_a == LOSS
    assert codec.forfeited_draft(forfeited(["bea"], "ann")).score_a == WIN
    assert domain.why_unrated(g, 0) is None
    # Both idle: nobody wins, nothing to rate.
    both = codec.forfeited_draft(forfeited(["ann", "bea"], ""))
    assert domain.why_unrated(both, 0) is Unrated.NO_RESULT
    # Recorded before the event named the participants: the winner and the forfeiter.
    old = codec.forfeited_draft(forfeited(["ann"], "bea", seats=False))
    assert old.seats == (Contestant("bea", ""), Contestant("ann", "")) and old.score_a == WIN


def test_a_draft_match_names_its_draft_and_only_a_forfeits_change_shows_it() -> None:
    message = match_finished(game("m1", "ann", "bea", key=DRAFT), mode=pb.MODE_DRAFT)
    message.origin_id = "d1"
    assert codec.finished_game(message).draft_id == "d1"
    message.mode = pb.MODE_RANKED
    assert codec.finished_game(message).draft_id == ""
    change = LoggedChange(
        1, 1, DRAFT, "", "ann", uuid4(), "bea", "Bea", 1500, 1480, 40, 0.5, 0.0, 1500, 1,
        datetime.now(UTC), draft_id="d1",
    )  # fmt: skip
    shown = mapping.rating_change(change)
    assert (shown.match_id, shown.draft_id, shown.delta) == ("", "d1", -20)
    assert mapping.rating_change(replace(change, match_id="m1")).draft_id == ""
