"""Fixtures for the match service's tests on real PostgreSQL."""

from __future__ import annotations

from datetime import datetime
from random import Random
from typing import Any

import pytest

from services.match import schema
from services.match import store as match_store
from services.match.handlers import Context
from services.match.tests.builders import T0
from services.platform.eventstore import MIGRATIONS as EVENT_MIGRATIONS
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
async def store(pg_pool: Any, pg_schema: str) -> match_store.MatchStore:
    await migrate(pg_pool, pg_schema, [*EVENT_MIGRATIONS, *schema.MIGRATIONS])
    return match_store.MatchStore(pg_pool, pg_schema)


@pytest.fixture
def ctx(store: match_store.MatchStore, clock: Clock) -> Context:
    return Context(store=store, clock=clock, rng=Random(42))
