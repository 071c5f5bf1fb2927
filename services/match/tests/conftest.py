"""Fixtures for the match service's tests: handler tests on the in-memory repository,
store tests on real PostgreSQL (``pg_store``, integration)."""

from __future__ import annotations

from datetime import datetime
from random import Random
from typing import Any

import pytest

from services.match import schema
from services.match.handlers import Context
from services.match.store import MatchStore, MemoryMatchStore
from services.match.tests.builders import T0
from services.platform.migrations import migrate


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def pg_store(pg_pool: Any, pg_schema: str) -> MatchStore:
    await migrate(pg_pool, pg_schema, schema.SCHEMA_MIGRATIONS)
    return MatchStore(pg_pool, pg_schema)


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def ctx(request: pytest.FixtureRequest, clock: Clock) -> Context:
    """Handlers over the in-memory repository (the fast run, no database), and again
    over PostgreSQL (integration: row locks, group commit)."""
    store = MemoryMatchStore() if request.param == "memory" else request.getfixturevalue("pg_store")
    # The tests move the clock by hand, past several timers at once: that is time the
    # loop slept through, not an outage, unless a test says so (``late_seconds``).
    return Context(store=store, clock=clock, rng=Random(42), late_seconds=float("inf"))
