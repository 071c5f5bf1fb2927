"""Fixtures for the rating service's tests on real PostgreSQL (and the in-memory twin)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import pytest

from services.platform.migrations import migrate
from services.rating import handlers
from services.rating.domain import FinishedGame
from services.rating.handlers import Outcome, Reader
from services.rating.read_models import LoggedChange
from services.rating.schema import SCHEMA_MIGRATIONS
from services.rating.store import MemoryRatings, PostgresLadders, RatingReader
from services.rating.tests.builders import event_id


class Ratings:
    """One rating store as the tests drive it: rate a match (in a transaction of its own
    on PostgreSQL), and read."""

    def __init__(self, reader: Reader, rate: Any, log: Any) -> None:
        self.reader = reader
        self._rate = rate
        self._log = log

    async def rate(self, game: FinishedGame, event_id: UUID, season: int = 0) -> Outcome:
        outcome: Outcome = await self._rate(game, event_id, season)
        return outcome

    async def rate_all(self, games: Sequence[FinishedGame], season: int = 0) -> None:
        for g in games:
            await self.rate(g, event_id(g.match_id), season)

    async def log(self) -> list[LoggedChange]:
        found: list[LoggedChange] = await self._log()
        return found


def memory_ratings() -> Ratings:
    store = MemoryRatings()

    async def rate(game: FinishedGame, event_id: UUID, season: int) -> Outcome:
        return await handlers.rate_match(store, game, event_id, season)

    return Ratings(store, rate, store.log)


def postgres_ratings(pool: Any, schema: str) -> Ratings:
    reader = RatingReader(pool, schema)

    async def rate(game: FinishedGame, event_id: UUID, season: int) -> Outcome:
        async with pool.acquire() as conn, conn.transaction():
            return await handlers.rate_match(PostgresLadders(conn, schema), game, event_id, season)

    return Ratings(reader, rate, reader.log)


@pytest.fixture
async def rating_schema(pg_pool: Any, pg_schema: str) -> str:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    return pg_schema


@pytest.fixture
def postgres(pg_pool: Any, rating_schema: str) -> Ratings:
    return postgres_ratings(pg_pool, rating_schema)
