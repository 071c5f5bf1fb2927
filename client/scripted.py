"""``play --json`` and ``queue --json``: for a script, the game the live screen would
play, printed as JSON once it starts, instead of the screen (found from outside: both
opened the live screen, and a script reading their output got none). The script plays
it on with ``place`` (a match), ``draft`` (a draft) or ``battle`` (a battle), and reads
what follows with ``watch``.

What is printed is the view as ``active``, ``draft`` and ``battle`` print theirs: a
match's view (its ``matchId``), a draft's (its ``draftId``) or a Skirmish battle's (its
``battleId``), whichever the player is in, else the first one the session tells of.
"""

from __future__ import annotations

from google.protobuf.message import Message
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Client, ClientError, as_json
from client.leaving import leave_queue
from client.play import enqueue

LEFT_QUEUE = "your ticket left the queue without a match (cancelled elsewhere, or expired)"
"""Said when the ticket ``queue --json`` waits on stops waiting unpaired."""


def started(push: g.OpenSessionResponse, ticket_id: str = "") -> Message | None:
    """The game ``push`` shows the player in (the session's opening state, or a view of
    a match, draft or battle begun), else None. A ticket ``ticket_id`` that leaves the
    queue unpaired, and a session taken over, are refused: nothing will start here."""
    kind = push.WhichOneof("push")
    if kind == "session_opened":
        opened = push.session_opened
        for field in ("active_match", "draft", "active_battle"):
            if opened.HasField(field):
                return getattr(opened, field)  # type: ignore[no-any-return]
    elif kind == "match_view" and push.match_view.status == pb.MATCH_STATUS_IN_PROGRESS:
        return push.match_view
    elif kind == "draft" and push.draft.status == pb.DRAFT_STATUS_PICKING:
        return push.draft
    elif kind == "battle":
        return push.battle
    elif kind == "queue_status" and ticket_id:
        ticket = push.queue_status.ticket
        if ticket.ticket_id == ticket_id and ticket.status == pb.TICKET_STATUS_CANCELLED:
            raise ClientError(LEFT_QUEUE)
    elif kind == "session_closed":
        raise ClientError("another session of yours took over: run it again there")
    return None


async def next_game(client: Client, ticket_id: str = "") -> Message:
    """The game the player is in, else the next one to start, from the session (left
    open: the client ends once it is printed)."""
    async for push in client.pushes():
        if (game := started(push, ticket_id)) is not None:
            return game
    raise ClientError("the session ended before any game started")


async def play_json(client: Client) -> None:
    """``play --json``: the game the player is in, else the next one, as JSON."""
    print(as_json(await next_game(client)), flush=True)


async def queue_json(client: Client, mode: str, deck: pb.DeckChoice) -> None:
    """``queue --json``: enqueue, then the match (a draft in the Draft queue) it finds,
    as JSON. Leaving first (Ctrl-C) cancels the ticket, as the queue screen does."""
    ticket = (await enqueue(client, mode, deck)).ticket
    found = None
    try:
        found = await next_game(client, ticket.ticket_id)
    finally:
        if found is None:  # said on stderr: stdout is the script's JSON
            await leave_queue(client, Console(stderr=True), ticket.ticket_id)
    print(as_json(found), flush=True)
