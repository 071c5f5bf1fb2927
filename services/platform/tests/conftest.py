"""Fixtures for the platform's tests: real servers, and an event store in a fresh database."""

from __future__ import annotations

from typing import Any

import pytest

from services.platform.eventstore import PostgresEventStore
from services.platform.eventstore_schema import MIGRATIONS
from services.platform.migrations import migrate


@pytest.fixture
async def pg_store(pg_pool: Any, pg_schema: str) -> PostgresEventStore:
    await migrate(pg_pool, pg_schema, MIGRATIONS)
    return PostgresEventStore(pg_pool, pg_schema)
