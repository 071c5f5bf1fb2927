"""What the one-shot commands print, run whole (``run``) against a stand-in gateway:
``view`` of a finished Sudden Death match, and ``--json`` answers as scripts read them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client.connection import ClientError, State
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
    if not path.exists():  # logged in once: what the client keeps stays
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


TICKET = "5e1f0c2a-0000-4000-8000-000000000001"


class Stream:
    """A session stream as grpc gives it: read with async for, ended with cancel."""

    def __init__(self, pushes: AsyncIterator[g.OpenSessionResponse]) -> None:
        self.pushes = pushes

    def __aiter__(self) -> AsyncIterator[g.OpenSessionResponse]:
        return self.pushes

    def cancel(self) -> None:
        pass


class Queue:
    """Enqueue, then a session that opens with the ticket queued and, unless
    ``cancelled``, pairs it: MatchFound, then the match's first view."""

    cancelled: ClassVar[bool] = False
    asked: ClassVar[list[str]] = []

    def __init__(self, channel: Any) -> None:
        pass

    async def Enqueue(self, request: Any, metadata: Any, timeout: float) -> Any:
        Queue.asked.append("Enqueue")
        return g.EnqueueResponse(ticket=pb.Ticket(ticket_id=TICKET, status=pb.TICKET_STATUS_QUEUED))

    async def CancelTicket(self, request: Any, metadata: Any, timeout: float) -> Any:
        Queue.asked.append("CancelTicket")
        return g.CancelTicketResponse()

    def OpenSession(self, request: Any, metadata: Any = None) -> Stream:
        return Stream(self._session())

    async def _session(self) -> AsyncIterator[g.OpenSessionResponse]:
        ticket = pb.Ticket(ticket_id=TICKET, status=pb.TICKET_STATUS_QUEUED)
        yield g.OpenSessionResponse(
            session_opened=g.SessionOpened(status=g.PlayerStatus(ticket=ticket))
        )
        yield g.OpenSessionResponse(heartbeat=g.Heartbeat())
        if Queue.cancelled:
            ticket.status = pb.TICKET_STATUS_CANCELLED
            yield g.OpenSessionResponse(queue_status=pb.QueueStatus(ticket=ticket))
            await asyncio.Event().wait()  # the session stays open
        yield g.OpenSessionResponse(match_found=g.MatchFound(match_id=MATCH))
        yield g.OpenSessionResponse(match_view=view())
        await asyncio.Event().wait()


async def test_queue_json_prints_the_match_found_not_the_live_screen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `queue --json` (and `play --json`) opened the live screen,
    and a script reading its output got no JSON."""
    Queue.cancelled, Queue.asked = False, []
    assert await ran(monkeypatch, tmp_path, Queue, "queue", "--json") == 0
    said = capsys.readouterr().out
    assert json.loads(said)["matchId"] == MATCH, said
    assert Queue.asked == ["Enqueue"], "the ticket was paired: nothing to cancel"
    # play --json: the match the session opens in, printed at once.
    assert await ran(monkeypatch, tmp_path, Resumed, "play", "--json") == 0
    assert json.loads(capsys.readouterr().out)["matchId"] == MATCH


async def test_queue_json_refuses_a_ticket_cancelled_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    Queue.cancelled, Queue.asked = True, []
    with pytest.raises(ClientError, match="your ticket left the queue without a match"):
        await asyncio.wait_for(ran(monkeypatch, tmp_path, Queue, "queue", "--json"), 10)


class Resumed(Queue):
    async def _session(self) -> AsyncIterator[g.OpenSessionResponse]:
        yield g.OpenSessionResponse(session_opened=g.SessionOpened(active_match=view()))
        await asyncio.Event().wait()


class Over(Finished):
    """No active match any more; GetMatchView shows any match by its whole id."""

    async def GetActiveMatch(self, request: Any, metadata: Any, timeout: float) -> Any:
        return g.GetActiveMatchResponse()


async def test_view_finds_a_match_the_client_showed_by_the_start_of_its_id(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: the screen names a match by 8 characters ("match e8f7bb50");
    once it was over, `view e8f7bb50` was refused for want of the whole id, which the
    client had never shown. The client keeps the ids of the matches it showed."""
    with pytest.raises(ClientError, match="nor of one match this client showed you lately"):
        await ran(monkeypatch, tmp_path, Over, "view", MATCH[:8])
    assert await ran(monkeypatch, tmp_path, Resumed, "play", "--json") == 0  # the session shows it
    capsys.readouterr()
    assert await ran(monkeypatch, tmp_path, Over, "view", MATCH[:8]) == 0
    assert "Round 3 of at most 5" in capsys.readouterr().out


