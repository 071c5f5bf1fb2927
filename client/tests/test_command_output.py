"""What the one-shot commands print, run whole (``run``) against a stand-in gateway:
``view`` of a finished Sudden Death match, and ``--json`` answers as scripts read them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client.connection import State
from client.main import parser, run
from client.tests.views import view

MATCH = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"


def finished_in_round_three() -> pb.MatchView:
    """Ann's view of a Sudden Death match she won in round 3 after two 5-5 rounds."""
    shown = view(
        placed={0: pb.SEAT_A, 4: pb.SEAT_B},
        rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, sudden_death=True),
        round_number=3,
        earlier=((5, 5), (5, 5)),
    )
    shown.status = pb.MATCH_STATUS_FINISHED
    shown.outcome.winner_seat = pb.SEAT_A
    shown.outcome.reason = pb.FINISH_REASON_FORFEIT
    shown.outcome.forfeiting_seat = pb.SEAT_B
    for before, cell in zip(shown.earlier_rounds, (7, 2), strict=True):
        before.board.extend(view(placed=dict.fromkeys(range(9), pb.SEAT_B)).board)
        before.last_placement.CopyFrom(pb.Placement(turn_number=9 * before.round_number, cell=cell))
    return shown


async def ran(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, gateway: type, *argv: str) -> int:
    path = tmp_path / "state.json"
    State(path, "default").save(
        g.Player(player_id="a", player_name="ann"),
        g.AuthTokens(access_token="a", refresh_token="r"),
    )
    monkeypatch.setattr(gateway_pb2_grpc, "TriadGatewayStub", gateway)
    common = ["--state", str(path), "--plaintext", "--addr", "127.0.0.1:9"]
    return await run(parser().parse_args([*common, *argv]))


class Finished:
    def __init__(self, channel: Any) -> None:
        pass

    async def GetMatchView(self, request: Any, metadata: Any, timeout: float) -> Any:
        return g.GetMatchViewResponse(view=finished_in_round_three())


async def test_view_of_a_finished_sudden_death_match_shows_every_rounds_final_board(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `view` of a match that went to Sudden Death drew its last
    round alone, though RULES.md 12 has views show each round's final board."""
    assert await ran(monkeypatch, tmp_path, Finished, "view", MATCH) == 0
    said = capsys.readouterr().out
    first = said.index("Round 1's final board: a tie at 5-5, so round 2 was played.")
    second = said.index("Round 2's final board: a tie at 5-5, so round 3 was played.")
    last = said.index("Round 3 of at most 5")
    assert first < second < last, said
    assert said.count("┌") == 3, "three boards: two earlier rounds and the last"
    assert "on 7" in said[first:second] and "on 2" in said[second:last], said


class Wiped:
    """A finished match Ann lost 0-10: no card of hers left, on the board or in hand."""

    def __init__(self, channel: Any) -> None:
        pass

    async def GetMatchView(self, request: Any, metadata: Any, timeout: float) -> Any:
        shown = view(hand=0, placed=dict.fromkeys(range(9), pb.SEAT_B))
        shown.status = pb.MATCH_STATUS_FINISHED
        shown.players[0].score, shown.players[1].score = 0, 10
        shown.ClearField("last_placement")
        shown.outcome.winner_seat = pb.SEAT_B
        shown.outcome.final_scores.CopyFrom(pb.Scores(seat_a=0, seat_b=10))
        return g.GetMatchViewResponse(view=shown)


async def test_json_keeps_a_score_of_0_and_an_empty_hand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: --json left zero and empty fields out (protobuf's JSON
    default), so `view --json` of a match lost 0-10 had no score, no myHand and no
    board[0].index, and a script reading them failed with a KeyError."""
    assert await ran(monkeypatch, tmp_path, Wiped, "view", MATCH, "--json") == 0
    sent = json.loads(capsys.readouterr().out)
    assert sent["players"][0]["score"] == 0 and sent["myHand"] == []
    assert sent["outcome"]["finalScores"] == {"seatA": 0, "seatB": 10}
    assert [c["index"] for c in sent["board"]] == list(range(9))
    assert sent["earlierRounds"] == [] and sent["roundNumber"] == 0
    assert "lastPlacement" not in sent, "a message not set stays out: there is none"
