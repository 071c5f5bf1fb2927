"""The gateway as a player meets it: TLS, accounts and tokens, a whole match through
the public API with views pushed on each player's session stream, and hostile input.

The match service and the gateway run as separate processes on real PostgreSQL.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc, match_pb2_grpc

from devtools.devcert import ensure_dev_certificate
from devtools.match_client import create_request
from devtools.players import PASSWORD, SECRET, bearer, collect, expect
from devtools.processes import Service, free_port

pytestmark = pytest.mark.integration


def match_and_gateway(
    database_url: str, nats_url: str, directory: Path
) -> tuple[Service, Service, Path]:
    """The match service and the gateway as processes (not started), in schemas of
    their own, and the gateway's certificate."""
    schema = uuid4().hex[:10]
    match_port, gateway_port = free_port(), free_port()
    match = Service(
        "services.match.main",
        {
            "TRIAD_DATABASE_URL": database_url,
            "TRIAD_NATS_URL": nats_url,  # the views it pushes to the players' sessions
            "TRIAD_MATCH_SCHEMA": f"match_{schema}",
            "TRIAD_MATCH_PORT": str(match_port),
            "TRIAD_MATCH_METRICS_PORT": "0",
            "TRIAD_DISCONNECT_SECONDS": "1.5",
        },
        match_port,
        directory / "match.log",
    )
    cert, key = ensure_dev_certificate(directory / "tls")
    gateway = Service(
        "gateway.main",
        {
            "TRIAD_DATABASE_URL": database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_GATEWAY_SCHEMA": f"gateway_{schema}",
            "TRIAD_GATEWAY_PORT": str(gateway_port),
            "TRIAD_GATEWAY_METRICS_PORT": "0",
            "TRIAD_TOKEN_SECRET": SECRET,
            "TRIAD_GATEWAY_TLS_CERT": str(cert),
            "TRIAD_GATEWAY_TLS_KEY": str(key),
            "TRIAD_MATCH_ADDR": f"127.0.0.1:{match_port}",
            "TRIAD_HEARTBEAT_SECONDS": "0.2",
            "TRIAD_RATE_PER_SECOND": "50",
            "TRIAD_RATE_BURST": "60",
            "TRIAD_REGISTRATIONS_PER_MINUTE": "100000",
            "TRIAD_REGISTRATION_BURST": "100000",
        },
        gateway_port,
        directory / "gateway.log",
        root_certificates=cert.read_bytes(),
    )
    return match, gateway, cert


@pytest.fixture
def backend(shared_database_url: str, nats_url: str, tmp_path: Path) -> Iterator[dict[str, Any]]:
    match, gateway, cert = match_and_gateway(shared_database_url, nats_url, tmp_path)
    match.start()
    gateway.start()
    yield {"match": match, "gateway": gateway, "cert": cert}
    assert gateway.stop() == 0, gateway.log.read_text()[-2000:]
    assert match.stop() == 0, match.log.read_text()[-2000:]


@pytest.fixture
async def api(backend: dict[str, Any]) -> AsyncIterator[gateway_pb2_grpc.TriadGatewayAsyncStub]:
    creds = grpc.ssl_channel_credentials(root_certificates=backend["cert"].read_bytes())
    async with grpc.aio.secure_channel(backend["gateway"].address, creds) as channel:
        yield gateway_pb2_grpc.TriadGatewayStub(channel)


@pytest.fixture
async def internal(
    backend: dict[str, Any],
) -> AsyncIterator[match_pb2_grpc.MatchServiceAsyncStub]:
    async with grpc.aio.insecure_channel(backend["match"].address) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)


async def register(api: Any, name: str | None = None) -> g.RegisterResponse:
    name = name or f"p{uuid4().hex[:10]}"
    reply: g.RegisterResponse = await api.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    )
    return reply


