"""Fixtures for the collection's tests: every handler test runs on both adapters of the
repository port, in memory (a unit test, no server) and on real PostgreSQL (marked
``integration``, in a schema of its own), so the two are held to the same behaviour."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from services.collection.handlers import Context
from services.collection.schema import SCHEMA_MIGRATIONS
from services.collection.store import MemoryStore, Repository, Store
from services.collection.tests.builders import CATALOG, Clock
from services.platform.migrations import migrate


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def pg_store(pg_pool: Any, pg_schema: str) -> Store:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    return Store(pg_pool, pg_schema, CATALOG)


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest) -> Repository:
    if request.param == "memory":
        return MemoryStore(CATALOG)
    found: Store = request.getfixturevalue("pg_store")
    return found


@pytest.fixture
def ctx(store: Repository, clock: Clock) -> Context:
    return Context(store=store, catalog=CATALOG, clock=clock, rng=Random(7))
