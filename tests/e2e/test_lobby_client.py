"""Find Game and challenges from ``triad-client`` (RULES.md 14), through the TLS gateway
with every service a process on real PostgreSQL and NATS: find, challenge, challenges
and decline as subcommands, and the host's play screen when a challenge is declined.
The lobby as the API meets it: test_lobby.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import Client, signed_in
from tests.e2e.sessions import Player, join

pytestmark = pytest.mark.integration

STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


def client_of(running: Stack, state: Path, player: Player) -> Client:
    me = g.RegisterResponse(
        player=g.Player(player_id=player.id, player_name=player.name), tokens=player.tokens
    )
    return signed_in(running, state, me)


async def test_the_client_finds_a_game_challenges_lists_and_declines(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    ann, bea, cid = await join(api), await join(api), await join(api)
    anns, beas = (
        client_of(backend, tmp_path / "ann", ann),
        client_of(backend, tmp_path / "bea", bea),
    )
    made = await asyncio.to_thread(anns.json, "challenge", bea.name)
    table_id = made["table"]["tableId"]
    listed = await asyncio.to_thread(beas.json, "challenges")
    assert [t["tableId"] for t in listed["tables"]] == [table_id]
    declined = await asyncio.to_thread(beas.json, "decline", table_id[:8])
    assert declined["table"]["status"] == "TABLE_STATUS_DECLINED"
    line = await asyncio.to_thread(beas.fails, "decline", table_id[:8], code=2)
    assert "no single open challenge to you" in line

    settings = pb.TableSettings(
        rules=pb.Rules(visibility=pb.VISIBILITY_CLOSED, elemental=True), random_deck=True
    )
    public = await cid.call(
        "CreateTable", g.CreateTableRequest(request_id=uuid4().hex, settings=settings)
    )
    found = await asyncio.to_thread(
        beas.json, "find", "--elemental", "--visibility", "closed", "--no-same"
    )
    assert found["table"]["tableId"] == public.table.table_id and found["matchId"]
    assert (await bea.view(found["matchId"])).status == pb.MATCH_STATUS_IN_PROGRESS


async def test_the_hosts_screen_ends_when_the_challenge_is_declined(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: once the challenged player declined, the host's screen said
    so and then waited, for nothing, until Ctrl-C."""
    ann, bea = await join(api), await join(api)
    anns = client_of(backend, tmp_path / "ann", ann)
    await asyncio.to_thread(anns.json, "challenge", bea.name)
    terminal = Terminal([*anns.argv, "play"], {"COLUMNS": "80", "LINES": "24"})
    try:
        await terminal.until(lambda s: "to accept your" in s, "the challenge waiting", timeout=30)
        table = (await bea.call("ListTables", g.ListTablesRequest(
            filter=pb.TableFilter(challenges_only=True)))).tables[0]  # fmt: skip
        await bea.call(
            "DeclineChallenge",
            g.DeclineChallengeRequest(request_id=uuid4().hex, table_id=table.table_id),
        )
        shown = await terminal.until(lambda s: "declined" in s, "the decline", timeout=30)
        for _ in range(100):
            if terminal.process.poll() is not None:
                break
            await asyncio.sleep(0.1)
        assert terminal.process.poll() == 0, terminal.text()
        assert f"{bea.name} declined your challenge" in " ".join(shown.split())
    finally:
        terminal.close()
