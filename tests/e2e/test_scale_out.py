"""Several gateways and several replicas of every service (issue 18, items 3 and 4): a
player's updates reach whichever gateway holds their session, because the services
publish them on the player's NATS subject and each gateway subscribes for the sessions
it holds.

Two gateway replicas and two replicas of each service, as processes on real PostgreSQL
and NATS. The gateways' heartbeat is long (30 s): everything awaited here must come by
push, within ``WAIT`` seconds, never by a heartbeat's check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from tests.e2e.sessions import OPEN_TABLE, Player, Session, join, place_any, table_match

pytestmark = pytest.mark.integration

QUIET = {"TRIAD_HEARTBEAT_SECONDS": "30"}


STACK_GATEWAYS = (QUIET, QUIET)
STACK_OVERRIDES: Overrides = {}
STACK_REPLICAS = {"match": 2, "matchmaker": 2, "collection": 2, "rating": 2}


def on(player: Player, api: Any) -> Player:
    """The same player (same tokens) calling through another gateway."""
    return Player(api, player.id, player.name, player.tokens)


def newer_than(version: int) -> Callable[[pb.MatchView], bool]:
    return lambda view: view.version > version


async def my_turn(session: Session, match_id: str, after: int) -> pb.MatchView:
    """The player's next view of the match newer than ``after`` that is theirs to move or
    final, as pushed to their session (or shown by its first push)."""
    opened = session.pushes[0].session_opened.active_match
    if (
        opened.match_id == match_id
        and opened.version > after
        and opened.turn_seat == opened.my_seat
    ):
        return opened
    return await session.view_where(
        match_id,
        lambda v: (
            v.version > after
            and (v.status != pb.MATCH_STATUS_IN_PROGRESS or v.turn_seat == v.my_seat)
        ),
    )


async def test_a_newer_session_on_another_gateway_replaces_the_older_at_once(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    first, second = apis
    cai = await join(first)
    older = await Session.open(cai)
    newer = await Session.open(on(cai, second))
    closed = await older.wait_for(lambda p: p.HasField("session_closed"))
    assert closed.session_closed.reason == g.SESSION_CLOSE_REASON_REPLACED
    assert not any(p.HasField("session_closed") for p in newer.pushes)
    await older.close()
    await newer.close()


async def test_a_logout_through_one_gateway_closes_the_session_on_the_other_at_once(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    first, second = apis
    dee = await join(first)
    session = await Session.open(on(dee, second))
    await dee.call("Logout", g.LogoutRequest(request_id="bye", all_sessions=False))
    closed = await session.wait_for(lambda p: p.HasField("session_closed"))
    assert closed.session_closed.reason == g.SESSION_CLOSE_REASON_LOGGED_OUT
    await session.close()


async def test_a_match_is_played_across_two_gateways_and_survives_one_of_them_dying(
    backend: Stack, apis: tuple[Any, Any]
) -> None:
    """(Last in the module: it kills the second gateway.) Ann on the first gateway, Bea
    on the second; every view each sees comes by push.
    Midway Bea's gateway is killed; she reconnects to the first, her new session opens
    on the match as it is, and the match is played to its end."""
    first, second = apis
    ann, bea = await join(first), await join(second)
    ann_session, bea_session = await Session.open(ann), await Session.open(bea)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    for session in (ann_session, bea_session):
        found = await session.wait_for(lambda p: p.match_found.match_id == match_id)
        assert found.match_found.opponent_is_bot is False
    sessions = {ann.name: ann_session, bea.name: bea_session}
    players = {ann.name: ann, bea.name: bea}
    view = await ann_session.view_where(match_id, lambda v: True)
    placed = 0
    while view.status == pb.MATCH_STATUS_IN_PROGRESS:
        mover = next(p.player_name for p in view.players if p.seat == view.turn_seat)
        other = bea.name if mover == ann.name else ann.name
        own = await my_turn(sessions[mover], match_id, view.version - 1)
        after = await place_any(players[mover], own)
        placed += 1
        # The other player learns of the move by push, through their own gateway.
        view = await sessions[other].view_where(match_id, newer_than(after.version - 1))
        assert view.version == after.version
        if placed == 4:
            await bea_session.close()
            backend.backend.kill("gateway1")
            bea = on(bea, first)
            players[bea.name] = bea
            bea_session = await Session.open(bea)
            sessions[bea.name] = bea_session
            opened = bea_session.pushes[0].session_opened
            assert opened.active_match.match_id == match_id
            # The same board (her leaving and coming back are versions of their own).
            assert opened.active_match.version >= view.version
            assert opened.active_match.board == view.board
            view = opened.active_match
    assert placed == 9
    finals = [
        await s.view_where(match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED)
        for s in (ann_session, bea_session)
    ]
    assert finals[0].version == finals[1].version
    assert [c.SerializeToString() for c in finals[0].board] == [
        c.SerializeToString() for c in finals[1].board
    ]
    for session in (ann_session, bea_session):
        await session.close()
