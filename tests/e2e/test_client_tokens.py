"""The terminal client's tokens against a gateway whose access tokens last 3 s: a client
that finds its token expired on two paths at once (its session stream and a call, as
``triad-client battle`` does when started after the token expired) refreshes it once
and both go on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from triad.v1 import gateway_pb2 as g

from client.connection import Client, State
from devtools.stack import Overrides
from tests.e2e.client_runs import logged_in
from tests.e2e.sessions import join

pytestmark = pytest.mark.integration

STACK_OVERRIDES: Overrides = {"gateway": {"TRIAD_ACCESS_TOKEN_MINUTES": "0.05"}}
"""This module's settings for its backend (tests/e2e/conftest.py): 3 s access tokens."""


async def test_the_session_stream_and_a_call_that_find_the_token_expired_at_once_go_on(
    api: Any, tmp_path: Path
) -> None:
    """Found from outside: `triad-client battle` started after the player's access token
    expired showed the battle, but its session stream and its first call each refreshed
    the token with the one refresh token; the stream's refresh was refused and it was
    gone without a word, and 30 s into the battle the CPU took the player's seat over
    (BATTLE.md 5), the player at their screen."""
    me = await join(api)
    state = tmp_path / "state.json"
    logged_in(state, me.id, me.name, me.tokens)
    await asyncio.sleep(3.5)  # the access token expired
    client = Client(api, State(state, "default"))

    async def opened() -> g.OpenSessionResponse:
        async for push in client.pushes():
            return push
        raise AssertionError("the session stream ended without a push")

    pushed, active = await asyncio.gather(
        opened(), client.call(api.GetActiveBattle, g.GetActiveBattleRequest())
    )
    assert pushed.HasField("session_opened"), pushed
    assert active.battle_id == ""
