"""A player gone while waiting leaves the queue (gateway/presence.py ``_gone``), through
the TLS gateway with every service a process on real PostgreSQL and NATS.

Found from outside: a browser tab closed (or a terminal client killed) while queued for
Ranked kept its ticket; it was paired, and the player lost the match, their rating and a
card by the disconnection forfeit while the opponent waited two minutes for it. Now a
session that ends and is followed by none of its player's within
``TRIAD_QUEUE_AWAY_SECONDS`` gives up the ticket and the open table, as Logout does. A
player who reopens in time keeps their place; a ticket made after the session ended (a
one-shot command needs no session) is theirs and stays.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e.sessions import OPEN_TABLE, Player, Session, join

pytestmark = pytest.mark.integration

AWAY_SECONDS = 4.0
STACK_OVERRIDES: Overrides = {"gateway": {"TRIAD_QUEUE_AWAY_SECONDS": str(AWAY_SECONDS)}}
"""The backend of this module: gone players leave the queue after 4 s."""
SEEN_ENDED = 1.0
"""Enough for the gateway to see a stream the client cancelled end, on a loaded machine
(it is the gateway's clock that says when a session ended)."""


async def status(player: Player) -> g.PlayerStatus:
    reply = await player.call("GetPlayerStatus", g.GetPlayerStatusRequest())
    return reply.status  # type: ignore[no-any-return]


async def enqueue(player: Player) -> pb.Ticket:
    reply = await player.call(
        "Enqueue",
        g.EnqueueRequest(
            request_id=uuid4().hex,
            mode=pb.MODE_RANKED,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        ),
    )
    return reply.ticket  # type: ignore[no-any-return]


async def left_within(player: Player, seconds: float) -> g.PlayerStatus:
    """The player's status once it shows neither a ticket nor a hosted table."""
    deadline = time.monotonic() + seconds
    while True:
        now = await status(player)
        if not now.HasField("ticket") and not now.HasField("hosted_table"):
            return now
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {seconds} s: {now}")
        await asyncio.sleep(0.2)


async def test_a_player_whose_client_is_gone_leaves_the_queue_and_their_table(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    session = await Session.open(ann)
    await enqueue(ann)
    await session.close()  # the tab closed: no Logout, no CancelTicket

    await left_within(ann, AWAY_SECONDS + 10)
    # Nobody can be paired with her now: Bea, of the same rating, waits alone.
    mine = await enqueue(bea)
    await asyncio.sleep(3)
    waiting = await status(bea)
    assert waiting.ticket.ticket_id == mine.ticket_id
    assert waiting.ticket.status == pb.TICKET_STATUS_QUEUED
    assert not waiting.active_match_id
    await bea.call(
        "CancelTicket", g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=mine.ticket_id)
    )

    # A host gone closes her open table: nobody joins a player who is not there.
    session = await Session.open(ann)
    table = (
        await ann.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex,
                settings=pb.TableSettings(rules=OPEN_TABLE, random_deck=True),
            ),
        )
    ).table
    assert (await status(ann)).hosted_table.table_id == table.table_id
    await session.close()
    await left_within(ann, AWAY_SECONDS + 10)


async def test_a_player_back_in_time_keeps_their_place(api: Any) -> None:
    ann = await join(api)
    session = await Session.open(ann)
    ticket = await enqueue(ann)
    await session.close()
    session = await Session.open(ann)  # reconnected at once
    await asyncio.sleep(AWAY_SECONDS + 2)
    assert (await status(ann)).ticket.ticket_id == ticket.ticket_id
    await session.close()
    await left_within(ann, AWAY_SECONDS + 10)  # and gone for good this time


async def test_a_ticket_made_without_a_session_after_it_ended_stays(api: Any) -> None:
    ann = await join(api)
    session = await Session.open(ann)
    await session.close()
    await asyncio.sleep(SEEN_ENDED)  # (and the check made AWAY_SECONDS after that)
    ticket = await enqueue(ann)  # a one-shot command: no session needed
    await asyncio.sleep(AWAY_SECONDS + 2)
    now = await status(ann)
    assert now.ticket.ticket_id == ticket.ticket_id
    assert now.ticket.status == pb.TICKET_STATUS_QUEUED
    await ann.call(
        "CancelTicket", g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=ticket.ticket_id)
    )
