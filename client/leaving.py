"""What the live screen says as the player leaves it with Ctrl-C (``play.play``): the
queue it showed is left (``leave_queue``), and anything that goes on without them is
named with the command that takes it back (found from outside: Ctrl-C ended the screen
without a word, while the match's clocks ran on and a turn missed twice forfeits)."""

from __future__ import annotations

import contextlib
import signal
import uuid

import grpc
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, ClientError
from client.frame import choosing
from client.session import Followed


def stop_as_ctrl_c() -> None:
    """SIGHUP (the terminal closed, an ssh session dropped) and SIGTERM end the client as
    Ctrl-C does: the queue left, the table hosted closed, what goes on named (found from
    outside: closing the window while queued for Ranked killed the client with its ticket
    still queued; the match it found later was lost on missed turns, a card traded away;
    a table hosted stayed open in the lobby). A signal ignored where the client starts
    (`nohup`) stays ignored; where Ctrl-C is ignored (a background job), the signal ends
    the client as it would have."""
    for stop in (signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(stop) == signal.SIG_DFL:
            signal.signal(stop, _as_ctrl_c)


def _as_ctrl_c(signum: int, frame: object) -> None:
    if signal.getsignal(signal.SIGINT) != signal.default_int_handler and not callable(
        signal.getsignal(signal.SIGINT)
    ):  # Ctrl-C ignored here: the signal does what it did
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
    else:
        signal.raise_signal(signal.SIGINT)


async def leave_queue(client: Caller, console: Console, ticket_id: str) -> None:
    """Cancel a ticket still waiting; one paired meanwhile plays on (``play`` finds it)."""
    with contextlib.suppress(grpc.aio.AioRpcError):
        await client.call(
            client.stub.CancelTicket,
            g.CancelTicketRequest(request_id=uuid.uuid4().hex, ticket_id=ticket_id),
        )
        console.print("Left the queue.")


async def ticket_named(client: Caller, given: str | None) -> str:
    """The ticket ``cancel`` names: the player's own (a player has one) when none or the
    start of its id is given (found from outside: `cancel a1a7a622`, the ticket the
    queue screen shows, was refused 'you have no ticket a1a7a622')."""
    status = (await client.call(client.stub.GetPlayerStatus, g.GetPlayerStatusRequest())).status
    mine = status.ticket.ticket_id if status.ticket.status == pb.TICKET_STATUS_QUEUED else ""
    if not given and not mine:
        raise ClientError("you are in no queue: triad-client queue joins one")
    return mine if mine and mine.startswith(given or "") else str(given)


def going_on(told: Followed) -> str:
    """What the screen left goes on without the player, and how to take it back ('' if
    nothing: a queue is left, a match over needs nobody)."""
    draft = told.drafting()
    if draft is not None and draft.status == pb.DRAFT_STATUS_PICKING:
        return (
            "Your draft goes on (120 s without a reveal or a pick forfeits it): "
            "triad-client play takes it back."
        )
    view, trade = told.view, told.trade
    if view is not None and view.status == pb.MATCH_STATUS_IN_PROGRESS:
        return (
            f"Match {view.match_id[:8]} goes on: your turns time out (two missed forfeit it), "
            "and 120 s away forfeits it. triad-client play takes it back."
        )
    if trade is not None and choosing(trade):
        return "Your pick stays open until its deadline: triad-client trade choose, or play."
    return ""


def battle_going_on(view: pb.BattleView) -> str:
    """What a battle left unfinished does without the player (BATTLE.md 5), and the
    command that takes it back (found from outside: Ctrl-C ended the screen without a
    word, the shell's prompt on the plan's line, while the battle went on)."""
    if view.you.cpu:
        return (
            f"Battle {view.battle_id[:8]} goes on, the CPU in your seat: "
            "triad-client battle watches it."
        )
    return (
        f"Battle {view.battle_id[:8]} goes on: back within 30 s, triad-client battle plays on; "
        "after that the CPU plays your seat and you lose it."
    )
