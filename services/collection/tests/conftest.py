"""Fixtures for the collection's tests on real PostgreSQL: a store in a schema of its own."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from services.collection.handlers import Context
from services.collection.schema import MIGRATIONS
from services.collection.store import Store
from services.collection.tests.builders import CATALOG, Clock
from services.platform import consumer, eventstore, relay
from services.platform.migrations import migrate

ALL_MIGRATIONS = (*eventstore.MIGRATIONS, *relay.MIGRATIONS, *consumer.MIGRATIONS, *MIGRATIONS)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(pg_pool: Any, pg_schema: str) -> Store:
    await migrate(pg_pool, pg_schema, ALL_MIGRATIONS)
    return Store(pg_pool, pg_schema, CATALOG)


@pytest.fixture
def ctx(store: Store, clock: Clock) -> Context:
    return Context(store=store, catalog=CATALOG, clock=clock, rng=Random(7))
