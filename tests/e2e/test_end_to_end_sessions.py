"""End to end, as players use the game: every service a separate process on real
PostgreSQL and NATS, and the tests speak only the public API over TLS.

The session stream shows the queue as it goes: the ticket waiting, cancelled and paired,
and a Draft pairing told as the match found with its draft. A placement that names its
client's session is answered with the view and not pushed back on that session.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.request
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import bearer
from devtools.stack import Stack
from tests.e2e.end_to_end import enqueue, open_session, pushed, queue_statuses, register
from tests.e2e.sessions import OPEN_TABLE, Session, join, mover, place_any, table_match

pytestmark = pytest.mark.integration


async def test_the_session_stream_shows_the_ticket_waiting_cancelled_and_paired(
    api: Any,
) -> None:
    ann, bea = await register(api), await register(api)
    (ann_pushes, ann_session), (bea_pushes, bea_session) = (
        await open_session(api, ann),
        await open_session(api, bea),
    )

    first = await enqueue(api, ann, pb.MODE_RANKED)
    waiting = (
        await pushed(
            ann_pushes,
            lambda p: p.queue_status.ticket.ticket_id == first.ticket_id,
            "the queued ticket",
        )
    ).queue_status
    assert waiting.ticket.mode == pb.MODE_RANKED
    assert waiting.ticket.status == pb.TICKET_STATUS_QUEUED
    assert waiting.HasField("wait_duration") and waiting.queue_length >= 1
    assert waiting.rating_window >= 50  # Ranked pairs within a window that starts at 50
    assert waiting.practice_available and not waiting.HasField("bot_fill_delay")

    await api.CancelTicket(
        g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=first.ticket_id),
        metadata=bearer(ann.tokens),
    )
    await pushed(
        ann_pushes,
        lambda p: (
            p.queue_status.ticket.ticket_id == first.ticket_id
            and p.queue_status.ticket.status == pb.TICKET_STATUS_CANCELLED
        ),
        "the ticket cancelled",
    )

    tickets = {ann.player.player_id: await enqueue(api, ann, pb.MODE_RANKED)}
    tickets[bea.player.player_id] = await enqueue(api, bea, pb.MODE_RANKED)
    match_ids = set()
    for me, pushes, other in ((ann, ann_pushes, bea), (bea, bea_pushes, ann)):
        ticket_id = tickets[me.player.player_id].ticket_id
        paired = (
            await pushed(
                pushes,
                lambda p, t=ticket_id: (
                    p.queue_status.ticket.ticket_id == t
                    and p.queue_status.ticket.status == pb.TICKET_STATUS_PAIRED
                ),
                "the ticket paired",
            )
        ).queue_status
        assert paired.ticket.match_id
        match_ids.add(paired.ticket.match_id)
        found = (
            await pushed(
                pushes,
                lambda p, m=paired.ticket.match_id: p.match_found.match_id == m,
                "the match found",
            )
        ).match_found
        assert found.mode == pb.MODE_RANKED and not found.opponent_is_bot
        assert found.opponent_name == other.player.player_name
    assert len(match_ids) == 1, "the two tickets were paired with each other"

    # Every end is told once, though the queue is looked at again and again.
    await asyncio.sleep(2.5)
    ended = [
        s.ticket.status
        for s in queue_statuses(ann_pushes, first.ticket_id)
        if s.ticket.status != pb.TICKET_STATUS_QUEUED
    ]
    assert ended == [pb.TICKET_STATUS_CANCELLED]
    for me, pushes in ((ann, ann_pushes), (bea, bea_pushes)):
        statuses = queue_statuses(pushes, tickets[me.player.player_id].ticket_id)
        assert [s.ticket.status for s in statuses].count(pb.TICKET_STATUS_PAIRED) == 1
        assert sum(p.HasField("match_found") for p in pushes) == 1

    await api.Forfeit(
        g.ForfeitRequest(request_id=uuid4().hex, match_id=match_ids.pop()),
        metadata=bearer(ann.tokens),
    )
    ann_session.cancel()
    bea_session.cancel()


async def test_a_draft_pairing_is_told_as_the_match_found_with_its_draft(api: Any) -> None:
    ann, bea = await register(api), await register(api)
    (ann_pushes, ann_session), (bea_pushes, bea_session) = (
        await open_session(api, ann),
        await open_session(api, bea),
    )
    for me in (ann, bea):  # Draft decks are drafted after pairing: no deck
        await api.Enqueue(
            g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_DRAFT),
            metadata=bearer(me.tokens),
        )
    drafts = set()
    for pushes, other in ((ann_pushes, bea), (bea_pushes, ann)):
        paired = (
            await pushed(
                pushes,
                lambda p: p.queue_status.ticket.status == pb.TICKET_STATUS_PAIRED,
                "the Draft ticket paired",
            )
        ).queue_status.ticket
        assert paired.mode == pb.MODE_DRAFT and paired.draft_id
        found = (
            await pushed(pushes, lambda p: p.HasField("match_found"), "the draft found")
        ).match_found
        assert found.mode == pb.MODE_DRAFT and found.draft_id == paired.draft_id
        assert found.opponent_name == other.player.player_name and not found.opponent_is_bot
        drafts.add(found.draft_id)
    assert len(drafts) == 1, "the two players draft together"
    ann_session.cancel()
    bea_session.cancel()


def open_sessions(backend: Stack) -> float:
    """The gateway's triad_gateway_sessions, scraped."""
    address = backend.backend.metrics_address("gateway")
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    (value,) = re.findall(r"^triad_gateway_sessions (\S+)$", text, re.MULTILINE)
    return float(value)


