"""``triad-client challenges`` lists the battle challenges too: ``battle --challenge
bea`` opens a battle table for bea, which ListTables shows only with
``filter.battles``, so bea was told 'No challenges for you.' and had no way to learn
the table's id but from the challenger."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_lobby import challenges

BATTLE = "8265acae-a457-4427-8d43-42f908f114c0"


class Stub:
    async def ListTables(self, request: g.ListTablesRequest) -> g.ListTablesResponse:
        assert request.filter.challenges_only
        if not request.filter.battles:
            return g.ListTablesResponse()
        table = pb.Table(
            table_id=BATTLE,
            host_name="ann",
            challenged_player_name="bea",
            status=pb.TABLE_STATUS_OPEN,
        )
        table.settings.battle = True
        return g.ListTablesResponse(tables=[table])


class Caller:
    stub = Stub()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_battle_challenge_is_listed_with_the_command_that_joins_it() -> None:
    console = Console(width=80, record=True, force_terminal=False)
    assert await challenges(Caller(), argparse.Namespace(json=False), console) == 0
    text = " ".join(console.export_text().split())
    assert "No challenges for you." not in text, text
    assert f"{BATTLE[:8]} from ann: a Skirmish battle" in text, text
    assert f"triad-client battle --join {BATTLE}" in text, text
