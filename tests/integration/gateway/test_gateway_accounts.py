"""The gateway as a player meets it: TLS, accounts and tokens, and hostile input (missing,
forged and expired tokens, too many requests, oversized messages, password guessing,
services not configured).

The match service and the gateway run as separate processes on real PostgreSQL.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, SECRET, bearer, expect
from tests.integration.gateway.gateway_process import register

pytestmark = pytest.mark.integration
ADDRESS_BURST = 20
GATEWAY_ENV = {
    # Wrong passwords from one address: a burst of 20, then (all but) none.
    "TRIAD_FAILED_LOGIN_ADDRESS_BURST": str(ADDRESS_BURST),
    "TRIAD_FAILED_LOGINS_PER_ADDRESS_PER_MINUTE": "0.1",
}


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


async def test_password_guessing_is_slowed_per_address_across_names(api: Any) -> None:
    """One host guessing a few passwords for each of many names (within every name's own
    burst of 10) is slowed too: after its burst of wrong passwords (20 here), that
    address's logins wait, the right password of an account it never guessed included."""

    def login(name: str, password: str) -> Any:
        return api.Login(
            g.LoginRequest(request_id=uuid4().hex, player_name=name, password=password)
        )

    bob = await register(api)
    for n in range(ADDRESS_BURST):  # a guess per name: names unknown too
        await expect(grpc.StatusCode.UNAUTHENTICATED, login(f"nobody{n:03d}", "guess" * 3))
    await expect(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        login(bob.player.player_name, PASSWORD),
        "too many wrong passwords from your address",
    )


async def test_refused_refresh_tokens_are_slowed_per_address(api: Any) -> None:
    """Found from outside: RefreshToken with made-up tokens was never slowed (300 in half
    a second from one host, each answered after database reads): no player is known to
    hold to the per-player rate. After its burst of refused refresh tokens (20 here, as
    for wrong passwords) an address's refreshes wait, a real token's included; its
    logins are not held up by them."""
    bob = await register(api)
    for n in range(ADDRESS_BURST):
        await expect(
            grpc.StatusCode.UNAUTHENTICATED,
            api.RefreshToken(
                g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=f"made-up-{n}")
            ),
        )
    refresh = g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=bob.tokens.refresh_token)
    await expect(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        api.RefreshToken(refresh),
        "too many refused refresh tokens from your address",
    )
    login = await api.Login(
        g.LoginRequest(
            request_id=uuid4().hex, player_name=bob.player.player_name, password=PASSWORD
        )
    )
    assert login.player.player_id == bob.player.player_id


async def test_a_refresh_racing_a_logout_everywhere_leaves_no_working_token(api: Any) -> None:
    """Found from outside: Logout(all_sessions) and a RefreshToken of the same player sent
    at once left the refreshed pair working after the logout had answered (5 times in 15):
    the refresh issued its tokens after the logout's time and saved its new refresh token
    where the logout's revocation did not see it. Whichever wins, once both answered no
    token of the player works."""
    bob = await register(api)
    survived = []
    for attempt in range(12):
        login = await api.Login(
            g.LoginRequest(
                request_id=uuid4().hex, player_name=bob.player.player_name, password=PASSWORD
            )
        )
        logout = api.Logout(
            g.LogoutRequest(request_id=uuid4().hex, all_sessions=True),
            metadata=bearer(login.tokens),
        )
        refresh = api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=login.tokens.refresh_token)
        )
        _, refreshed = await asyncio.gather(logout, refresh, return_exceptions=True)
        if isinstance(refreshed, BaseException):
            assert isinstance(refreshed, grpc.aio.AioRpcError), refreshed
            assert refreshed.code() == grpc.StatusCode.UNAUTHENTICATED, refreshed.details()
            continue
        for works in (
            api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(refreshed.tokens)),
            api.RefreshToken(
                g.RefreshTokenRequest(
                    request_id=uuid4().hex, refresh_token=refreshed.tokens.refresh_token
                )
            ),
        ):
            try:
                await works
                survived.append(attempt)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.UNAUTHENTICATED, error.details()
    assert not survived, f"tokens outlived a logout everywhere in attempts {survived}"
