"""Fixtures for the platform's tests: real servers, an event store in a fresh database,
and the relay tests' schema (``store``), NATS client (``nc``) and JetStream stream
(``stream``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from nats.aio.client import Client

from services.platform import bus
from services.platform.bus import EventStream
from services.platform.eventstore import PostgresEventStore
from services.platform.eventstore_schema import MIGRATIONS
from services.platform.migrations import migrate
from services.platform.tests.jetstream import ALL_MIGRATIONS, unique_stream


@pytest.fixture
async def pg_store(pg_pool: Any, pg_schema: str) -> PostgresEventStore:
    await migrate(pg_pool, pg_schema, MIGRATIONS)
    return PostgresEventStore(pg_pool, pg_schema)


@pytest.fixture
async def store(pg_pool: Any, pg_schema: str) -> PostgresEventStore:
    await migrate(pg_pool, pg_schema, ALL_MIGRATIONS)
    return PostgresEventStore(pg_pool, pg_schema)


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await bus.connect(nats_url, name="test-relay", reconnect_time_wait=0.2)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
async def stream(nc: Client) -> AsyncIterator[EventStream]:
    events = unique_stream()
    yield events
    with contextlib.suppress(Exception):
        await nc.jetstream().delete_stream(events.name)