class InRoundTwo(Over):
    """An active match in round 2 of Sudden Death, round 1 tied 5-5."""

    async def GetActiveMatch(self, request: Any, metadata: Any, timeout: float) -> Any:
        shown = finished_in_round_three()
        shown.status, shown.round_number = pb.MATCH_STATUS_IN_PROGRESS, 2
        del shown.earlier_rounds[1:]
        shown.ClearField("outcome")
        return g.GetActiveMatchResponse(view=shown)


async def test_active_in_a_later_sudden_death_round_shows_the_earlier_final_boards(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The live screen shows a round's final board for five seconds; `active` (as
    `view`) shows it for as long as the match runs (RULES.md 12)."""
    assert await ran(monkeypatch, tmp_path, InRoundTwo, "active") == 0
    said = capsys.readouterr().out
    assert said.index("Round 1's final board: a tie at 5-5") < said.index("Round 2 of at most 5")


TABLE = "7d61a6c8-ceee-41f8-8487-3639ac8aa5d7"


class Hosting:
    """Ann hosts table 7d61a6c8...; CloseTable records the id it was given."""

    closed: ClassVar[list[str]] = []

    def __init__(self, channel: Any) -> None:
        pass

    async def GetPlayerStatus(self, request: Any, metadata: Any, timeout: float) -> Any:
        return g.GetPlayerStatusResponse(
            status=g.PlayerStatus(hosted_table=pb.Table(table_id=TABLE))
        )

    async def CloseTable(self, request: Any, metadata: Any, timeout: float) -> Any:
        self.closed.append(request.table_id)
        return g.CloseTableResponse()


async def test_close_takes_the_start_of_the_hosted_tables_id_as_status_prints_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `close 7d61a6c8`, the id status and tables print, was sent
    as it was typed and refused 'not found: no table 7d61a6c8'."""
    Hosting.closed.clear()
    assert await ran(monkeypatch, tmp_path, Hosting, "close", TABLE[:8]) == 0
    assert await ran(monkeypatch, tmp_path, Hosting, "close") == 0
    assert Hosting.closed == [TABLE, TABLE]
    assert capsys.readouterr().out == "Table closed.\nTable closed.\n"


TICKET = "a1a7a622-0b74-462e-abfb-f0f445427c9f"


class Queued:
    """Ann waits in a queue with ticket a1a7a622...; CancelTicket records the id given."""

    cancelled: ClassVar[list[str]] = []

    def __init__(self, channel: Any) -> None:
        pass

    async def GetPlayerStatus(self, request: Any, metadata: Any, timeout: float) -> Any:
        ticket = pb.Ticket(ticket_id=TICKET, status=pb.TICKET_STATUS_QUEUED)
        return g.GetPlayerStatusResponse(status=g.PlayerStatus(ticket=ticket))

    async def CancelTicket(self, request: Any, metadata: Any, timeout: float) -> Any:
        self.cancelled.append(request.ticket_id)
        return g.CancelTicketResponse()


async def test_cancel_takes_the_start_of_the_ticket_as_the_queue_screen_shows_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `cancel a1a7a622`, the ticket the queue screen shows, was
    refused 'not found: you have no ticket a1a7a622'; a player has one ticket, so
    cancel alone now leaves it."""
    Queued.cancelled.clear()
    assert await ran(monkeypatch, tmp_path, Queued, "cancel", TICKET[:8]) == 0
    assert await ran(monkeypatch, tmp_path, Queued, "cancel") == 0
    assert Queued.cancelled == [TICKET, TICKET]
    assert capsys.readouterr().out == "Left the queue.\nLeft the queue.\n"