async def test_accounts_tokens_and_their_refusals(api: Any) -> None:
    ann = await register(api, f"Ann{uuid4().hex[:6]}")
    name = ann.player.player_name
    await expect(grpc.StatusCode.ALREADY_EXISTS, register(api, name.upper()), "taken")
    for bad_name, bad_password in (("x", PASSWORD), ("[BOT]Ann", PASSWORD), ("okname", "short")):
        await expect(
            grpc.StatusCode.INVALID_ARGUMENT,
            api.Register(
                g.RegisterRequest(request_id="r1", player_name=bad_name, password=bad_password)
            ),
        )
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        api.Login(g.LoginRequest(request_id="l1", player_name=name, password="wrong password!")),
        "unknown player name or wrong password",
    )
    login = await api.Login(g.LoginRequest(request_id="l2", player_name=name, password=PASSWORD))
    me = await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(login.tokens))
    assert me.status.player.player_id == ann.player.player_id

    # refresh rotates: a retry with the same request id gets the same pair, the old
    # token cannot be spent again
    first = await api.RefreshToken(
        g.RefreshTokenRequest(request_id="f1", refresh_token=login.tokens.refresh_token)
    )
    again = await api.RefreshToken(
        g.RefreshTokenRequest(request_id="f1", refresh_token=login.tokens.refresh_token)
    )
    assert again.tokens == first.tokens
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        api.RefreshToken(
            g.RefreshTokenRequest(request_id="f2", refresh_token=login.tokens.refresh_token)
        ),
    )
    await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(first.tokens))

    # logout revokes
    await api.Logout(g.LogoutRequest(request_id="o1"), metadata=bearer(first.tokens))
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(first.tokens)),
        "revoked",
    )


async def test_missing_forged_and_expired_tokens_are_unauthenticated(api: Any) -> None:
    ann = await register(api)
    call = api.GetActiveMatch
    await expect(grpc.StatusCode.UNAUTHENTICATED, call(g.GetActiveMatchRequest()), "Bearer")
    token = ann.tokens.access_token
    version, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["sub"] = "someone-else"
    forged_body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    for bad in (f"{version}.{forged_body}.{signature}", "garbage", token[:-2] + "AA"):
        await expect(
            grpc.StatusCode.UNAUTHENTICATED,
            call(g.GetActiveMatchRequest(), metadata=(("authorization", f"Bearer {bad}"),)),
        )
    from datetime import UTC, datetime, timedelta

    from gateway.accounts import TokenSigner

    expired = (
        TokenSigner(SECRET.encode())
        .issue(ann.player.player_id, ann.player.player_name, datetime.now(UTC) - timedelta(hours=1))
        .token
    )
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        call(g.GetActiveMatchRequest(), metadata=(("authorization", f"Bearer {expired}"),)),
        "expired",
    )


async def test_services_not_configured_here_are_unavailable(api: Any) -> None:
    """This backend has no collection, rating or matchmaker: their RPCs say so, and what
    the gateway does itself (accounts, status) goes on without them."""
    ann = await register(api)
    for what, pending in (
        ("collection", api.ListCatalog(g.ListCatalogRequest(), metadata=bearer(ann.tokens))),
        ("collection", api.GetBalance(g.GetBalanceRequest(), metadata=bearer(ann.tokens))),
        (
            "rating",
            api.GetRating(
                g.GetRatingRequest(ladder=pb.LadderKey(ladder=pb.LADDER_RANKED)),
                metadata=bearer(ann.tokens),
            ),
        ),
        (
            "matchmaker",
            api.CancelTicket(
                g.CancelTicketRequest(request_id="c1", ticket_id="t"),
                metadata=bearer(ann.tokens),
            ),
        ),
    ):
        await expect(grpc.StatusCode.UNAVAILABLE, pending, f"{what} service is not configured")
    status = await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(ann.tokens))
    assert status.status.player.player_id == ann.player.player_id
    assert not status.status.HasField("balance") and not status.status.obligations


def last_view(pushes: list[g.OpenSessionResponse], match_id: str) -> pb.MatchView | None:
    views = [p.match_view for p in pushes if p.HasField("match_view")]
    views += [
        p.session_opened.active_match
        for p in pushes
        if p.HasField("session_opened") and p.session_opened.HasField("active_match")
    ]
    mine = [v for v in views if v.match_id == match_id]
    return max(mine, key=lambda v: v.version) if mine else None


