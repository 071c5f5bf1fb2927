"""A player who left after queueing is not paired in the seconds before the gateway
gives their ticket up, through the TLS gateway with every service a process on real
PostgreSQL and NATS.

Found in review: ``TRIAD_QUEUE_AWAY_SECONDS`` (15 s, so that a reload keeps its place)
left a closed tab's ticket in the queue, and a pairing in those seconds seated the
absent player, who then lost the match, their rating and a card by the disconnection
forfeit while the opponent waited for them. The match service knows since when the
player is gone, and the matchmaker's start refuses them (``left_after_waiting``): their
ticket is cancelled saying why, and the opponent waits on with the wait they had.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb

from devtools.stack import Overrides
from tests.e2e.sessions import Session, join
from tests.e2e.test_queue_away import enqueue, status

pytestmark = pytest.mark.integration

STACK_OVERRIDES: Overrides = {"gateway": {"TRIAD_QUEUE_AWAY_SECONDS": "120"}}
"""The backend of this module: the gateway gives a gone player's ticket up only after two
minutes, so that what is seen here is the start's refusal."""


async def test_a_player_gone_since_queueing_is_not_paired_and_the_other_waits_on(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    session = await Session.open(ann)
    gone = await enqueue(ann)
    await session.close()  # the tab closed: no Logout, no CancelTicket
    await asyncio.sleep(1.0)  # the gateway sees the stream end
    waiting = await enqueue(bea)  # of the same rating: a pairing for the next round

    deadline = time.monotonic() + 30
    while (await status(ann)).HasField("ticket"):
        assert time.monotonic() < deadline, await status(ann)
        await asyncio.sleep(0.3)
    seen = await status(bea)
    assert not seen.active_match_id, seen  # not seated against a player who is not there
    assert seen.ticket.ticket_id == waiting.ticket_id, seen
    assert seen.ticket.status == pb.TICKET_STATUS_QUEUED, seen
    assert gone.ticket_id != waiting.ticket_id
