"""Presence and notices as players meet them (issue 16, items 3 and 5): who counts as
disconnected, when the disconnect deadline starts, and the notices the contract names
(TURN_MISSED, OPPONENT_DISCONNECTED, OPPONENT_RECONNECTED, TRADE_AUTO_PICKED), pushed
once on the session stream of the player they are for.

The whole backend as processes (devtools/stack.py) behind the TLS gateway, with short
turns, grace and trade choice. The gateway's heartbeat is long, as in production: no
deadline here may depend on the session stream writing something.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from devtools.tcp_proxy import FreezableProxy
from tests.e2e.sessions import (
    OPEN_TABLE,
    TRADE_TABLE,
    Session,
    join,
    mover,
    place_any,
    seat_of,
    seconds,
    table_match,
)

pytestmark = pytest.mark.integration
TURN_SECONDS = 3.0
GRACE_SECONDS = 2.0
TRADE_SECONDS = 1.0


STACK_OVERRIDES: Overrides = {
    "match": {
        "TRIAD_TURN_SECONDS": str(TURN_SECONDS),
        "TRIAD_DISCONNECT_SECONDS": str(GRACE_SECONDS),
    },
    "collection": {"TRIAD_TRADE_CHOICE_SECONDS": str(TRADE_SECONDS)},
    "gateway": {"TRIAD_HEARTBEAT_SECONDS": "10"},
}
"""This module's settings for its backend (tests/e2e/conftest.py)."""


# ---- item 3: who counts as disconnected, and from when ------------------------------


async def test_a_player_who_never_opens_a_session_is_disconnected_and_forfeits(
    api: Any,
) -> None:
    """Ann creates a table and never opens a session; Bea joins with hers open. From the
    start Ann counts as disconnected, with the deadline of the grace, and forfeits then
    (the turn timers alone would take longer)."""
    ann, bea = await join(api), await join(api)
    seen_by_bea = await Session.open(bea)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    created = time.time()
    view = await bea.view(match_id)
    assert seat_of(view, bea.name).connected
    absent = seat_of(view, ann.name)
    assert not absent.connected, "a player with no session is not connected"
    assert absent.HasField("disconnect_forfeit_time")
    assert abs(seconds(absent.disconnect_forfeit_time) - (created + GRACE_SECONDS)) < 1.0
    end = await seen_by_bea.view_where(match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED)
    assert end.outcome.reason == pb.FINISH_REASON_DISCONNECT
    assert end.outcome.winner_seat == end.my_seat
    await seen_by_bea.close()


async def test_a_session_that_ends_right_after_the_match_starts_disconnects(
    api: Any,
) -> None:
    """Ann's session is open when the match is made and ends at once, before anything
    of the match reached it: she is disconnected from that moment."""
    ann, bea = await join(api), await join(api)
    seen_by_bea = await Session.open(bea)
    seen_by_ann = await Session.open(ann)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    view = await bea.view(match_id)
    assert seat_of(view, ann.name).connected  # her open session counts from the start
    await seen_by_ann.close()
    left = time.time()
    gone = await seen_by_bea.view_where(match_id, lambda v: not seat_of(v, ann.name).connected)
    deadline = seconds(seat_of(gone, ann.name).disconnect_forfeit_time)
    assert -0.2 < deadline - (left + GRACE_SECONDS) < 0.5
    end = await seen_by_bea.view_where(match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED)
    assert end.outcome.reason == pb.FINISH_REASON_DISCONNECT
    await seen_by_bea.close()


async def test_the_grace_starts_when_the_connection_is_reset(backend: Stack, api: Any) -> None:
    """Ann's connection is reset (not closed cleanly) just after the match starts, and
    again in a second match well into it. Each time the deadline Bea is shown is the
    grace from the reset, not later (nor never)."""
    ann, bea = await join(api), await join(api)
    seen_by_bea = await Session.open(bea)
    host, port = backend.gateway.address.split(":")
    creds = grpc.ssl_channel_credentials(backend.cert.read_bytes())
    for settled in (False, True):
        proxy = FreezableProxy(host, int(port))
        address = await proxy.start()
        async with grpc.aio.secure_channel(address, creds) as channel:
            seen_by_ann = await Session.open(ann, backend.api(channel))
            match_id = await table_match(ann, bea, OPEN_TABLE)
            if settled:  # her session follows the match
                await seen_by_ann.attached(match_id)
            cut = time.time()
            await proxy.reset()
            gone = await seen_by_bea.view_where(
                match_id, lambda v: not seat_of(v, ann.name).connected
            )
            deadline = seconds(seat_of(gone, ann.name).disconnect_forfeit_time)
            late = deadline - (cut + GRACE_SECONDS)
            assert -0.2 < late < 0.5, f"the grace started {late:.2f} s after the reset"
            await seen_by_ann.close()
        await seen_by_bea.view_where(match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED)
    await seen_by_bea.close()


