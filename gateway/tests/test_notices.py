"""The presence notices a session tells of its match (gateway/notices.py), from the
views it shows in turn: 'connected again' only after that player was seen connected,
then lost. A guest who joins a host's table has no session yet (the client opens one
once it joined): the host was told 'bea is connected again.' at the match's start."""

from __future__ import annotations

from datetime import UTC, datetime

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from gateway.notices import away_notices, missed_is_news, missed_notice, trade_notices
from gateway.presence import Missed
from gateway.pushes import Push
from gateway.shown import Shown
from gateway.tests.forwarding_stand_ins import Backend


def view(version: int, bea_connected: bool) -> pb.MatchView:
    """Ann's view (seat A) of her match against Bea."""
    return pb.MatchView(
        match_id="m1",
        version=version,
        status=pb.MATCH_STATUS_IN_PROGRESS,
        my_seat=pb.SEAT_A,
        players=[
            pb.MatchPlayerView(seat=pb.SEAT_A, player_name="ann", connected=True),
            pb.MatchPlayerView(seat=pb.SEAT_B, player_name="bea", connected=bea_connected),
        ],
    )


async def test_connected_again_is_told_after_a_disconnect_not_after_the_first_connect() -> None:
    servicer = Backend().servicer()
    shown = Shown("ann-id", "s1", datetime.now(UTC))

    async def told(version: int, bea_connected: bool) -> list[str]:
        shows = await servicer._show(shown, Push("match_view", view(version, bea_connected)))
        return [n.code for name, n in shows if name == "notice" and isinstance(n, g.Notice)]

    assert await told(1, False) == []  # the match starts: Bea joined, no session yet
    assert await told(2, True) == [], "Bea's first connection is no reconnection"
    assert await told(3, False) == ["OPPONENT_DISCONNECTED"]
    assert await told(4, True) == ["OPPONENT_RECONNECTED"]


def test_a_difference_picked_by_the_server_names_every_card_it_took() -> None:
    """Found from outside: the notice named the first of the cards the server took for
    a winner of Trade Difference who did not choose in time."""
    offered = [
        pb.OwnedCopy(copy_id=f"c{i}", character=pb.Character(name=name))
        for i, name in enumerate(("Reedling", "Chime Beetle", "Snibbet"))
    ]
    result = pb.Trade(
        trade_id="t1",
        loser_name="bea",
        my_role=pb.TRADE_ROLE_CHOOSER,
        auto_picked=True,
        trade_rule=pb.TRADE_RULE_DIFFERENCE,
        offered_copies=offered,
        chosen_copy_id="c0",
        chosen_copy_ids=["c0", "c2"],
    )
    [notice] = trade_notices(result)
    assert notice.message == (
        "You did not choose in time: the server picked Reedling, Snibbet from bea's cards for you."
    )


def _ended_away(reason: str, winner: int) -> str:
    view = pb.BattleView(
        battle_id="b1",
        seat=0,
        opponent=pb.BattleTeamView(seat=1, name="Bea"),
        outcome=pb.BattleOutcome(winner_seat=winner, reason=reason),
    )
    (notice,) = away_notices(g.SessionOpened(missed_battle=view))
    assert (notice.code, notice.subject_id) == ("BATTLE_ENDED_AWAY", "b1")
    return notice.message


def test_a_battle_ended_away_says_who_won_and_how_in_the_players_words() -> None:
    said = "Your battle against Bea ended while you were away: "
    assert _ended_away("disconnect", 1) == (
        f"{said}you lost, the CPU played your side after you left."
    )
    assert _ended_away("disconnect", 0) == (
        f"{said}you won, the CPU played Bea's side after they left."
    )
    assert _ended_away("give_up", 0) == f"{said}you won, Bea gave up."
    assert _ended_away("wipeout", 1) == f"{said}you lost, your team was wiped out."
    assert _ended_away("decision", 0) == f"{said}you won, decided after turn 10."
    assert away_notices(g.SessionOpened()) == []


def test_a_match_ended_away_says_how_in_words() -> None:
    """Found from outside: "ended while you were away: you won, by the board filled"."""
    said = "ended while you were away: "
    full = ended(pb.FINISH_REASON_BOARD_FULL, pb.SEAT_B)
    assert missed_notice(full).message.endswith(f"{said}you won, with the board full.")
    timed_out = ended(pb.FINISH_REASON_TURN_TIMEOUT, pb.SEAT_A)
    assert missed_notice(timed_out).message.endswith(f"{said}you lost, by a second missed turn.")


def ended(reason: pb.FinishReason.ValueType, forfeiting: pb.Seat.ValueType) -> pb.MatchView:
    """Ann's view (seat A) of a match that ended while she had no session."""
    finished = view(9, True)
    finished.status = pb.MATCH_STATUS_FINISHED
    finished.outcome.CopyFrom(
        pb.MatchOutcome(
            winner_seat=pb.SEAT_B if forfeiting == pb.SEAT_A else pb.SEAT_A,
            reason=reason,
            forfeiting_seat=forfeiting,
        )
    )
    return finished


async def test_a_match_the_player_forfeited_is_not_told_as_ended_while_away() -> None:
    """Found from outside: after `triad-client forfeit MATCH` (no screen open), the next
    screen said 'Your match against [BOT] Iris Vale ended while you were away: you lost,
    by a forfeit.' The winner by it, and a loser by a disconnection, are still told."""

    class Store:
        async def account(self, player_id: str) -> None:
            return None

    async def opened_after(missed: pb.MatchView) -> g.SessionOpened:
        backend = Backend(answers={"GetView": m.MatchServiceGetViewResponse(view=missed)})
        servicer = backend.servicer()
        servicer._store = Store()  # type: ignore[assignment]  # no account: the match part
        return await servicer._opened("ann-id", "s1", Missed(match_id="m1"))

    forfeited = await opened_after(ended(pb.FINISH_REASON_FORFEIT, pb.SEAT_A))
    assert not forfeited.HasField("missed_match"), forfeited
    won = await opened_after(ended(pb.FINISH_REASON_FORFEIT, pb.SEAT_B))
    assert won.missed_match.match_id == "m1"
    dropped = await opened_after(ended(pb.FINISH_REASON_DISCONNECT, pb.SEAT_A))
    assert dropped.missed_match.match_id == "m1"


def test_a_battle_the_player_gave_up_is_not_news_one_they_lost_away_is() -> None:
    def battle(reason: str, winner: int) -> pb.BattleView:
        return pb.BattleView(seat=0, outcome=pb.BattleOutcome(winner_seat=winner, reason=reason))

    assert not missed_is_news(battle("give_up", 1))  # the player's own GiveUp
    assert missed_is_news(battle("give_up", 0))  # the opponent's
    assert missed_is_news(battle("disconnect", 1))  # the CPU played their side