async def settled_sessions(backend: Stack) -> float:
    """The count once the sessions an earlier test cancelled have ended (their ends reach
    the gateway a moment later): the same for a second, or after 10 s whatever it is."""
    now, steady_since, give_up = open_sessions(backend), time.monotonic(), time.monotonic() + 10
    while time.monotonic() - steady_since < 1.0 and time.monotonic() < give_up:
        await asyncio.sleep(0.1)
        latest = open_sessions(backend)
        if latest != now:
            now, steady_since = latest, time.monotonic()
    return now


async def test_the_gateway_counts_the_session_streams_open(backend: Stack, api: Any) -> None:
    """Found from outside: the Overview dashboard's "Open player sessions" panel asked
    for triad_gateway_sessions, which nothing exported (no data, ever)."""
    before = await settled_sessions(backend)
    player = await join(api)
    session = await Session.open(player)
    try:
        assert open_sessions(backend) == before + 1
    finally:
        await session.close()
    for _ in range(50):  # the stream's end reaches the gateway a moment later
        if open_sessions(backend) == before:
            break
        await asyncio.sleep(0.1)
    assert open_sessions(backend) == before


async def test_the_session_announces_its_heartbeat_interval_as_it_is(api: Any) -> None:
    """Found from outside: heartbeats every 0.5 s (this backend's setting) were
    announced as "0 s", so a client counting missed heartbeats reopened for ever."""
    session = await Session.open(await join(api))
    try:
        opened = await session.wait_for(lambda p: p.HasField("session_opened"))
        interval = opened.session_opened.heartbeat_interval.ToTimedelta().total_seconds()
        assert interval == 0.5
    finally:
        await session.close()


ZEROED = {
    "match": 'triad_forfeits_total{reason="disconnect"}',
    "matchmaker": 'triad_matchmaker_cancels_total{mode="battle",reason="pairing_failed"}',
    "collection": 'triad_auction_listings_total{event="expired"}',
    "rating": 'triad_rating_results_ignored_total{reason="no_id"}',
    "battle": 'triad_battles_finished_total{reason="disconnect"}',
}
"""A series of each service that nothing in this module counts."""


def test_every_outcome_a_dashboard_shows_is_exported_before_it_first_happens(
    backend: Stack,
) -> None:
    """Found from outside: twelve labelled counters showed "No data" on the dashboards
    until their first increment, and rate() missed that first one (a series born at 1)."""
    for service, series in ZEROED.items():
        address = backend.backend.metrics_address(service)
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as reply:
            text = reply.read().decode()
        name, _, labels = series.partition("{")
        assert re.search(rf"^{name}\{{{re.escape(labels)} \S+$", text, re.MULTILINE), series
        if service == "collection":  # no trade waits past its deadline here
            assert re.search(r"^triad_trade_overdue_seconds 0\.0$", text, re.MULTILINE)


async def test_the_gateway_logs_accounts_registered_logins_refused_and_logouts(
    backend: Stack, api: Any
) -> None:
    """Found from outside: the gateway logged nothing of its players, so an operator
    asked "who logged in to this account, from where" found nothing."""
    ann = await register(api)
    name = ann.player.player_name
    with pytest.raises(Exception, match="wrong password"):
        await api.Login(
            g.LoginRequest(request_id=uuid4().hex, player_name=name, password="not-the-password")
        )
    await api.Logout(g.LogoutRequest(request_id=uuid4().hex), metadata=bearer(ann.tokens))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = [json.loads(line) for line in backend.logs()["gateway"].splitlines()]
        mine = {
            e["event"]: e
            for e in lines
            if e.get("player_id") == ann.player.player_id or e.get("player_name") == name
        }
        if "player logged out" in mine:
            break
        await asyncio.sleep(0.2)
    assert mine["player registered"]["player_id"] == ann.player.player_id
    assert mine["player registered"]["address"] == "127.0.0.1"
    refused = mine["login refused"]
    assert (refused["player_name"], refused["known"]) == (name, True)
    assert "not-the-password" not in backend.logs()["gateway"]
    assert mine["player logged out"]["all_sessions"] is False


def match_versions(session: Session, match_id: str) -> list[int]:
    """The versions of the match's views the session pushed, in order."""
    shown = (p.match_view for p in session.pushes if p.HasField("match_view"))
    return [v.version for v in shown if v.match_id == match_id]


async def test_a_placement_naming_its_session_is_not_pushed_back_on_it(api: Any) -> None:
    """Issue 18: the placer received the same version twice, in the reply and on its
    session. Naming the session (as both clients do) leaves the reply alone to carry
    it; the opponent is pushed it as always, and a session named by another player
    changes nothing."""
    ann, bea = await join(api), await join(api)
    sessions = {ann.name: await Session.open(ann), bea.name: await Session.open(bea)}
    try:
        match_id = await table_match(ann, bea, OPEN_TABLE)
        for session in sessions.values():
            await session.attached(match_id)
        first, second = await mover((ann, bea), match_id)
        own, other = sessions[first.name], sessions[second.name]
        mine = own.pushes[0].session_opened.session_id
        theirs = other.pushes[0].session_opened.session_id

        placed = await place_any(first, await first.view(match_id), session_id=mine)
        await other.view_where(match_id, lambda v: v.version == placed.version)
        answer = await place_any(second, await second.view(match_id))  # no session named
        await own.view_where(match_id, lambda v: v.version == answer.version)
        await other.view_where(match_id, lambda v: v.version == answer.version)
        assert placed.version not in match_versions(own, match_id), match_versions(own, match_id)

        # Another player's session named: ignored, the placer's own is pushed the view.
        forged = await place_any(first, await first.view(match_id), session_id=theirs)
        await own.view_where(match_id, lambda v: v.version == forged.version)
        await other.view_where(match_id, lambda v: v.version == forged.version)
    finally:
        for session in sessions.values():
            await session.close()
