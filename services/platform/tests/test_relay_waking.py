"""The outbox relay when it rests and wakes, on real PostgreSQL and NATS: a caught-up
relay waits for the notice of an append, looks again soon when events wait behind an
older open transaction (the cluster's horizon), shows them as lag and names that
transaction, and a lingering relay publishes appends that commit together in one batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import structlog.testing
from nats.aio.client import Client
from prometheus_client import CollectorRegistry

from services.platform.bus import EventStream
from services.platform.eventstore import PostgresEventStore
from services.platform.eventstore_schema import appended_channel
from services.platform.notifier import Notifier
from services.platform.relay import Relay, RelayMetrics
from services.platform.tests.jetstream import (
    event,
    message_count,
    read_everything,
    running,
    wait_for_messages,
)

pytestmark = pytest.mark.integration


@pytest.fixture
async def woken_relay(
    pg_pool: Any,
    pg_schema: str,
    shared_database_url: str,
    store: PostgresEventStore,  # the schema is migrated before the relay starts
    nc: Client,
    stream: EventStream,
) -> AsyncIterator[Relay]:
    """A running relay that waits for the notices of its schema's appends, with a 60 s
    fallback: whatever it publishes within moments, a notice woke it for."""
    notifier = Notifier(shared_database_url, appended_channel(pg_schema))
    await notifier.start()
    try:
        with notifier.watch(pg_schema) as appended:
            relay = Relay(
                pg_pool, pg_schema, nc.jetstream(), stream=stream, appended=appended,
                idle_interval=60,
            )  # fmt: skip
            async with running(relay):
                await asyncio.sleep(0.3)  # caught up (nothing yet), now resting
                yield relay
    finally:
        await notifier.close()


async def test_a_caught_up_relay_wakes_on_the_notice_of_an_append_not_on_its_timer(
    woken_relay: Relay, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    """The events table's trigger notifies the schema's channel; a relay waiting on it
    publishes each append within moments."""
    js = nc.jetstream()
    for count in (1, 2, 3):
        await store.append(f"match-{count}", 0, [event(str(count))])
        await wait_for_messages(js, stream, count, timeout=5)
    assert [r.envelope.stream_id for r in await read_everything(js, stream)] == [
        "match-1",
        "match-2",
        "match-3",
    ]


async def test_an_append_behind_an_older_open_transaction_is_relayed_once_that_one_ends(
    woken_relay: Relay, pg_pool: Any, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    """Its notice comes at commit, but the relay may not read it yet: an older
    transaction still holds the horizon back. The relay looks again shortly rather than
    waiting for a next notice (here up to 60 s), and publishes it once that one ends."""
    js = nc.jetstream()
    async with pg_pool.acquire() as holder:
        older = holder.transaction()
        await older.start()
        await holder.fetchval("SELECT pg_current_xact_id()")  # holds the horizon
        await store.append("match-late", 0, [event("late")])
        await asyncio.sleep(0.5)
        assert await message_count(js, stream) == 0  # not readable yet
        await older.rollback()
    await wait_for_messages(js, stream, 1, timeout=3)


async def test_events_held_back_by_an_older_transaction_show_as_lag_and_name_their_holder(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    """An open transaction anywhere on the server holds every relay's horizon back. The
    committed events behind it are lag (an operator's alert reads it; it read 0), and the
    relay names the transaction that holds them."""
    registry = CollectorRegistry()
    relay = Relay(
        pg_pool, pg_schema, nc.jetstream(), stream=stream, poll_interval=0.02,
        metrics=RelayMetrics.register(registry), held_back_warning=0.3,
    )  # fmt: skip

    def lag(name: str) -> float | None:
        return registry.get_sample_value(f"triad_relay_lag_{name}", {"relay": "relay"})

    with structlog.testing.capture_logs() as logs:
        async with running(relay), pg_pool.acquire() as holder:
            older = holder.transaction()
            await older.start()
            await holder.fetchval("SELECT pg_current_xact_id()")  # holds the horizon
            holder_pid = await holder.fetchval("SELECT pg_backend_pid()")
            await store.append("match-held", 0, [event("held")])
            await asyncio.sleep(1.0)
            assert await message_count(nc.jetstream(), stream) == 0
            assert lag("events") == 1
            assert (lag("seconds") or 0) >= 0.9
            await older.rollback()
            await wait_for_messages(nc.jetstream(), stream, 1, timeout=3)
            await asyncio.sleep(0.2)
            assert (lag("events"), lag("seconds")) == (0, 0)
    warnings = [x for x in logs if x["event"] == "relay.held_back"]
    assert warnings and warnings[0]["holder"]["pid"] == holder_pid, logs
    assert warnings[0]["waiting_seconds"] >= 0.3
    assert len(warnings) <= 4  # again every 0.3 s while held, not every look


async def test_an_append_behind_the_horizon_after_a_batch_that_published_is_relayed_soon(
    woken_relay: Relay, pg_pool: Any, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    """The batch itself tells that committed events wait after it (``relay_batch()``'s
    ``more``): the relay looks again shortly, not at the next notice (here up to 60 s)."""
    js = nc.jetstream()
    async with pg_pool.acquire() as first, pg_pool.acquire() as second:
        older, younger = first.transaction(), second.transaction()
        await older.start()
        await first.fetchval("SELECT pg_current_xact_id()")  # holds the horizon
        await store.append("match-late", 0, [event("late")])
        await younger.start()
        await second.fetchval("SELECT pg_current_xact_id()")
        await store.append("match-later", 0, [event("later")])  # behind both
        await asyncio.sleep(0.3)  # both notices came and went: the relay polls
        await older.rollback()  # "late" readable, "later" still behind the younger one
        await wait_for_messages(js, stream, 1, timeout=3)
        await asyncio.sleep(0.3)
        assert await message_count(js, stream) == 1
        await younger.rollback()
    await wait_for_messages(js, stream, 2, timeout=3)


async def test_a_lingering_relay_publishes_appends_that_commit_together_in_one_batch(
    pg_pool: Any,
    pg_schema: str,
    shared_database_url: str,
    store: PostgresEventStore,
    nc: Client,
    stream: EventStream,
) -> None:
    """With ``linger``, a notice is followed by a short wait: appends committed meanwhile
    (commands that each commit alone) are read and published in the same batch."""
    notifier = Notifier(shared_database_url, appended_channel(pg_schema))
    await notifier.start()
    batches: list[int] = []
    try:
        with notifier.watch(pg_schema) as appended:
            relay = Relay(
                pg_pool, pg_schema, nc.jetstream(), stream=stream, appended=appended,
                idle_interval=60, linger=0.3,
            )  # fmt: skip
            publish = relay.publish_batch

            async def counted() -> int:
                published = await publish()
                if published:
                    batches.append(published)
                return published

            relay.publish_batch = counted  # type: ignore[method-assign]
            async with running(relay):
                await asyncio.sleep(0.3)  # caught up, resting
                for count in (1, 2, 3):
                    await store.append(f"battle-{count}", 0, [event(str(count))])
                await wait_for_messages(nc.jetstream(), stream, 3, timeout=5)
    finally:
        await notifier.close()
    assert batches == [3]
