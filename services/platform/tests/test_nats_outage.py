"""A NATS restart loses nothing: the relay and a consumer ride it out and catch up.

NATS runs here in a server of the test's own (the session's is shared), on a fixed
port with a store directory, so it can be stopped and started again where the clients
expect it, with its streams and durable consumers. Events are appended while it is
down; they wait in PostgreSQL, then arrive, once and in order.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

import pytest
from prometheus_client import CollectorRegistry
from triad.v1 import events_pb2

from devtools.embedded import embedded_nats
from services.platform import bus
from services.platform.consumer import Consumer
from services.platform.eventstore import START, PostgresEventStore
from services.platform.migrations import migrate
from services.platform.relay import Relay, RelayMetrics
from services.platform.tests.jetstream import (
    ALL_MIGRATIONS,
    committed_events,
    event,
    read_everything,
    unique_stream,
    wait_until,
)

pytestmark = pytest.mark.integration


async def start(server: AbstractContextManager[str]) -> str:
    # The embedded server blocks while it starts and stops: keep the event loop (and
    # with it the clients' reconnect loops) running meanwhile.
    return await asyncio.to_thread(server.__enter__)


async def stop(server: AbstractContextManager[str]) -> None:
    await asyncio.to_thread(server.__exit__, None, None, None)


async def test_relay_and_consumer_survive_a_nats_restart_and_deliver_what_was_appended_meanwhile(
    pg_pool: Any, pg_schema: str, tmp_path: Path
) -> None:
    await migrate(pg_pool, pg_schema, ALL_MIGRATIONS)
    store = PostgresEventStore(pg_pool, pg_schema)
    seen: list[UUID] = []

    async def handler(conn: Any, envelope: events_pb2.EventEnvelope) -> None:
        seen.append(UUID(envelope.event_id))  # after the commit, as far as the test sees

    server = embedded_nats(store_dir=tmp_path / "js")
    url = await start(server)
    port = urlsplit(url).port
    assert port is not None
    nc = await bus.connect(url, name="outage", reconnect_time_wait=0.1)
    stream = unique_stream()
    registry = CollectorRegistry()
    relay = Relay(
        pg_pool,
        pg_schema,
        nc.jetstream(),
        stream=stream,
        publish_timeout=0.5,
        max_backoff=0.3,
        metrics=RelayMetrics.register(registry),
    )
    consumer = Consumer(
        nc.jetstream(),
        pg_pool,
        pg_schema,
        "outage",
        stream.filter(),
        handler,
        stream=stream,
        fetch_timeout=0.2,
        max_backoff=0.3,
    )
    stop_event = asyncio.Event()
    tasks = [asyncio.ensure_future(relay.run(stop_event))]
    running: AbstractContextManager[str] | None = server
    try:
        for version in range(5):
            await store.append("match-1", version, [event(f"before {version}")])

        async def before_arrived() -> bool:
            return len(seen) == 5

        tasks.append(asyncio.ensure_future(consumer.run(stop_event)))
        await wait_until(before_arrived, what="the events before the outage")

        running = None
        await stop(server)
        for version in range(5, 12):
            await store.append("match-1", version, [event(f"during {version}")])
        await store.append("match-2", 0, [event("during, elsewhere")])

        async def relay_failed() -> bool:  # it tried, and will try again
            errors = registry.get_sample_value(
                "triad_relay_publish_errors_total", {"relay": "relay"}
            )
            return (errors or 0) >= 1

        await wait_until(relay_failed, what="the relay to fail while NATS is down")

        async def lag_shown() -> bool:
            # Found from outside: the lag stayed 0 while NATS was down (the batch failed
            # before measuring), so TriadOutboxLag could not fire.
            behind = registry.get_sample_value("triad_relay_lag_events", {"relay": "relay"})
            age = registry.get_sample_value("triad_relay_lag_seconds", {"relay": "relay"})
            return behind == 8 and (age or 0) > 0

        await wait_until(lag_shown, what="the lag of the 8 events waiting in PostgreSQL")

        server = embedded_nats(store_dir=tmp_path / "js", port=port)
        assert await start(server) == url
        running = server
        total = await committed_events(pg_pool, pg_schema)

        async def all_arrived() -> bool:
            return len(seen) >= total

        await wait_until(all_arrived, timeout=15, what="the events appended during the outage")
        received = await read_everything(nc.jetstream(), stream)
    finally:
        stop_event.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await nc.close()
        if running is not None:
            await stop(running)

    stored = await store.read_all(START)
    assert len(stored) == total
    published = [UUID(r.envelope.event_id) for r in received]
    assert published == [e.event_id for e in stored]
    assert seen == [e.event_id for e in stored]
    # A publish that timed out in the outage may have been sent on reconnection: its
    # retry is then acknowledged as a duplicate, and counted as published all the same.
    published_total = registry.get_sample_value(
        "triad_relay_events_published_total", {"relay": "relay"}
    )
    assert (published_total or 0) >= len(stored)
