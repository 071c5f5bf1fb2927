"""Information and identity (issue 10, item 4), through the TLS gateway with every service
a process on real PostgreSQL and NATS: accounts, tokens and transport.

- Nobody queues with another player's deck.
- Tokens: forged with a wrong key, altered claims, ``alg``/version tricks, expired and
  revoked tokens are refused on every RPC by tests/e2e/hostile/test_hostile_requests.py
  (and tests/integration/gateway/test_gateway_accounts.py
  ``test_missing_forged_and_expired_tokens_are_unauthenticated``); here, what a logout
  does to an open session stream and to the refresh token; and that a login right after
  a logout everywhere gives tokens that work (they are issued after it, even within the
  same second), and that a logout retried under its request id with those tokens does not
  log them out as well.
- Production refuses plaintext: the gateway process will not start.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, SECRET
from devtools.processes import ROOT
from devtools.stack import Stack
from tests.e2e.identity.identity_players import join

pytestmark = pytest.mark.integration


async def test_nobody_queues_with_another_players_deck(api: Any) -> None:
    """Enqueue checks the deck when it is called: another player's deck is NOT_FOUND,
    exactly as if it did not exist, and no ticket is made (it was accepted, and only
    the pairing failed on it)."""
    ann, bea = await join(api), await join(api)
    copies = await ann.ask("ListCollection", g.ListCollectionRequest())
    deck = await ann.ask(
        "SaveDeck",
        g.SaveDeckRequest(
            request_id=uuid4().hex,
            name="Mine",
            copy_ids=[e.copy.copy_id for e in copies.entries][:5],
        ),
    )
    for mode in (pb.MODE_RANKED, pb.MODE_UNRANKED):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bea.ask(
                "Enqueue",
                g.EnqueueRequest(
                    request_id=uuid4().hex,
                    mode=mode,  # type: ignore[arg-type]
                    deck=pb.DeckChoice(deck_id=deck.deck.deck_id),
                ),
            )
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND, refused.value.details()
        assert ann.id not in (refused.value.details() or "")
    status = await bea.ask("GetPlayerStatus", g.GetPlayerStatusRequest())
    assert not status.status.HasField("ticket")


async def test_a_logout_ends_the_session_stream_and_spends_the_refresh_token(api: Any) -> None:
    ann = await join(api)
    session = asyncio.create_task(ann.listen())
    while not ann.heard:
        await asyncio.sleep(0.02)
    await api.Logout(g.LogoutRequest(request_id=uuid4().hex), metadata=ann.meta, timeout=10)
    await asyncio.wait_for(session, 15)
    closed = g.OpenSessionResponse.FromString(ann.heard[-1].data)
    assert closed.session_closed.reason == g.SESSION_CLOSE_REASON_LOGGED_OUT
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await ann.listen()
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as spent:
        await api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
    assert spent.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_a_login_right_after_logging_out_everywhere_gives_working_tokens(
    api: Any,
) -> None:
    ann = await join(api)
    for _ in range(3):  # a logout and a login a few milliseconds apart, whatever the second
        await api.Logout(
            g.LogoutRequest(request_id=uuid4().hex, all_sessions=True), metadata=ann.meta
        )
        login = await api.Login(
            g.LoginRequest(request_id=uuid4().hex, player_name=ann.name, password=PASSWORD)
        )
        ann.tokens = login.tokens
        balance = await ann.ask("GetBalance", g.GetBalanceRequest())
        assert balance.balance.coins > 0
        refreshed = await api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.tokens = refreshed.tokens
        await ann.ask("GetBalance", g.GetBalanceRequest())


async def test_a_logout_retried_after_logging_back_in_acts_no_second_time(api: Any) -> None:
    ann = await join(api)
    logout = g.LogoutRequest(request_id=uuid4().hex, all_sessions=True)
    await api.Logout(logout, metadata=ann.meta)
    await asyncio.sleep(1.1)  # the new tokens come a whole second after the logout
    login = await api.Login(
        g.LoginRequest(request_id=uuid4().hex, player_name=ann.name, password=PASSWORD)
    )
    ann.tokens = login.tokens
    await api.Logout(logout, metadata=ann.meta)  # a retry: the first answer, nothing done
    await ann.ask("GetBalance", g.GetBalanceRequest())
    with pytest.raises(grpc.aio.AioRpcError) as reused:
        await api.Logout(
            g.LogoutRequest(request_id=logout.request_id, all_sessions=False), metadata=ann.meta
        )
    assert reused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    await ann.ask("GetBalance", g.GetBalanceRequest())


def test_production_refuses_plaintext(shared_database_url: str, backend: Stack) -> None:
    """TRIAD_ENV=production with TRIAD_GATEWAY_PLAINTEXT=1: the process exits at once with
    a message naming the setting, and never serves."""
    env = {
        **os.environ,
        "TRIAD_ENV": "production",
        "TRIAD_GATEWAY_PLAINTEXT": "1",
        "TRIAD_DATABASE_URL": shared_database_url,
        "TRIAD_TOKEN_SECRET": SECRET,
        "TRIAD_GATEWAY_PORT": "0",
        "TRIAD_GATEWAY_METRICS_PORT": "0",
    }
    run = subprocess.run(
        [sys.executable, "-m", "gateway.main"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert "TRIAD_GATEWAY_PLAINTEXT is refused when TRIAD_ENV=production" in run.stderr
    assert "Traceback" not in run.stderr
    # and the TLS gateway speaks no plaintext
    with grpc.insecure_channel(backend.gateway.address) as channel:
        probe = channel.unary_unary("/triad.v1.TriadGateway/GetBoosterOdds")
        with pytest.raises(grpc.RpcError) as refused:
            probe(b"", timeout=5)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
