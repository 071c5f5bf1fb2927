"""Races known to break game servers (issue 10, item 5), as players hit them, on sessions
and tokens in the middle of a match: a reconnect while the old stream is half open, an
access token expiring mid-match. Through the TLS gateway, every service a process on
real PostgreSQL and NATS, with the durations shortened by their settings.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import collect
from devtools.stack import Stack
from devtools.tcp_proxy import FreezableProxy
from devtools.terminal import Terminal
from tests.e2e.client_runs import Client, logged_in
from tests.e2e.races.race_players import (
    DISCONNECT_SECONDS,
    MARGIN,
    OPEN_TABLE,
    SHORT_TOKEN_MINUTES,
    Player,
    attend,
    code_of,
    join,
    mover_of,
    place,
    play_out,
    stop_attending,
    table_match,
)

pytestmark = pytest.mark.integration


# ---- a reconnect while the old stream is half-open --------------------------------


async def first_push(api: Any, me: Player) -> tuple[Any, g.OpenSessionResponse]:
    stream = api.OpenSession(g.OpenSessionRequest(), metadata=me.meta)
    async for push in stream:
        return stream, push
    raise AssertionError("the session sent nothing")


async def test_a_reconnect_while_the_old_stream_is_half_open_keeps_one_seat(
    backend: Stack, api: Any
) -> None:
    """Ann's session runs through a connection that then goes silent (half-open: no FIN).
    She reconnects on a new connection: the new stream's first push is the whole match;
    when the old connection finally dies, its late 'disconnected' changes nothing; after
    more than the disconnect grace she still holds her one seat and plays to the end."""
    rng = random.Random(11)
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    host, port = backend.gateway.address.split(":")
    proxy = FreezableProxy(host, int(port))
    address = await proxy.start()
    creds = backend.cert.read_bytes()
    async with grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(creds)) as old:
        old_stream, opened = await first_push(backend.api(old), ann)
        assert opened.session_opened.active_match.match_id == match_id
        proxy.freeze()  # the old connection goes silent, both ends still open
        await asyncio.sleep(0.5)
        new_stream, reopened = await first_push(api, ann)
        first = reopened.session_opened
        now = await ann.view(match_id)
        assert first.active_match.match_id == match_id
        # the whole view: the board and her hand as they stand (only presence events,
        # which change neither, may have moved the version since)
        assert list(first.active_match.board) == list(now.board)
        assert list(first.active_match.my_hand) == list(now.my_hand)
        assert len(first.active_match.players) == 2 and first.active_match.my_seat == now.my_seat
        # keep playing (each move late in its turn) past the grace, then let the old
        # connection die and play past the grace again
        await play_slowly((ann, bea), match_id, rng, DISCONNECT_SECONDS + 0.5)
        await proxy.drop()
        old_stream.cancel()
        await play_slowly((ann, bea), match_id, rng, DISCONNECT_SECONDS + 0.5)
        view = await ann.view(match_id)
        assert view.status == pb.MATCH_STATUS_IN_PROGRESS, view.outcome
        me = next(p for p in view.players if p.seat == view.my_seat)
        assert me.connected and [p.player_name for p in view.players].count(ann.name) == 1
        active = await ann.call("GetActiveMatch", g.GetActiveMatchRequest())
        assert active.view.match_id == match_id
        end = await play_out((ann, bea), match_id, rng)
        assert end.outcome.reason == pb.FINISH_REASON_BOARD_FULL
        new_stream.cancel()


async def play_slowly(
    players: tuple[Player, Player], match_id: str, rng: random.Random, seconds: float
) -> None:
    """Place each card MARGIN seconds before its turn ends, for ``seconds``: the match
    lasts, and no turn times out."""
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        mover, view = await mover_of(players, match_id)
        assert view.status == pb.MATCH_STATUS_IN_PROGRESS, view.outcome
        left = view.turn_deadline_time.ToDatetime().timestamp() - time.time()
        await asyncio.sleep(max(0.0, min(left - MARGIN, stop - time.monotonic())))
        if time.monotonic() < stop or left < MARGIN + 0.5:
            code, answer = await place(mover, view, rng)
            assert code == grpc.StatusCode.OK, answer


# ---- a token expiring mid-match ----------------------------------------------------


async def test_a_token_expiring_mid_match_is_refreshed_and_the_seat_kept(
    backend: Stack, api: Any
) -> None:
    """Ann's access token (from a gateway issuing 3.6-second tokens) expires mid-match:
    her session ends with TOKEN_EXPIRED and her calls are UNAUTHENTICATED; she refreshes
    and reopens, the new stream's first push is her match, and she plays it to the end
    in the same seat."""
    rng = random.Random(13)
    async with backend.channel(backend.gateways[1]) as short:
        short_api = backend.api(short)
        ann, bea = await join(short_api), await join(api)
        match_id = await table_match(ann, bea, OPEN_TABLE)
        seat = (await ann.view(match_id)).my_seat
        stream = short_api.OpenSession(g.OpenSessionRequest(), metadata=ann.meta)
        pushes = []
        async for push in stream:  # both keep playing while the token runs out
            pushes.append(push)
            if push.HasField("session_closed"):
                break
            # each card MARGIN seconds before its turn ends: the match outlasts the token
            # and no turn times out (Bea's token is a long one; Ann's may run out here)
            seen = await bea.view(match_id)
            assert seen.status == pb.MATCH_STATUS_IN_PROGRESS, seen.outcome
            if seen.turn_deadline_time.ToDatetime().timestamp() - time.time() < MARGIN:
                mover = bea if seen.turn_seat == seen.my_seat else ann
                code, view = await code_of(mover.view(match_id))
                if code == grpc.StatusCode.OK:
                    code, view = await place(mover, view, rng)
                assert code in (grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED), view
        assert pushes[-1].session_closed.reason == g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
        refused, details = await code_of(ann.view(match_id))
        assert refused == grpc.StatusCode.UNAUTHENTICATED and "expired" in details
        fresh = await short_api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.tokens = fresh.tokens
        reopened, opened = await first_push(short_api, ann)
        assert opened.session_opened.active_match.match_id == match_id
        assert opened.session_opened.active_match.my_seat == seat
        # The new token lasts seconds too; for the rest of the match Ann refreshes once
        # more through the other gateway, whose tokens last minutes (a slow machine
        # could otherwise outlast this one, too).
        longer = await api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.api, ann.tokens = api, longer.tokens
        await attend(ann)  # her session on the long token, before the short one ends
        reopened.cancel()
        end = await play_out((ann, bea), match_id, rng)
        assert end.my_seat == seat and end.outcome.reason != pb.FINISH_REASON_DISCONNECT


async def expired_while_watched(
    short_api: Any, api: Any
) -> tuple[Player, Player, str, list[g.OpenSessionResponse], asyncio.Task[None]]:
    """Ann (on the short-token gateway) and Bea at a match, Bea's pushes collected while
    Ann's session runs until her token expires (the turns outlast it: nobody places)."""
    ann, bea = await join(short_api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    watched: list[g.OpenSessionResponse] = []
    watching = asyncio.create_task(collect(api, bea.tokens, watched))
    last = None
    async for last in short_api.OpenSession(g.OpenSessionRequest(), metadata=ann.meta):
        if last.HasField("session_closed"):
            break
    assert last is not None
    assert last.session_closed.reason == g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
    return ann, bea, match_id, watched, watching


async def test_a_token_refreshed_as_it_expires_shows_no_absence_to_the_opponent(
    backend: Stack, api: Any
) -> None:
    """Ann's session ends with TOKEN_EXPIRED; her client refreshes and reopens at once, as
    gateway.proto asks. Bea, watching, is told nothing: no 'lost their connection' every
    token lifetime for a player who never left."""
    async with backend.channel(backend.gateways[1]) as short:
        short_api = backend.api(short)
        ann, _, match_id, watched, watching = await expired_while_watched(short_api, api)
        fresh = await short_api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.tokens = fresh.tokens
        reopened, opened = await first_push(short_api, ann)
        assert opened.session_opened.active_match.match_id == match_id
        await asyncio.sleep(DISCONNECT_SECONDS / 2)  # what a report of her absence would show
        reopened.cancel()
        watching.cancel()
        assert watched[0].session_opened.active_match.match_id == match_id
        views = [p.match_view for p in watched if p.HasField("match_view")]
        seen = [(p.player_name, p.connected) for view in views for p in view.players]
        assert (ann.name, False) not in seen
        notices = [p.notice.code for p in watched if p.HasField("notice")]
        assert "OPPONENT_DISCONNECTED" not in notices and "OPPONENT_RECONNECTED" not in notices


async def test_a_player_whose_token_expired_and_who_does_not_reopen_is_reported_away(
    backend: Stack, api: Any
) -> None:
    """The other side of the test above: Ann's session ends with TOKEN_EXPIRED and she
    opens no other (she still places through calls, on a refreshed token). A few seconds
    on, Bea is told Ann lost her connection, and the disconnect grace runs."""
    rng = random.Random(17)
    async with backend.channel(backend.gateways[1]) as short:
        short_api = backend.api(short)
        ann, bea, match_id, watched, watching = await expired_while_watched(short_api, api)
        fresh = await api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.api, ann.tokens = api, fresh.tokens
        await play_slowly((ann, bea), match_id, rng, DISCONNECT_SECONDS * 2 + 1)
        watching.cancel()
        notices = [p.notice for p in watched if p.HasField("notice")]
        assert [n for n in notices if n.code == "OPPONENT_DISCONNECTED" and ann.name in n.message]
        view = await bea.view(match_id)
        assert [p.connected for p in view.players if p.player_name == ann.name] == [False]


async def test_a_match_lost_while_away_is_told_to_the_next_session_once(
    backend: Stack, api: Any
) -> None:
    """Ann's session ends mid-match and she stays away past the disconnect grace: she
    forfeits (RULES.md 5). Her next session opens with that match's final view and a
    notice in words; the one after, and Bea's (she was there), with neither."""
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    await stop_attending()  # both sessions end: Ann stays away, Bea comes back at once
    await attend(bea)
    deadline = time.monotonic() + 20
    while (view := await bea.view(match_id)).status == pb.MATCH_STATUS_IN_PROGRESS:
        assert time.monotonic() < deadline, "Ann never forfeited"
        await asyncio.sleep(0.2)
    assert view.outcome.reason == pb.FINISH_REASON_DISCONNECT
    # the end shows her gone, as she was (it showed her connected)
    assert [p.connected for p in view.players if p.player_name == ann.name] == [False]
    stream, opened = await first_push(api, ann)
    missed = opened.session_opened.missed_match
    assert missed.match_id == match_id and missed.status == pb.MATCH_STATUS_FINISHED
    assert missed.outcome.winner_seat != missed.my_seat
    notice = (await anext(aiter(stream))).notice
    assert notice.code == "MATCH_ENDED_AWAY" and notice.subject_id == match_id
    assert notice.message == (
        f"Your match against {bea.name} ended while you were away: you lost, "
        "by a disconnection past the grace."
    )
    stream.cancel()
    again, reopened = await first_push(api, ann)
    again.cancel()
    assert not reopened.session_opened.HasField("missed_match")
    bea_again, hers = await first_push(api, bea)
    bea_again.cancel()
    assert not hers.session_opened.HasField("missed_match")


async def test_the_terminal_client_outlives_its_access_token(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """Found from outside: every live screen of `triad-client` ended when the access
    token expired ("Session closed: your access token expired"), mid-match too, and
    `play` could not resume until another command refreshed it. Queued through the
    gateway whose tokens last 3.6 s, the screen waits on for three lifetimes."""
    async with backend.channel(backend.gateways[1]) as short:
        ann = await join(backend.api(short))
    state = tmp_path / "state.json"
    logged_in(state, ann.id, ann.name, ann.tokens)
    argv = [*Client(backend, state, backend.gateways[1].address).argv, "queue", "--mode", "ranked"]
    terminal = Terminal(argv, {})
    try:
        await terminal.until(lambda s: "In the Ranked queue" in s, "the queue")
        await asyncio.sleep(SHORT_TOKEN_MINUTES * 60 * 3)
        assert terminal.process.poll() is None, terminal.text()
        assert "Session closed" not in terminal.text(), terminal.text()
        await terminal.until(lambda s: "In the Ranked queue" in s, "the queue still")
        terminal.type("\x03")
        await terminal.until(lambda s: "Left the queue." in s, "leaving the queue")
    finally:
        terminal.close()


async def test_a_match_that_ends_while_a_token_is_being_refreshed_is_told_on_reopening(
    backend: Stack, api: Any
) -> None:
    """Found from outside: Ann's session ended with TOKEN_EXPIRED, Bea forfeited in the
    seconds Ann's client took to refresh, and Ann's next session showed no match at all:
    she was still counted connected then, so the match was not recorded as missed."""
    async with backend.channel(backend.gateways[1]) as short:
        short_api = backend.api(short)
        ann, bea, match_id, _, watching = await expired_while_watched(short_api, api)
        watching.cancel()
        await bea.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
        await asyncio.sleep(1)  # Ann's client refreshes meanwhile
        fresh = await short_api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.tokens = fresh.tokens
        reopened, opened = await first_push(short_api, ann)
        reopened.cancel()
    missed = opened.session_opened.missed_match
    assert missed.match_id == match_id and missed.outcome.winner_seat == missed.my_seat
