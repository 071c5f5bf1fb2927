"""Helpers for the collection's integration tests: request keys, refusals that change
nothing, a starter collection."""

from __future__ import annotations

from typing import Any

import pytest

from services.collection import codec, handlers
from services.collection.domain.events import BoosterOpened, CopyGranted, CopyTransferred, PlayerRef
from services.collection.handlers import Context
from services.collection.store import Request, Store
from services.platform.errors import DomainError

TABLES = ("events", "players", "copies", "locks", "decks", "credits", "seeds", "booster_draws")


async def snapshot(store: Store) -> dict[str, Any]:
    found = {}
    for table in TABLES:
        rows = await store.pool.fetch(f"SELECT * FROM {getattr(store.tables, table)}")
        found[table] = sorted(repr(sorted(dict(r).items())) for r in rows)
    return found


async def refused(store: Store, action: Any, kind: type[DomainError], match: str) -> None:
    before = await snapshot(store)
    with pytest.raises(kind, match=match):
        await action
    assert await snapshot(store) == before


def key(player: str, name: str) -> Request:
    return Request.of(player, name, name)


async def starter(ctx: Context, player: str = "p1") -> list[str]:
    done = await handlers.grant_starter(
        ctx, key(player, f"starter-{player}"), PlayerRef(player, player)
    )
    return [c.copy_id for c in await ctx.store.copies_from(done.grant_id)]


async def owners(store: Store) -> dict[str, str]:
    rows = await store.pool.fetch(f"SELECT copy_id, owner_id FROM {store.tables.copies}")
    return {r["copy_id"]: r["owner_id"] for r in rows}


async def event_counts(store: Store) -> dict[str, int]:
    rows = await store.pool.fetch(
        f"SELECT type, count(*) AS n FROM {store.tables.events} GROUP BY type"
    )
    return {r["type"].removeprefix("triad.v1."): r["n"] for r in rows}


async def assert_copies_come_only_from_grants_and_boosters(store: Store) -> None:
    """Replaying the log gives every copy exactly the owner the table shows: each copy is
    created once, by a CopyGranted or a BoosterOpened, and each CopyTransferred moves it
    from its owner at that moment. Nothing else makes, unmakes or moves a copy."""
    replayed: dict[str, str] = {}
    rows = await store.pool.fetch(
        f"SELECT type, data, recorded_at FROM {store.tables.events} ORDER BY tx_id, seq"
    )
    for row in rows:
        event = codec.decode(row["type"], bytes(row["data"]), row["recorded_at"])
        made = []
        if isinstance(event, CopyGranted):
            made = [event.copy]
        elif isinstance(event, BoosterOpened):
            made = list(event.draw.copies)
        elif isinstance(event, CopyTransferred):
            assert replayed[event.copy_id] == event.from_player_id, event
            replayed[event.copy_id] = event.to_player_id
        for copy in made:
            assert copy.copy_id not in replayed, f"copy {copy.copy_id} made twice"
            replayed[copy.copy_id] = copy.owner_id
    assert replayed == await owners(store)
