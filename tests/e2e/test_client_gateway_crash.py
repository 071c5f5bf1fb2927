"""The terminal client when its gateway crashes (SIGKILL: no SERVER_SHUTDOWN is pushed,
the session stream just breaks) and comes back on the same address: the client opens
its session again by itself and the match goes on on its screen. Two gateways, every
service a process on real PostgreSQL and NATS; the second gateway is the one killed.

Found from outside: the client quit ("unavailable: Stream removed"), its Ranked ticket
stayed queued, and 50 s later it was paired into a match the player never saw and lost
on two missed turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from devtools.stack import Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import Client, logged_in
from tests.e2e.sessions import OPEN_TABLE, join, place_any, table_match

pytestmark = pytest.mark.integration

STACK_GATEWAYS = ({}, {})


async def test_the_play_screen_survives_its_gateway_crashing_and_coming_back(
    backend: Stack, apis: tuple[Any, Any], tmp_path: Path
) -> None:
    first, _ = apis
    ann, bea = await join(first), await join(first)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    view = await ann.view(match_id)
    if view.turn_seat == view.my_seat:  # bea's turn once the screen is up
        await place_any(ann, view)
    state = tmp_path / "ann.json"
    logged_in(state, ann.id, ann.name, ann.tokens)
    client = Client(backend, state, backend.gateways[1].address)
    screen = Terminal([*client.argv, "play"], {"COLUMNS": "80", "LINES": "24"})
    try:
        await screen.until(lambda s: f"{bea.name}'s turn" in s, "bea's turn", timeout=30)
        backend.backend.kill("gateway1")  # ann's: her stream breaks, nothing said
        backend.backend.restart("gateway1")
        await place_any(bea, await bea.view(match_id))
        shown = await screen.until(lambda s: "Your turn" in s, "ann's turn", timeout=40)
        assert screen.process.poll() is None, shown
    finally:
        screen.close()
