"""Helpers for the collection's handler tests, on either adapter of the repository: request
keys, refusals that change nothing, a starter collection, the log replayed."""

from __future__ import annotations

from copy import deepcopy
from datetime import datetime
from typing import Any

import pytest

from services.collection import codec, handlers
from services.collection.domain.events import (
    BoosterOpened,
    CollectionEvent,
    CopyGranted,
    CopyTransferred,
    PlayerRef,
)
from services.collection.domain.events_auction import ListingSold
from services.collection.handlers import Context
from services.collection.store import MemoryStore, Repository, Request
from services.platform.errors import DomainError

TABLES = (
    "events", "players", "copies", "locks", "decks", "credits", "seeds", "booster_draws",
    "listings",
)  # fmt: skip


async def snapshot(store: Repository) -> Any:
    if isinstance(store, MemoryStore):
        return deepcopy(store.tables)
    found = {}
    for table in TABLES:
        rows = await store.pool.fetch(f"SELECT * FROM {getattr(store.tables, table)}")
        found[table] = sorted(repr(sorted(dict(r).items())) for r in rows)
    return found


async def refused(store: Repository, action: Any, kind: type[DomainError], match: str) -> None:
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


async def owners(store: Repository) -> dict[str, str]:
    if isinstance(store, MemoryStore):
        return {i: c.owner_id for i, (c, _) in store.tables.copies.items()}
    rows = await store.pool.fetch(f"SELECT copy_id, owner_id FROM {store.tables.copies}")
    return {r["copy_id"]: r["owner_id"] for r in rows}


async def event_counts(store: Repository) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in await every_event(store):
        counts[type(event).__name__] = counts.get(type(event).__name__, 0) + 1
    return counts


async def every_event(store: Repository) -> list[CollectionEvent]:
    """Every event of the collection's log, in commit order."""
    found: list[tuple[str, bytes, datetime]]
    if isinstance(store, MemoryStore):
        found = [(e.type, e.data, at) for _, e, at in store.tables.log]
    else:
        rows = await store.pool.fetch(
            f"SELECT type, data, recorded_at FROM {store.tables.events} ORDER BY tx_id, seq"
        )
        found = [(r["type"], bytes(r["data"]), r["recorded_at"]) for r in rows]
    return [codec.decode(name, data, at) for name, data, at in found]


async def assert_copies_come_only_from_grants_and_boosters(store: Repository) -> None:
    """Replaying the log gives every copy exactly the owner the table shows: each copy is
    created once, by a CopyGranted or a BoosterOpened, and each CopyTransferred (or
    Auction House ListingSold) moves it from its owner at that moment. Nothing else
    makes, unmakes or moves a copy."""
    replayed: dict[str, str] = {}
    for event in await every_event(store):
        made = []
        if isinstance(event, CopyGranted):
            made = [event.copy]
        elif isinstance(event, BoosterOpened):
            made = list(event.draw.copies)
        elif isinstance(event, CopyTransferred):
            assert replayed[event.copy_id] == event.from_player_id, event
            replayed[event.copy_id] = event.to_player_id
        elif isinstance(event, ListingSold):
            assert replayed[event.copy.copy_id] == event.seller_id, event
            replayed[event.copy.copy_id] = event.buyer_id
        for copy in made:
            assert copy.copy_id not in replayed, f"copy {copy.copy_id} made twice"
            replayed[copy.copy_id] = copy.owner_id
    assert replayed == await owners(store)
