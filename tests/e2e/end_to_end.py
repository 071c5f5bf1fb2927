"""The end-to-end backend (every service a separate process on real PostgreSQL and NATS,
from devtools/stack.py) with a TLS stub to its gateway, and how players use it through
the public API: register, queue, play a whole match, follow the session stream.
Shared by the end-to-end and client tests; the backend and the stub are fixtures in
conftest.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, bearer, collect

RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)


BOT_FILL_SECONDS = 3
"""The matchmaker's populated-bot delay here (20 s by default)."""


async def register(api: Any) -> g.RegisterResponse:
    return await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"e{uuid4().hex[:12]}", password=PASSWORD
        )
    )


async def active_view(api: Any, me: g.RegisterResponse, timeout: float = 20) -> pb.MatchView:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(me.tokens))
        if reply.view.match_id:
            return reply.view
        await asyncio.sleep(0.2)
    raise AssertionError("no active match")


def first_move(view: pb.MatchView) -> tuple[str, int]:
    """The first card of the hand on the first empty cell."""
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    return view.my_hand[0].card.card_id, empty[0]


def greedy_move(view: pb.MatchView) -> tuple[str, int]:
    """The card and empty cell that take the most opponent's cards by a higher side (the
    basic rule only): the move of a player out to win, so that a match between a greedy
    and a first-move player seldom ends in a draw."""
    columns = view.rules.board.columns or 3
    cells = list(view.board)
    best: tuple[int, str, int] | None = None
    for held in view.my_hand:
        mine = held.card.printed_sides
        for cell in (c for c in cells if c.WhichOneof("content") == "empty"):
            row, column = divmod(cell.index, columns)
            taken = 0
            for index, my_side, their_side, beside in (
                (cell.index - columns, mine.top, "bottom", row > 0),
                (cell.index + columns, mine.bottom, "top", cell.index + columns < len(cells)),
                (cell.index - 1, mine.left, "right", column > 0),
                (cell.index + 1, mine.right, "left", column < columns - 1),
            ):
                if not beside or cells[index].WhichOneof("content") != "card":
                    continue
                placed = cells[index].card
                if placed.owner_seat != view.my_seat:
                    taken += my_side > getattr(placed.adjusted_sides, their_side)
            if best is None or taken > best[0]:
                best = (taken, held.card.card_id, cell.index)
    assert best is not None
    return best[1], best[2]


async def play(
    api: Any,
    players: list[g.RegisterResponse],
    match_id: str,
    greedy: frozenset[str] = frozenset(),
) -> pb.MatchView:
    """Each human places when it is their turn, from their own view, until the end: the
    players whose ids are in ``greedy`` take what they can, the others play their first
    card on the first empty cell."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for me in players:
            view = (
                await api.GetMatchView(
                    g.GetMatchViewRequest(match_id=match_id), metadata=bearer(me.tokens)
                )
            ).view
            if view.status == pb.MATCH_STATUS_FINISHED:
                return view
            if view.turn_seat != view.my_seat:
                continue
            move = greedy_move if me.player.player_id in greedy else first_move
            card_id, cell = move(view)
            try:
                await api.PlaceCard(
                    g.PlaceCardRequest(
                        request_id=f"{match_id}-{me.player.player_id[:8]}-{view.version}",
                        match_id=match_id,
                        card_id=card_id,
                        cell=cell,
                    ),
                    metadata=bearer(me.tokens),
                )
            except grpc.aio.AioRpcError as error:  # a bot or a timer moved first
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
        await asyncio.sleep(0.05)
    raise AssertionError("the match did not finish")


async def enqueue(api: Any, me: g.RegisterResponse, mode: pb.Mode.ValueType) -> pb.Ticket:
    """Queue with a Random deck, once the last match has let go of the player."""
    request_id = uuid4().hex
    for _ in range(100):
        try:
            reply = await api.Enqueue(
                g.EnqueueRequest(
                    request_id=request_id, mode=mode, deck=pb.DeckChoice(random=pb.RandomDeck())
                ),
                metadata=bearer(me.tokens),
            )
            return reply.ticket
        except grpc.aio.AioRpcError as error:  # still in the match that just ended
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("the player could never queue again")


async def pushed(
    pushes: list[g.OpenSessionResponse],
    found: Callable[[g.OpenSessionResponse], bool],
    what: str,
    timeout: float = 30,
) -> g.OpenSessionResponse:
    """The first push ``found`` accepts, waiting for it to arrive."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for push in pushes:
            if found(push):
                return push
        await asyncio.sleep(0.05)
    raise AssertionError(f"the session stream never showed {what}")


def queue_statuses(pushes: list[g.OpenSessionResponse], ticket_id: str) -> list[pb.QueueStatus]:
    return [
        p.queue_status
        for p in pushes
        if p.HasField("queue_status") and p.queue_status.ticket.ticket_id == ticket_id
    ]


async def open_session(api: Any, me: g.RegisterResponse) -> tuple[list[Any], asyncio.Task[None]]:
    pushes: list[g.OpenSessionResponse] = []
    task = asyncio.create_task(collect(api, me.tokens, pushes))
    await pushed(pushes, lambda p: p.HasField("session_opened"), "the session opened")
    return pushes, task
