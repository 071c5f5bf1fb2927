"""``view``, ``place`` and ``forfeit`` take the start of your active match's id, as the
client prints it (``status``: "Active match 3f2a9c1e"), against a stand-in gateway."""

from __future__ import annotations

from typing import Any, cast

import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Client, ClientError
from client.main import match_command, parser
from client.tests.stand_in import Caller

ACTIVE = "3f2a9c1e-5b7d-4e21-9a0c-1d2e3f4a5b6c"


class Gateway:
    """Knows one active match; records the match id of every call about a match."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def GetActiveMatch(self, request: Message) -> g.GetActiveMatchResponse:
        return g.GetActiveMatchResponse(view=pb.MatchView(match_id=ACTIVE))

    async def GetMatchView(self, request: g.GetMatchViewRequest) -> g.GetMatchViewResponse:
        self.asked.append(request.match_id)
        return g.GetMatchViewResponse(view=pb.MatchView(match_id=request.match_id))

    async def Forfeit(self, request: g.ForfeitRequest) -> g.ForfeitResponse:
        self.asked.append(request.match_id)
        return g.ForfeitResponse(view=pb.MatchView(match_id=request.match_id))

    async def PlaceCard(self, request: g.PlaceCardRequest) -> g.PlaceCardResponse:
        self.asked.append(request.match_id)
        return g.PlaceCardResponse(view=pb.MatchView(match_id=request.match_id))


def client(gateway: Gateway) -> Any:
    return cast(Client, Caller(gateway))


@pytest.mark.parametrize(
    "typed",
    [["view", "3f2a9c1e"], ["forfeit", "3f2a"], ["place", "3f2a9c1e", "c1", "4"], ["view", ACTIVE]],
)
async def test_the_start_of_the_active_matchs_id_names_it(typed: list[str]) -> None:
    gateway = Gateway()
    view = await match_command(client(gateway), parser().parse_args(typed))
    assert view.match_id == ACTIVE and gateway.asked == [ACTIVE]


async def test_a_start_that_is_not_the_active_matchs_says_how_to_find_the_id() -> None:
    gateway = Gateway()
    with pytest.raises(ClientError, match="'9b' is not the start of your active match's id"):
        await match_command(client(gateway), parser().parse_args(["view", "9b"]))
    assert gateway.asked == []
