"""``battle --queue`` (and a battle table hosted) waits on the player's session for the
battle, not by asking for it: found from outside, the wait called GetActiveBattle twice
a second (a query of the battle service each time) for as long as the player waited,
where issue 18 asks that a waiting player cost the server nothing."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle_start import session_held, start
from client.connection import CommandError

TICKET = "7e1c0b2a-0000-4000-8000-000000000001"
BATTLE = "b4771e00-0000-4000-8000-000000000002"


class Gateway:
    """Asked once for an active battle (none), then queued; GetActiveBattle again fails."""

    def __init__(self) -> None:
        self.asked = 0
        self.sent: list[Any] = []

    async def GetActiveBattle(self, request: g.GetActiveBattleRequest) -> Any:
        self.asked += 1
        assert self.asked == 1, "asked for the battle again while waiting: a poll"
        return g.GetActiveBattleResponse()

    async def Enqueue(self, request: g.EnqueueRequest) -> g.EnqueueResponse:
        assert request.mode == pb.MODE_BATTLE
        return g.EnqueueResponse(ticket=pb.Ticket(ticket_id=TICKET, mode=pb.MODE_BATTLE))

    async def CancelTicket(self, request: g.CancelTicketRequest) -> Any:
        self.sent.append(request)
        return g.CancelTicketResponse()

    async def GetBattleView(self, request: g.GetBattleViewRequest) -> g.GetBattleViewResponse:
        view = pb.BattleView(battle_id=request.battle_id, status=pb.BATTLE_STATUS_FORMATION)
        return g.GetBattleViewResponse(view=view)


class Player:
    """The player's client, its session stream telling ``pushes`` and then, unless it
    ends, waiting for ever."""

    def __init__(self, *pushes: g.OpenSessionResponse, ends: bool = False) -> None:
        self.stub = Gateway()
        self._pushes = pushes
        self._ends = ends
        self.opened = 0

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        self.opened += 1
        for push in self._pushes:
            await asyncio.sleep(0.01)
            yield push
        if not self._ends:
            await asyncio.Event().wait()


QUEUE = argparse.Namespace(join=None, queue=True, challenge=None, host=False)
OPENED = g.OpenSessionResponse(session_opened=g.SessionOpened(session_id="s1"))


async def test_the_battle_queue_waits_for_the_battle_s_push() -> None:
    queued = g.OpenSessionResponse(queue_status=pb.QueueStatus(ticket=pb.Ticket(ticket_id=TICKET)))
    ended = pb.BattleView(battle_id="b0ld", status=pb.BATTLE_STATUS_FINISHED)
    begun = pb.BattleView(battle_id=BATTLE, status=pb.BATTLE_STATUS_FORMATION)
    player = Player(
        OPENED,
        queued,
        g.OpenSessionResponse(battle=ended),  # an old battle's last view: not this one
        g.OpenSessionResponse(battle=begun),
    )
    view = await asyncio.wait_for(start(player, QUEUE, Console()), 10)
    assert view.battle_id == BATTLE
    assert player.stub.asked == 1 and player.stub.sent == []  # nothing given up


async def test_a_battle_begun_before_the_session_opened_is_the_one_waited_for() -> None:
    opened = g.OpenSessionResponse(session_opened=g.SessionOpened(session_id="s1"))
    opened.session_opened.active_battle.battle_id = BATTLE
    view = await asyncio.wait_for(start(Player(opened), QUEUE, Console()), 10)
    assert view.battle_id == BATTLE


async def test_a_session_closed_for_good_gives_the_ticket_up_and_says_why() -> None:
    closed = g.OpenSessionResponse(
        session_closed=g.SessionClosed(reason=g.SESSION_CLOSE_REASON_LOGGED_OUT)
    )
    player = Player(OPENED, closed, ends=True)
    console = Console(width=200, record=True, force_terminal=False)
    with pytest.raises(CommandError, match="your session closed"):
        await asyncio.wait_for(start(player, QUEUE, console), 10)
    [cancel] = player.stub.sent
    assert cancel.ticket_id == TICKET and cancel.request_id
    assert "Left the queue." in console.export_text()


async def test_ctrl_c_while_waiting_gives_the_ticket_up() -> None:
    player = Player(OPENED)
    console = Console(width=200, record=True, force_terminal=False)
    waiting = asyncio.ensure_future(start(player, QUEUE, console))
    await asyncio.sleep(0.2)
    waiting.cancel()  # as Ctrl-C cancels the command's task
    with pytest.raises(asyncio.CancelledError):
        await waiting
    [cancel] = player.stub.sent
    assert cancel.ticket_id == TICKET
    assert "Left the queue." in console.export_text()


async def test_the_screen_s_session_is_the_one_waited_on_not_a_second_one() -> None:
    """Found from outside: the wait opened a session stream of its own beside the one the
    battle command holds from the queue on; the newer replaced the older, which then
    ended for good, and once the wait's stream was dropped the player held none: 30 s
    into the battle the CPU took their seat."""
    begun = pb.BattleView(battle_id=BATTLE, status=pb.BATTLE_STATUS_FORMATION)
    player = Player(OPENED, g.OpenSessionResponse(battle=begun))
    async with session_held(player) as held:
        view = await asyncio.wait_for(start(player, QUEUE, Console(), held), 10)
        assert view.battle_id == BATTLE
        assert player.opened == 1