async def test_two_players_play_a_whole_match_through_the_gateway(
    api: Any, internal: match_pb2_grpc.MatchServiceAsyncStub
) -> None:
    ann, bea = await register(api), await register(api)
    players = {ann.player.player_id: ann, bea.player.player_id: bea}
    pushes: dict[str, list[g.OpenSessionResponse]] = {pid: [] for pid in players}
    sessions = [
        asyncio.create_task(collect(api, players[pid].tokens, pushes[pid])) for pid in players
    ]
    while not all(pushes.values()):  # both sessions open before the match is found
        await asyncio.sleep(0.01)
    match_id = str(uuid4())
    create = create_request(
        match_id, pb.VISIBILITY_CLOSED, (ann.player.player_id, bea.player.player_id)
    )
    await internal.CreateMatch(create)
    decks = {s.player.player_id: {c.card_id for c in s.deck} for s in create.seats}

    for _ in range(200):
        views = {pid: last_view(pushes[pid], match_id) for pid in players}
        if all(v is not None and v.status == pb.MATCH_STATUS_FINISHED for v in views.values()):
            break
        for pid, view in views.items():
            if view is None or view.status == pb.MATCH_STATUS_FINISHED:
                continue
            if view.turn_seat != view.my_seat:
                continue
            empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
            await api.PlaceCard(
                g.PlaceCardRequest(
                    request_id=f"{pid}-{view.version}",
                    match_id=match_id,
                    card_id=view.my_hand[0].card.card_id,
                    cell=empty[0],
                ),
                metadata=bearer(players[pid].tokens),
            )
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the match did not finish through the session streams")

    for pid in players:
        other = next(p for p in players if p != pid)
        seen = [p.match_view for p in pushes[pid] if p.HasField("match_view")]
        assert seen, "views are pushed on the session stream"
        assert any(p.HasField("match_found") for p in pushes[pid])
        for view in seen:
            on_board = {
                c.card.card.card_id for c in view.board if c.WhichOneof("content") == "card"
            }
            raw = view.SerializeToString()
            for secret in decks[other] - on_board:
                assert secret.encode() not in raw  # Closed: never an unplayed opposing card
    # a stranger sees nothing of it
    cai = await register(api)
    await expect(
        grpc.StatusCode.NOT_FOUND,
        api.GetMatchView(g.GetMatchViewRequest(match_id=match_id), metadata=bearer(cai.tokens)),
    )
    for task in sessions:
        task.cancel()


async def test_a_new_session_replaces_the_old_one(api: Any) -> None:
    ann = await register(api)
    first: list[g.OpenSessionResponse] = []
    old = asyncio.create_task(collect(api, ann.tokens, first))
    while not first:
        await asyncio.sleep(0.01)
    second: list[g.OpenSessionResponse] = []
    new = asyncio.create_task(collect(api, ann.tokens, second))
    await asyncio.wait_for(old, 5)
    assert first[-1].session_closed.reason == g.SESSION_CLOSE_REASON_REPLACED
    assert [p.sequence for p in first] == list(range(1, len(first) + 1))
    new.cancel()


async def test_leaving_the_session_forfeits_after_the_grace(
    api: Any, internal: match_pb2_grpc.MatchServiceAsyncStub
) -> None:
    ann, bea = await register(api), await register(api)
    pushes: list[g.OpenSessionResponse] = []
    session = asyncio.create_task(collect(api, ann.tokens, pushes))
    while not pushes:
        await asyncio.sleep(0.01)
    match_id = str(uuid4())
    await internal.CreateMatch(
        create_request(
            match_id, pb.VISIBILITY_THREE_OPEN, (ann.player.player_id, bea.player.player_id)
        )
    )
    while last_view(pushes, match_id) is None:
        await asyncio.sleep(0.02)
    session.cancel()  # Ann's connection goes away
    for _ in range(100):
        view = (
            await api.GetMatchView(
                g.GetMatchViewRequest(match_id=match_id), metadata=bearer(bea.tokens)
            )
        ).view
        if view.status == pb.MATCH_STATUS_FINISHED:
            break
        await asyncio.sleep(0.1)
    assert view.outcome.reason == pb.FINISH_REASON_DISCONNECT


