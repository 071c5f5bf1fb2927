"""``triad-client`` run whole (``client.main.main``) against a stand-in for the gateway's
lobby: ann is logged in and hosts a challenge to dorothea-of-the-long-name; the lobby
lists an ordinary table of a long-named host with many rules on, and a challenge to ann
from another (``--battles``: a Skirmish battle table); every table expires EXPIRES
seconds from now. The lobby tests run it with its output piped, to read the lines a
script (or ``| less``) gets.

    python -m client.tests.lobby STATE COMMAND [ARGS...]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client.connection import State
from client.main import main

EXPIRES = 600
ORDINARY = "3f2a9c1e-0000-4000-8000-000000000001"
CHALLENGE = "7c01d2e3-0000-4000-8000-000000000002"
HOSTED = "9e8d7c6b-0000-4000-8000-000000000003"
BATTLE = "b477e000-0000-4000-8000-000000000004"
RULES = pb.Rules(
    visibility=pb.VISIBILITY_THREE_OPEN,
    same=True,
    plus=True,
    combo=True,
    elemental=True,
    same_wall=True,
    sudden_death=True,
    trade_rule=pb.TRADE_RULE_DIFFERENCE,
    board=pb.BoardShape(rows=5, columns=5, blocked_count=3),
)


def table(table_id: str, host: str, challenged: str = "") -> pb.Table:
    expires = Timestamp()
    expires.GetCurrentTime()
    expires.seconds += EXPIRES
    return pb.Table(
        table_id=table_id,
        host_name=host,
        settings=pb.TableSettings(rules=RULES, random_deck=True),
        challenged_player_name=challenged,
        status=pb.TABLE_STATUS_OPEN,
        expire_time=expires,
    )


def hosted() -> pb.Table:
    return table(HOSTED, "ann", "dorothea-of-the-long-name")


class Gateway:
    def __init__(self, channel: Any) -> None:
        pass

    async def ListTables(self, request: g.ListTablesRequest, **_: Any) -> Message:
        if request.filter.battles:
            skirmish = table(BATTLE, "kim-the-skirmisher")
            skirmish.settings.Clear()
            skirmish.settings.battle = True
            return g.ListTablesResponse(tables=[] if request.filter.challenges_only else [skirmish])
        challenge = table(CHALLENGE, "cid-the-challenger", "ann")
        if request.filter.challenges_only:
            return g.ListTablesResponse(tables=[challenge])
        return g.ListTablesResponse(tables=[table(ORDINARY, "bartholomew-the-patient"), challenge])

    async def GetPlayerStatus(self, request: Message, **_: Any) -> Message:
        player = g.Player(player_id="a", player_name="ann")
        return g.GetPlayerStatusResponse(
            status=g.PlayerStatus(player=player, hosted_table=hosted())
        )

    async def CreateTable(self, request: Message, **_: Any) -> Message:
        return g.CreateTableResponse(table=hosted())


if __name__ == "__main__":
    state = Path(sys.argv[1])
    State(state, "default").save(
        g.Player(player_id="a", player_name="ann"), g.AuthTokens(access_token="a")
    )
    gateway_pb2_grpc.TriadGatewayStub = Gateway  # type: ignore[misc,assignment]
    common = ["--state", str(state), "--plaintext", "--addr", "127.0.0.1:9"]
    sys.exit(main([*common, *sys.argv[2:]]))
