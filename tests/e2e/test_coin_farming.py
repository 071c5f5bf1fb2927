"""Coin farming with a second account, as issue 16 (item 8) found it: custom tables with
no trade, the second account forfeiting, through the TLS gateway with every service a
process on real PostgreSQL and NATS.

A match that ended before both players placed a card pays nothing; two players are paid
for at most TRIAD_REWARD_MATCHES_PER_PAIR_PER_DAY matches against each other per UTC
day (2 here), while a match against someone else still pays.

The collection settles matches in the order they finished (one replica, one durable
consumer in stream order), so a paid match that shows in a balance means every match
of the same players that finished before it has been settled too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import Overrides
from services.collection.domain.wealth import DAILY_FIRST_MATCH_COINS as FIRST
from services.collection.domain.wealth import MATCH_WIN_COINS as WIN
from services.collection.domain.wealth import STARTER_COINS as START

pytestmark = pytest.mark.integration
PAIR_LIMIT = 2
NO_TRADE = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, trade_rule=pb.TRADE_RULE_NONE)


STACK_OVERRIDES: Overrides = {
    "collection": {"TRIAD_REWARD_MATCHES_PER_PAIR_PER_DAY": str(PAIR_LIMIT)}
}
"""This module's settings for its backend (tests/e2e/conftest.py)."""


@dataclass
class Player:
    api: Any
    id: str
    tokens: g.AuthTokens

    async def call(self, rpc: str, request: Message) -> Any:
        meta = (("authorization", f"Bearer {self.tokens.access_token}"),)
        return await getattr(self.api, rpc)(request, metadata=meta, timeout=20)

    async def coins(self) -> int:
        return int((await self.call("GetBalance", g.GetBalanceRequest())).balance.coins)

    async def view(self, match_id: str) -> pb.MatchView:
        reply = await self.call("GetMatchView", g.GetMatchViewRequest(match_id=match_id))
        return reply.view  # type: ignore[no-any-return]


async def join(api: Any) -> Player:
    reply = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"f{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply.player.player_id, reply.tokens)


async def retried(call: Callable[[], Awaitable[Any]]) -> Any:
    """A call refused while the last match still holds a player (it is being freed)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            assert time.monotonic() < deadline, error.details()
            await asyncio.sleep(0.1)


async def table_match(host: Player, guest: Player) -> str:
    """A custom table with no trade, Random decks, joined at once."""
    table_request = g.CreateTableRequest(
        request_id=uuid4().hex, settings=pb.TableSettings(rules=NO_TRADE, random_deck=True)
    )
    table = await retried(lambda: host.call("CreateTable", table_request))
    join_request = g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    joined = await retried(lambda: guest.call("JoinTable", join_request))
    return str(joined.match_id)


async def place_one_each(players: tuple[Player, Player], match_id: str) -> None:
    """Each places one card, the one whose turn it is first."""
    for _ in range(2):
        for p in players:
            view = await p.view(match_id)
            if view.turn_seat == view.my_seat:
                empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
                await p.call(
                    "PlaceCard",
                    g.PlaceCardRequest(
                        request_id=uuid4().hex,
                        match_id=match_id,
                        card_id=view.my_hand[0].card.card_id,
                        cell=empty[0],
                    ),
                )
                break
    view = await players[0].view(match_id)
    assert sum(1 for c in view.board if c.WhichOneof("content") == "card") == 2


async def forfeit(loser: Player, match_id: str) -> None:
    await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))


async def played(winner: Player, loser: Player) -> None:
    """A match both played (a card each), then the loser forfeits."""
    match_id = await table_match(winner, loser)
    await place_one_each((winner, loser), match_id)
    await forfeit(loser, match_id)


async def balance_reaches(player: Player, coins: int) -> None:
    deadline = time.monotonic() + 20
    while (found := await player.coins()) != coins:
        assert found < coins, f"paid more than {coins}: {found}"
        assert time.monotonic() < deadline, f"never paid: {found}, not {coins}"
        await asyncio.sleep(0.1)


async def test_a_forfeit_before_both_players_placed_a_card_pays_no_coins(api: Any) -> None:
    ann, alt = await join(api), await join(api)
    assert await ann.coins() == START
    for _ in range(3):  # the farm: the second account gives up at once
        await forfeit(alt, await table_match(ann, alt))
    # A match both played pays, and shows that the forfeits before it were settled.
    await played(ann, alt)
    await balance_reaches(alt, START + FIRST)
    assert await ann.coins() == START + FIRST + WIN


async def test_a_pair_is_paid_for_a_few_matches_a_day_and_another_opponent_still_pays(
    api: Any,
) -> None:
    ann, alt, cai = await join(api), await join(api), await join(api)
    for _ in range(PAIR_LIMIT + 2):
        await played(ann, alt)
    await balance_reaches(alt, START + FIRST)
    await played(ann, cai)
    await balance_reaches(cai, START + FIRST)
    assert await ann.coins() == START + FIRST + (PAIR_LIMIT + 1) * WIN
    # The second account, winning the pair's next match, is not paid either.
    await played(alt, ann)
    await played(cai, alt)  # a match of alt's with someone else: settled after it
    await balance_reaches(cai, START + FIRST + WIN)
    assert await alt.coins() == START + FIRST
