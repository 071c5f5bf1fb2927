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

import asyncpg
import pytest
from triad.v1 import gateway_pb2 as g

from devtools.players import collect
from devtools.stack import Stack, stack
from tests.e2e import sessions
from tests.e2e.sessions import easy_practice

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
    # Each push a balance the player held (the starter's 300 may come late), never the
    # other backend's "Balance{}" for a player it does not hold: 0 coins, no time.
    assert all(b.HasField("update_time") and b.coins in (300, held.coins) for b in shown), shown
    assert shown[-1].coins == held.coins


async def test_a_backend_never_acts_on_the_events_of_another_on_the_same_nats(
    backends: tuple[Stack, Stack], shared_database_url: str
) -> None:
    """Found from outside: every backend on one NATS consumed the others' events (one
    event stream for all), so a second backend's collection paid the first's players for
    their matches, in its own tables, and pushed them balances. Each backend now has its
    NATS namespace (TRIAD_NATS_NAMESPACE): its own stream and subjects."""
    one, two = backends
    async with one.channel() as channel:
        ann = await sessions.join(one.api(channel))
        started = await ann.call(
            "StartPractice",
            easy_practice(),
        )
        forfeit = g.ForfeitRequest(request_id=uuid4().hex, match_id=started.match_id)
        await ann.call("Forfeit", forfeit)
    await asyncio.sleep(2.0)  # the other backend, had it heard the match, would have acted
    connection = await asyncpg.connect(shared_database_url)
    try:
        held = [
            await connection.fetchval(
                f'SELECT count(*) FROM "{b.backend.schema("collection")}".players '
                "WHERE player_id = $1",
                ann.id,
            )
            for b in (one, two)
        ]
    finally:
        await connection.close()
    assert held == [1, 0]
