"""The collection service SIGKILLed in the middle of a burst of boosters, credits and
trade choices, restarted on the same schema: every acknowledged booster is there once,
every trade completes exactly once (chosen, or auto-picked after the restart: a
Difference's d copies all at once), the coins add up, and the log and the tables agree
on every copy's owner."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING
from uuid import uuid4

import asyncpg
import grpc
import pytest
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb

from devtools.processes import Service
from services.collection.domain.catalog import load_catalog
from services.collection.domain.events import FinishedMatch, FinishedSeat, PlayerRef, TradeRule
from services.collection.handlers import Context
from services.collection.handlers_trades import settle_match
from services.collection.store import Store
from services.collection.tests.helpers import assert_copies_come_only_from_grants_and_boosters
from services.collection.tests.process import collection_service

if TYPE_CHECKING:
    Stub = collection_pb2_grpc.CollectionServiceAsyncStub

pytestmark = pytest.mark.integration
PLAYERS = 6


@pytest.fixture
def service(shared_database_url: str, tmp_path: Path) -> Iterator[Service]:
    with collection_service(
        shared_database_url, None, tmp_path / "collection.log", TRIAD_TRADE_CHOICE_SECONDS="1"
    ) as s:
        yield s


async def pending(store: Store, players: list[str]) -> int:
    return sum([await store.pending_trade_of(p) is not None for p in players])


async def burst(stub: Stub, player: str, acked: list[str]) -> None:
    """Open boosters until the service goes away; remember every acknowledged draw."""
    with contextlib.suppress(grpc.aio.AioRpcError):
        for _ in range(200):
            reply = await stub.OpenBooster(
                c.CollectionServiceOpenBoosterRequest(request_id=uuid4().hex, player_id=player)
            )
            acked.append(reply.draw.draw_id)


async def test_a_killed_service_loses_nothing_acknowledged_and_completes_every_trade(
    service: Service, shared_database_url: str
) -> None:
    schema = service.env["schema"]
    players = [f"p{n}-{uuid4().hex[:6]}" for n in range(PLAYERS)]
    pool = await asyncpg.create_pool(shared_database_url, min_size=1, max_size=4)
    store = Store(pool, schema, load_catalog())
    try:
        async with grpc.aio.insecure_channel(service.address) as channel:
            stub = collection_pb2_grpc.CollectionServiceStub(channel)
            decks = {}
            for player in players:
                reply = await stub.GrantStarterCollection(
                    c.CollectionServiceGrantStarterCollectionRequest(
                        request_id=uuid4().hex, player=pb.PlayerRef(player_id=player)
                    )
                )
                decks[player] = tuple(x.copy_id for x in reply.copies[:5])
                await stub.CreditCurrency(
                    c.CollectionServiceCreditCurrencyRequest(
                        request_id=uuid4().hex, player_id=player, amount=20_000,
                        reason=pb.CURRENCY_REASON_GRANT, reference_id="crash-test",
                    )
                )  # fmt: skip
            # Three trades open (as the MatchFinished consumer would open them): Trade One,
            # a Difference of four cards (won 7-3: left to its deadline across the
            # kill, the server draws all four) and Trade One.
            ctx = Context(
                store, store.catalog, lambda: datetime.now(UTC), Random(1), choice_seconds=1.0
            )
            trades = []
            for n in range(0, PLAYERS, 2):
                winner, loser = players[n], players[n + 1]
                rule = TradeRule.DIFFERENCE if n == 2 else TradeRule.ONE
                finished = FinishedMatch(
                    f"m-{winner}",
                    (
                        FinishedSeat(PlayerRef(winner, winner), False, decks[winner], 7),
                        FinishedSeat(PlayerRef(loser, loser), False, decks[loser], 3),
                    ),
                    0,
                    rule,
                    ctx.clock(),
                    placements=9,
                )
                async with pool.acquire() as conn, conn.transaction():
                    await store.run_in(conn, partial(settle_match, ctx, finished=finished))
                opened = await stub.GetPendingTrade(
                    c.CollectionServiceGetPendingTradeRequest(player_id=winner)
                )
                trades.append((winner, opened.trade))
            acked: list[str] = []
            tasks = [asyncio.create_task(burst(stub, p, acked)) for p in players]
            # The first winner chooses while boosters fly; the others are left to the deadline.
            winner, first = trades[0]
            await stub.ChooseTradeCard(
                c.CollectionServiceChooseTradeCardRequest(
                    request_id=uuid4().hex, trade_id=first.trade_id, player_id=winner,
                    copy_id=first.offered_copies[0].copy_id,
                )
            )  # fmt: skip
            while len(acked) < 60:
                await asyncio.sleep(0.01)
            service.kill()
            await asyncio.gather(*tasks)
        await asyncio.sleep(1.2)  # the other trades' deadlines pass while the service is down
        service.start()
        async with grpc.aio.insecure_channel(service.address) as channel:
            stub = collection_pb2_grpc.CollectionServiceStub(channel)
            for _ in range(200):
                if await pending(store, [w for w, _ in trades]) == 0:
                    break
                await asyncio.sleep(0.05)
            assert await pending(store, [w for w, _ in trades]) == 0
        counts = {
            r["type"]: r["n"]
            for r in await pool.fetch(
                f'SELECT type, count(*) AS n FROM "{schema}".events GROUP BY type'
            )
        }
        assert counts["triad.v1.CopyTransferred"] == len(trades) + 3  # the Difference's 4
        rows = await pool.fetch(f'SELECT draw_id, player_id FROM "{schema}".booster_draws')
        drawn = {r["draw_id"] for r in rows}
        assert set(acked) <= drawn and counts["triad.v1.BoosterOpened"] == len(drawn)
        for player in players:
            coins = (await store.balance(player)).coins
            boosters = sum(1 for r in rows if r["player_id"] == player)
            # Starter, the test's grant, the daily first match, the win for winners.
            earned = 300 + 20_000 + 60 + (40 if player in dict(trades) else 0)
            assert coins == earned - 100 * boosters
        await assert_copies_come_only_from_grants_and_boosters(store)
    finally:
        await pool.close()
