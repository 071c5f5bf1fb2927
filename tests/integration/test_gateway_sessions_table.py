"""The gateway's sessions table on real PostgreSQL: which session holds a player, and
the sessions of a gateway that stopped beating.

Found from outside: two sessions opened at the same moment could each think they held
the player (the last write won, whatever its opening time), while the match service,
which orders presence by opening time, counted the other one: a player still connected
forfeited. And a killed gateway's sessions held their players for ever."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gateway.schema import SCHEMA_MIGRATIONS
from gateway.store import GatewayStore, HeldSession
from services.platform.migrations import migrate

pytestmark = pytest.mark.integration

T0 = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
async def schema(pg_pool: Any, pg_schema: str) -> str:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    return pg_schema


async def test_the_session_opened_later_holds_the_player_whatever_wrote_last(
    pg_pool: Any, schema: str
) -> None:
    one, two = GatewayStore(pg_pool, schema, "gw-1"), GatewayStore(pg_pool, schema, "gw-2")
    assert await two.open_session("ann", "later", T0 + timedelta(milliseconds=5))
    assert not await one.open_session("ann", "earlier", T0), "written last, opened first"
    assert await one.current_session("ann") == "later"


async def test_the_sessions_of_a_gateway_not_seen_are_given_up_once(
    pg_pool: Any, schema: str
) -> None:
    dead, alive = GatewayStore(pg_pool, schema, "dead"), GatewayStore(pg_pool, schema, "alive")
    await dead.beat(T0)
    await dead.open_session("ann", "s-ann", T0)
    await alive.open_session("bea", "s-bea", T0)
    now = T0 + timedelta(seconds=90)
    await alive.beat(now)
    assert await alive.orphaned(now - timedelta(seconds=60)) == [HeldSession("ann", "s-ann", T0)]
    assert await alive.orphaned(now - timedelta(seconds=60)) == [], "reported once"
    assert await dead.orphaned(now - timedelta(seconds=60)) == [], "bea's gateway lives"
    assert await alive.current_session("ann") == "s-ann", "the player's session is kept"