async def test_too_many_requests_and_oversized_messages_are_refused(api: Any) -> None:
    ann = await register(api)
    results = await asyncio.gather(
        *(
            api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(ann.tokens))
            for _ in range(120)
        ),
        return_exceptions=True,
    )
    limited = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert limited and all(r.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for r in limited)
    await asyncio.sleep(1.5)
    await expect(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        api.PlaceCard(
            g.PlaceCardRequest(request_id="big", match_id="x" * 2_000_000, card_id="c", cell=0),
            metadata=bearer(ann.tokens),
        ),
    )


async def test_password_guessing_is_slowed_per_player_name(api: Any) -> None:
    """After the burst of wrong passwords (10) a name is refused before its password is
    even checked, the right one included; another name is not affected."""

    def login(name: str, password: str) -> Any:
        return api.Login(
            g.LoginRequest(request_id=uuid4().hex, player_name=name, password=password)
        )

    ann, bob = await register(api), await register(api)
    for _ in range(10):
        await expect(grpc.StatusCode.UNAUTHENTICATED, login(ann.player.player_name, "guess" * 3))
    await expect(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        login(ann.player.player_name, PASSWORD),
        "too many wrong passwords",
    )
    again = await login(bob.player.player_name, PASSWORD)
    assert again.player.player_id == bob.player.player_id


async def test_the_terminal_client_plays_through_its_subcommands(
    backend: dict[str, Any], internal: match_pb2_grpc.MatchServiceAsyncStub, tmp_path: Path
) -> None:
    import subprocess
    import sys

    base = [
        sys.executable,
        "-m",
        "client.main",
        "--addr",
        backend["gateway"].address,
        "--ca",
        str(backend["cert"]),
        "--state",
        str(tmp_path / "state.json"),
        "--json",
    ]

    def client(profile: str, *args: str) -> dict[str, Any]:
        run = subprocess.run(
            [*base, "--profile", profile, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env={**__import__("os").environ, "TRIAD_PASSWORD": PASSWORD},
        )
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout) if run.stdout.strip() else {}

    names = [f"cli{uuid4().hex[:8]}", f"cli{uuid4().hex[:8]}"]
    ids = [client(f"p{i}", "register", name)["playerId"] for i, name in enumerate(names)]
    assert client("p0", "status")["player"]["playerName"] == names[0]
    # Both watch their session (without one a player counts as disconnected from the
    # match, and this backend's grace is short)
    watching = [
        subprocess.Popen(
            [*base, "--profile", f"p{i}", "watch"],
            stdout=subprocess.PIPE,
            text=True,
            env={**__import__("os").environ, "TRIAD_PASSWORD": PASSWORD},
        )
        for i in range(2)
    ]
    try:
        for watcher in watching:
            assert watcher.stdout is not None and "sessionOpened" in watcher.stdout.readline()
        match_id = str(uuid4())
        await internal.CreateMatch(
            create_request(match_id, pb.VISIBILITY_THREE_OPEN, (ids[0], ids[1]))
        )
        view = client("p0", "active")
        assert view["matchId"] == match_id
        mover = 0 if view["turnSeat"] == view["mySeat"] else 1
        placed = client(f"p{mover}", "place", match_id, "0", "4")
        assert placed["lastPlacement"]["cell"] == 4
        assert int(placed["version"]) == 2
        refused = subprocess.run(
            [*base, "--profile", f"p{mover}", "place", match_id, "0", "4"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert (
            refused.returncode == 1 and "failed precondition: it is not your turn" in refused.stderr
        )
    finally:
        for watcher in watching:
            watcher.terminate()
            watcher.wait(10)
