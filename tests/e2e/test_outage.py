"""A turn that runs out while the server cannot act is nobody's missed turn, through the
TLS gateway with every service a process on real PostgreSQL and NATS.

Found from outside: the backend was stopped during a player's turn and started again
after its deadline; the timer fired at once and auto-played for the player (a second
restart would have forfeited them). Now a timer found later than
``TRIAD_TIMER_LATE_SECONDS`` after it came due restarts the match's clocks from that
moment instead (``services/match/domain/deadlines.restart_clocks``), once a turn."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from tests.e2e.sessions import (
    OPEN_TABLE,
    join,
    mover,
    place_any,
    seconds,
    table_match,
)

pytestmark = pytest.mark.integration

TURN = 3.0
"""Seconds a turn lasts in this module's backend."""
STACK_OVERRIDES: Overrides = {
    "match": {
        "TRIAD_TURN_SECONDS": str(TURN),
        "TRIAD_TIMER_LATE_SECONDS": "1",
        "TRIAD_TIMER_POLL_SECONDS": "0.2",
    }
}
"""This module's settings for its backend (tests/e2e/conftest.py)."""


async def test_a_turn_that_ran_out_while_the_match_service_was_down_starts_again(
    api: Any, backend: Stack
) -> None:
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    to_move, _ = await mover((ann, bea), match_id)
    before = await to_move.view(match_id)
    backend.backend.kill("match")
    await asyncio.sleep(TURN + 2)  # the turn's deadline passes with nobody to act
    backend.backend.restart("match")
    await asyncio.sleep(1.0)  # the timer loop has looked by now
    after = await to_move.view(match_id)
    assert after.status == pb.MATCH_STATUS_IN_PROGRESS
    assert not after.HasField("last_placement"), "nothing was auto-played for the player"
    assert after.turn_number == before.turn_number and after.turn_seat == before.turn_seat
    assert not any(p.missed_turn_warning for p in after.players)
    assert seconds(after.turn_deadline_time) > seconds(before.turn_deadline_time) + 2
    moved = await place_any(to_move, after)  # the player still has their turn
    assert moved.last_placement.seat == before.turn_seat and not moved.last_placement.auto_played


async def test_a_join_while_the_match_service_is_down_names_it_and_a_retry_joins(
    api: Any, backend: Stack
) -> None:
    """Found from outside: while the match service restarted, JoinTable said "the
    matchmaker service is not available", which was up (it had said so of the match
    service, and the gateway named the service it asked)."""
    ann, bea = await join(api), await join(api)
    create = g.CreateTableRequest(
        request_id=uuid4().hex, settings=pb.TableSettings(rules=OPEN_TABLE, random_deck=True)
    )
    table = (await ann.call("CreateTable", create)).table
    joining = g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id)
    backend.backend.kill("match")
    try:
        with pytest.raises(grpc.aio.AioRpcError) as away:
            await bea.call("JoinTable", joining)
        assert away.value.code() == grpc.StatusCode.UNAVAILABLE
        assert away.value.details() == "the match service is not available right now; retry"
    finally:
        backend.backend.restart("match")
    joined = await bea.call("JoinTable", joining)  # the same request, now served
    assert joined.table.status == pb.TABLE_STATUS_STARTED and joined.match_id


async def test_the_first_calls_after_the_match_service_came_back_are_served(
    api: Any, backend: Stack
) -> None:
    """Found in CI: once a restarted match service reported SERVING, the gateway's and
    the matchmaker's channels to it were still waiting out their reconnect backoff, so a
    player's next calls were refused "not available right now; retry" for up to 2.4 s.
    Internal calls now wait for the connection within their deadline."""
    ann, bea, cy = await join(api), await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    backend.backend.kill("match")
    await asyncio.sleep(TURN + 2)  # both channels back off, as during a real outage
    backend.backend.restart("match")
    view = await ann.view(match_id)  # the gateway to the match service
    assert view.match_id == match_id
    created = await cy.call(  # the gateway to the matchmaker to the match service
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex, settings=pb.TableSettings(rules=OPEN_TABLE, random_deck=True)
        ),
    )
    assert created.table.table_id
