"""``triad-client play`` opening its session in a match in progress says so in RULES.md
5's words ("You have an active battle"); a session reopened on the same match (a token
refreshed, a gateway stopped) does not say it again, nor does a match the client has
just started (practice, join)."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.session import BATTLE_RESUMES, OPENING, RESUMED, Followed
from client.tests import views


def opened(match_id: str) -> g.OpenSessionResponse:
    view = views.view(hand=5)
    view.match_id = match_id
    return g.OpenSessionResponse(session_opened=g.SessionOpened(active_match=view))


def test_a_session_opened_in_a_match_says_you_have_an_active_battle_once() -> None:
    told = Followed(resuming=True)
    assert told.take(opened("m1"))
    assert told.note == RESUMED and "You have an active battle" in told.note
    told.note = ""
    assert told.take(opened("m1"))  # reopened on the same match: no news
    assert told.note == ""


def test_a_match_the_client_just_started_is_not_announced_as_resumed() -> None:
    told = Followed()
    assert told.take(opened("m1"))
    assert told.note == ""


def test_a_session_opened_with_no_match_says_nothing_of_one() -> None:
    told = Followed()
    assert told.take(g.OpenSessionResponse(session_opened=g.SessionOpened()))
    assert told.note == ""


def test_a_session_taken_by_another_terminal_says_how_to_take_it_back() -> None:
    """Found from outside: `watch` in a second terminal ended the match screen with
    "a newer session of yours was opened; this one ends", and nothing said how to get
    the match back."""
    told = Followed()
    closed = g.SessionClosed(
        reason=g.SESSION_CLOSE_REASON_REPLACED,
        message="a newer session of yours was opened; this one ends",
    )
    assert not told.take(g.OpenSessionResponse(session_closed=closed))
    assert told.note.endswith("play takes it back)"), told.note


def test_a_battle_that_ended_away_is_told_above_the_screen_not_as_its_note() -> None:
    """Found from outside: `triad-client play` said nothing of a battle the CPU had
    played out (and lost) after the player left; told as a match ended away is."""
    told = Followed()
    said = "Your battle against CPU ended while you were away: you lost, ..."
    notice = g.Notice(code="BATTLE_ENDED_AWAY", message=said, subject_id="b1")
    assert told.take(g.OpenSessionResponse(notice=notice))
    assert told.away == [said] and told.note == ""


def test_a_challenge_pushed_at_a_reopen_mid_match_leaves_the_match_screen_alone() -> None:
    """The session pushes every open challenge again when it opens; in a match (which
    accept must wait out) the resumed match keeps its note, and status lists them."""
    told = Followed(resuming=True)
    assert told.take(opened("m1"))
    challenge = pb.Table(table_id="30eb2069-x", host_name="ann", status=pb.TABLE_STATUS_OPEN)
    assert told.take(g.OpenSessionResponse(challenge=challenge))
    assert told.note == RESUMED


def test_the_match_found_is_not_told_again_under_the_result() -> None:
    """Found in review: after a Trade All, 'Match found: you play bea.' was printed last,
    under the cards moved, as if a new match had been found."""
    told = Followed()
    found = g.MatchFound(match_id="m1", opponent_name="bea")
    assert told.take(g.OpenSessionResponse(match_found=found))
    assert told.note == "Match found: you play bea."
    playing = views.view(hand=5)
    playing.match_id, playing.version = "m1", 2
    assert told.take(g.OpenSessionResponse(match_view=playing))
    assert told.note == "Match found: you play bea."  # said while the match runs
    finished = views.view(hand=0)
    finished.match_id, finished.version, finished.status = "m1", 9, pb.MATCH_STATUS_FINISHED
    assert told.take(g.OpenSessionResponse(match_view=finished))
    assert told.note == ""


def test_a_session_opened_in_a_battle_says_the_battle_resumes_not_no_match() -> None:
    """Found from outside: `play` said "No active match and no ticket" before showing
    the Skirmish battle the player was in."""
    told = Followed()
    assert told.waiting("") == OPENING
    battle = pb.BattleView(battle_id="b1", status=pb.BATTLE_STATUS_SELECTION)
    told.take(g.OpenSessionResponse(session_opened=g.SessionOpened(active_battle=battle)))
    assert told.waiting("") == BATTLE_RESUMES
