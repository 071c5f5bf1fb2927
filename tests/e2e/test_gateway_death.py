"""A gateway that dies (SIGKILL: no session of it says it ended) does not leave its
players connected for ever: the other gateways see it stop beating and report its
players away, whose disconnect grace then runs (RULES.md 5). Two gateways, every service
a process on real PostgreSQL and NATS.

Found from outside: with a player's gateway killed, their seat stayed connected (no
grace, no notice to the opponent; in a battle the CPU never took over and the absent
player could win "by decision")."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack
from tests.e2e.sessions import OPEN_TABLE, Player, Session, join, table_match

pytestmark = pytest.mark.integration

FAST = {"TRIAD_GATEWAY_SWEEP_SECONDS": "0.5", "TRIAD_GATEWAY_DEAD_SECONDS": "3"}
GRACE = 2.0


STACK_GATEWAYS = (FAST, FAST)
STACK_OVERRIDES = {"match": {"TRIAD_DISCONNECT_SECONDS": str(GRACE)}}


async def test_a_gateway_stopping_ends_its_sessions_saying_so(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    """(Before the kill below.) Found from outside: on SIGTERM the sessions went on with
    heartbeats until the drain cut them ("Cancelling all calls"), never told
    SERVER_SHUTDOWN as gateway.proto promises."""
    cid = await join(apis[1])
    session = await Session.open(cid)
    try:
        backend.backend.restart("gateway1")  # SIGTERM, then started again
        closed = await session.wait_for(lambda p: p.HasField("session_closed"))
        assert closed.session_closed.reason == g.SESSION_CLOSE_REASON_SERVER_SHUTDOWN
        assert closed is session.pushes[-1]
    finally:
        await session.close()


async def test_the_players_of_a_killed_gateway_are_away_and_forfeit_after_the_grace(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    ann, bea = await join(apis[0]), await join(apis[1])
    sessions = [await Session.open(ann), await Session.open(bea)]
    try:
        match_id = await table_match(ann, bea, OPEN_TABLE)
        await sessions[1].attached(match_id)
        killed = time.monotonic()
        backend.backend.kill("gateway1")  # bea's: none of its sessions says it ended
        final = await finished(ann, match_id, timeout=30)
        assert final.outcome.reason == pb.FINISH_REASON_DISCONNECT
        assert final.outcome.winner_seat == final.my_seat, "ann wins: bea was away"
        assert time.monotonic() - killed < 3 + 0.5 + GRACE + 10, "dead, then the grace"
        assert sessions[0].notices("OPPONENT_DISCONNECTED"), "ann was told bea is away"
    finally:
        await sessions[0].close()


async def finished(player: Player, match_id: str, timeout: float) -> pb.MatchView:
    deadline = time.monotonic() + timeout
    while True:
        view = await player.view(match_id)
        if view.status == pb.MATCH_STATUS_FINISHED or time.monotonic() > deadline:
            return view
        await asyncio.sleep(0.3)


async def test_a_gateway_stopping_shows_the_opponent_no_absence_of_its_players(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    """Found from outside: at every rolling restart the opponents of a stopping
    gateway's players read "lost their connection" then "connected again", although
    the players' clients reopened on another gateway at once, as SERVER_SHUTDOWN asks."""
    if "gateway1" in backend.backend.exited():  # killed by the test above
        await asyncio.to_thread(backend.backend.restart, "gateway1")
    dan, eve = await join(apis[0]), await join(apis[1])
    match_id = await table_match(dan, eve, OPEN_TABLE)
    watching = await Session.open(dan)
    moved = asyncio.Event()
    reopened: list[Session] = []

    async def eves_client() -> None:  # on gateway1; on the end, to the other gateway
        async for push in apis[1].OpenSession(g.OpenSessionRequest(), metadata=eve.meta):
            if push.HasField("session_closed"):
                break
        eve.api = apis[0]
        moved.set()
        reopened.append(await Session.open(eve))

    following = asyncio.create_task(eves_client())
    try:
        await asyncio.sleep(0.5)
        await asyncio.to_thread(backend.backend.restart, "gateway1")  # SIGTERM, start again
        await asyncio.wait_for(moved.wait(), 10)
        await asyncio.sleep(GRACE)
        codes = [p.notice.code for p in watching.pushes if p.HasField("notice")]
        assert "OPPONENT_DISCONNECTED" not in codes, codes
        view = await dan.view(match_id)
        assert view.status == pb.MATCH_STATUS_IN_PROGRESS, view.outcome
    finally:
        following.cancel()
        for session in [watching, *reopened]:
            await session.close()


async def test_a_gateway_dying_under_both_players_abandons_their_match_neither_loses(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    """Found while reading the code: both players on one gateway that dies are reported
    away one after the other (milliseconds apart), and the first reported, seat A by
    the table's seating, forfeited to the other. Neither left first: the match is
    abandoned, a draw without rating or trade (services/match/domain/ending.py)."""
    if "gateway1" in backend.backend.exited():  # killed by a test above
        await asyncio.to_thread(backend.backend.restart, "gateway1")
    fay, gus = await join(apis[1]), await join(apis[1])
    sessions = [await Session.open(fay), await Session.open(gus)]
    try:
        match_id = await table_match(fay, gus, OPEN_TABLE)
        for session in sessions:
            await session.attached(match_id)
        backend.backend.kill("gateway1")
        fay.api = apis[0]  # the players' calls, from now on through the gateway that lives
        final = await finished(fay, match_id, timeout=30)
    finally:
        for session in sessions:
            await session.close()
    assert final.status == pb.MATCH_STATUS_FINISHED, final
    assert final.outcome.reason == pb.FINISH_REASON_DISCONNECT, final.outcome
    assert final.outcome.WhichOneof("result") == "draw", final.outcome
    assert final.outcome.forfeiting_seat == pb.SEAT_UNSPECIFIED, final.outcome
    assert [p.connected for p in final.players] == [False, False], final.players
