"""Two backends whose schemas share one PostgreSQL database and one NATS (two
deployments on one server, or two test backends at once). PostgreSQL's notice channels
are the database's, so each backend hears the other's notices: what it publishes for
them must not reach a player as a change. Found from outside: a booster bought showed
the buyer "0 coins" twice, the other backend's collection publishing the balance of a
player it does not hold."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest
from triad.v1 import gateway_pb2 as g

from devtools.players import collect
from devtools.stack import Stack, stack
from tests.e2e import sessions

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def backends(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Stack, Stack]]:
    logs: Path = tmp_path_factory.mktemp("shared")
    with (
        stack(shared_database_url, nats_url, logs / "one") as one,
        stack(shared_database_url, nats_url, logs / "two") as two,
    ):
        yield one, two


async def test_a_booster_bought_on_one_backend_shows_its_buyer_only_their_balance(
    backends: tuple[Stack, Stack],
) -> None:
    one, _ = backends
    async with one.channel() as channel:
        ann = await sessions.join(one.api(channel))
        pushes: list[g.OpenSessionResponse] = []
        reading = asyncio.create_task(collect(ann.api, ann.tokens, pushes))
        while not pushes:
            await asyncio.sleep(0.05)
        await ann.call("OpenBooster", g.OpenBoosterRequest(request_id=uuid4().hex))
        held = (await ann.call("GetBalance", g.GetBalanceRequest())).balance
        await asyncio.sleep(1.5)  # what either backend's collection publishes meanwhile
        reading.cancel()
    shown = [p.balance for p in pushes if p.HasField("balance")]
    assert shown, "the purchase was never pushed"
    assert [(b.coins, b.HasField("update_time")) for b in shown] == [(held.coins, True)] * len(
        shown
    )