# ---- item 5: the notices -------------------------------------------------------------


async def test_opponent_disconnected_and_reconnected_arrive_once_at_the_opponent(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    seen_by_ann = await Session.open(ann)
    seen_by_bea = await Session.open(bea)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    await seen_by_ann.attached(match_id)
    await seen_by_bea.attached(match_id)
    await seen_by_ann.close()
    gone = await seen_by_bea.wait_for(
        lambda p: p.notice.code == "OPPONENT_DISCONNECTED" and p.notice.subject_id == match_id
    )
    assert gone.notice.level and ann.name in gone.notice.message
    back_ann = await Session.open(ann)
    await seen_by_bea.wait_for(
        lambda p: p.notice.code == "OPPONENT_RECONNECTED" and p.notice.subject_id == match_id
    )
    # Bea reconnects too (Ann is told), then a move: nothing else is told. Ann is told
    # Bea left before Bea comes back: a session reopened before the end of the old one
    # is reported is newer, so the late report changes nothing and nobody is told.
    await seen_by_bea.close()
    await back_ann.wait_for(lambda p: p.notice.code == "OPPONENT_DISCONNECTED")
    back_bea = await Session.open(bea)
    await back_ann.wait_for(lambda p: p.notice.code == "OPPONENT_RECONNECTED")
    first, _ = await mover((ann, bea), match_id)
    placed = await place_any(first, await first.view(match_id))
    for session in (back_ann, back_bea):
        await session.view_where(match_id, lambda v: v.version >= placed.version)
    for code in ("OPPONENT_DISCONNECTED", "OPPONENT_RECONNECTED"):
        assert len(seen_by_bea.notices(code)) == 1, code
        assert back_bea.notices(code) == [], code  # not told again on reconnect
        assert seen_by_ann.notices(code) == [], code
    for code in ("OPPONENT_DISCONNECTED", "OPPONENT_RECONNECTED"):  # Bea's reconnect
        assert len(back_ann.notices(code)) == 1, code
    for session in (back_ann, back_bea):
        await session.close()


async def test_turn_missed_arrives_once_at_the_player_who_missed(api: Any) -> None:
    ann, bea = await join(api), await join(api)
    sessions = {ann.id: await Session.open(ann), bea.id: await Session.open(bea)}
    match_id = await table_match(ann, bea, OPEN_TABLE)
    idle, other = await mover((ann, bea), match_id)
    missed = await sessions[idle.id].wait_for(lambda p: p.notice.code == "TURN_MISSED")
    assert missed.notice.subject_id == match_id
    assert missed.notice.level == g.NOTICE_LEVEL_WARNING
    # the other plays on; the idle player reconnects: nothing is told again
    placed = await place_any(other, await other.view(match_id))
    await sessions[idle.id].close()
    again = await Session.open(idle)
    assert again.pushes[0].session_opened.active_match.players  # the whole view
    after = await place_any(idle, await idle.view(match_id))
    await again.view_where(match_id, lambda v: v.version >= after.version)
    await sessions[other.id].view_where(match_id, lambda v: v.version >= after.version)
    assert placed.version < after.version
    assert len(sessions[idle.id].notices("TURN_MISSED")) == 1
    assert again.notices("TURN_MISSED") == []
    assert sessions[other.id].notices("TURN_MISSED") == []
    for session in (again, sessions[other.id]):
        await session.close()


async def test_trade_auto_picked_arrives_once_at_the_winner(api: Any) -> None:
    """The winner of a Trade One match does not choose: the server picks at the
    deadline, and the winner is told once."""
    winner, loser = await join(api), await join(api)
    sessions = {winner.id: await Session.open(winner), loser.id: await Session.open(loser)}
    match_id = await table_match(loser, winner, TRADE_TABLE)
    for _ in range(2):  # both place a card, then the loser gives up
        first, _other = await mover((winner, loser), match_id)
        await place_any(first, await first.view(match_id))
    await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
    result = await sessions[winner.id].wait_for(lambda p: p.HasField("trade_result"))
    assert result.trade_result.auto_picked
    told = await sessions[winner.id].wait_for(lambda p: p.notice.code == "TRADE_AUTO_PICKED")
    assert told.notice.subject_id == result.trade_result.trade_id
    await sessions[loser.id].wait_for(lambda p: p.HasField("trade_result"))
    # a new session of the winner is not told again, though the collection's pushes
    # reach it (the balance a booster changes)
    await sessions[winner.id].close()
    again = await Session.open(winner)
    await winner.call("OpenBooster", g.OpenBoosterRequest(request_id=uuid4().hex))
    await again.wait_for(lambda p: p.HasField("balance"))
    assert len(sessions[winner.id].notices("TRADE_AUTO_PICKED")) == 1
    assert again.notices("TRADE_AUTO_PICKED") == []
    assert sessions[loser.id].notices("TRADE_AUTO_PICKED") == []
    for session in (again, sessions[loser.id]):
        await session.close()
