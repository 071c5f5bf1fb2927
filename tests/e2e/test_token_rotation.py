"""Rotating the gateway's token secret (deploy/k8s/README.md, 'Rotating secrets'), with
four gateways on one backend standing for the rotation's steps: before it (the old
secret alone), accepting the next secret, signing with it while accepting the old one,
and after it (the new secret alone).

Found from outside: the runbook said clients refresh tokens signed with the old secret,
but a gateway accepted one secret only and the terminal client refreshed only expired
tokens, so a rotation told every terminal player to log in again, and a gateway roll
sent browsers back and forth between replicas that refused each other's tokens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import gateway_pb2 as g

from client.connection import Client, State
from devtools.players import PASSWORD, SECRET
from tests.e2e.client_runs import logged_in
from tests.e2e.sessions import join

pytestmark = pytest.mark.integration

NEW = "n" * 48
"""The token secret rotated to (the tests' own, ``SECRET``, is the old one)."""

STACK_GATEWAYS = (
    {},
    {"TRIAD_TOKEN_SECRET_ACCEPTED": NEW},
    {"TRIAD_TOKEN_SECRET": NEW, "TRIAD_TOKEN_SECRET_ACCEPTED": SECRET},
    {"TRIAD_TOKEN_SECRET": NEW},
)
"""Each gateway's settings (tests/e2e/conftest.py): old, accepting, switched, new."""


async def balance(api: Any, token: str) -> g.GetBalanceResponse:
    return await api.GetBalance(
        g.GetBalanceRequest(), metadata=(("authorization", f"Bearer {token}"),), timeout=15
    )


async def test_every_step_of_a_rotation_accepts_the_tokens_the_step_before_issued(
    apis: tuple[Any, ...],
) -> None:
    old, accepting, switched, new = apis
    ann = await join(old)
    for api in (old, accepting, switched):
        await balance(api, ann.tokens.access_token)
    login = await switched.Login(
        g.LoginRequest(request_id=uuid4().hex, player_name=ann.name, password=PASSWORD)
    )
    signed_new = login.tokens.access_token
    for api in (accepting, switched, new):
        await balance(api, signed_new)
    for api, token in ((old, signed_new), (new, ann.tokens.access_token)):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await balance(api, token)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert refused.value.details() == (
            "the access token is not valid: refresh it or log in again"
        )


async def test_the_terminal_client_refreshes_a_token_the_rotated_secret_refuses(
    apis: tuple[Any, ...], tmp_path: Path
) -> None:
    """A rotation without the overlap (an operator in a hurry, a leaked secret): the
    terminal client's call and its session stream each get a new token pair with the
    refresh token, which no secret signs, and go on; the player is not sent to log in."""
    old, *_, new = apis
    ann = await join(old)
    state = tmp_path / "state.json"
    logged_in(state, ann.id, ann.name, ann.tokens)
    client = Client(new, State(state, "default"))
    assert (await client.call(new.GetBalance, g.GetBalanceRequest())).HasField("balance")
    async for push in client.pushes():
        assert push.HasField("session_opened"), push
        break
    refreshed = State(state, "default").tokens
    assert refreshed["refresh_token"] != ann.tokens.refresh_token
    await balance(new, refreshed["access_token"])
