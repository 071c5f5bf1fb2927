"""The outbox relay on real PostgreSQL and NATS: every event once, in the global order.

What is compared is what a JetStream ordered consumer receives against what
``read_all`` returns once every writer has committed: the same event ids, in the same
order, each once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, cast
from uuid import UUID

import pytest
import structlog.testing
from nats.aio.client import Client
from nats.js import JetStreamContext
from prometheus_client import CollectorRegistry

from services.platform import bus
from services.platform.bus import EventStream
from services.platform.eventstore import START, PostgresEventStore, Recorded
from services.platform.eventstore_schema import appended_channel
from services.platform.migrations import migrate
from services.platform.notifier import Notifier
from services.platform.relay import Relay, RelayMetrics
from services.platform.tests.jetstream import (
    ALL_MIGRATIONS,
    Received,
    committed_events,
    event,
    message_count,
    read_everything,
    unique_stream,
    wait_for_messages,
    write_concurrently,
)

pytestmark = pytest.mark.integration


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


async def everything(store: PostgresEventStore) -> list[Recorded]:
    return await store.read_all(START, limit=100_000)


def assert_published_once_in_global_order(received: list[Received], stored: list[Recorded]) -> None:
    assert [UUID(r.envelope.event_id) for r in received] == [e.event_id for e in stored]
    last_version: dict[str, int] = {}
    for item in received:
        envelope = item.envelope
        assert envelope.version == last_version.get(envelope.stream_id, 0) + 1
        last_version[envelope.stream_id] = envelope.version


@contextlib.asynccontextmanager
async def running(*relays: Relay) -> AsyncIterator[None]:
    """Run relays in the background; on leaving, let each finish its batch and stop."""
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(r.run(stop)) for r in relays]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*tasks)


async def test_subjects_name_the_component_and_the_short_type() -> None:
    events = EventStream()
    assert events.subject("match-3f2a", "triad.v1.CardPlaced") == "triad.events.match.CardPlaced"
    assert events.subject("rating-ranked-0-p1", "triad.v1.RatingChanged") == (
        "triad.events.rating.RatingChanged"
    )
    # A name that is no valid token is made one, rather than stopping the relay there.
    assert events.subject("odd.name*", "Plain") == "triad.events.odd_name_.Plain"
    assert events.filter() == "triad.events.>"
    assert events.filter("match") == "triad.events.match.*"


async def test_the_client_never_stops_reconnecting(nc: Client) -> None:
    assert nc.options["max_reconnect_attempts"] == -1
    assert nc.options["allow_reconnect"] is True


async def test_the_stream_is_created_idempotently_and_brought_to_its_configuration(
    nc: Client, stream: EventStream
) -> None:
    js = nc.jetstream()
    first = await bus.ensure_stream(js, stream)
    again = await bus.ensure_stream(js, stream)
    wider = EventStream(stream.name, stream.prefix, duplicate_window=300.0)
    updated = await bus.ensure_stream(js, wider)

    assert first.config.subjects == again.config.subjects == [f"{stream.prefix}.>"]
    assert first.config.duplicate_window == 120.0
    assert updated.config.duplicate_window == 300.0


async def test_every_event_is_published_once_in_the_global_order_across_many_streams(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    js = nc.jetstream()
    registry = CollectorRegistry()
    relay = Relay(
        pg_pool,
        pg_schema,
        js,
        stream=stream,
        batch_size=50,
        metrics=RelayMetrics.register(registry),
    )
    streams = [f"match-{i}" for i in range(24)] + [f"player-{i}" for i in range(8)]

    async with running(relay):
        await write_concurrently(pg_pool, store, writers=12, appends_per_writer=25, streams=streams)
        await wait_for_messages(js, stream, await committed_events(pg_pool, pg_schema))

    stored = await everything(store)  # now that no relay transaction holds xmin back
    received = await read_everything(js, stream)
    assert_published_once_in_global_order(received, stored)
    assert await relay.position() == stored[-1].position
    assert registry.get_sample_value(
        "triad_relay_events_published_total", {"relay": "relay"}
    ) == len(stored)
    assert await relay.publish_batch() == 0  # nothing left behind
    assert registry.get_sample_value("triad_relay_lag_events", {"relay": "relay"}) == 0

    first = received[0]
    assert first.msg.subject == stream.subject(stored[0].stream_id, stored[0].type)
    assert first.msg.headers is not None
    assert first.msg.headers[bus.MSG_ID] == str(stored[0].event_id)
    assert first.msg.headers[bus.STREAM_ID] == stored[0].stream_id
    assert first.msg.headers[bus.VERSION] == str(stored[0].version)
    assert first.msg.headers[bus.EVENT_TYPE] == "triad.v1.CardPlaced"
    assert first.envelope.payload == stored[0].data
    assert first.envelope.global_position == stored[0].position.seq


async def test_two_relays_at_once_lose_nothing_reorder_nothing_and_duplicate_nothing(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nats_url: str, stream: EventStream
) -> None:
    # Two processes: a connection each, the same relay name, so the same checkpoint row.
    first_nc = await bus.connect(nats_url, name="relay-a")
    second_nc = await bus.connect(nats_url, name="relay-b")
    registries = [CollectorRegistry(), CollectorRegistry()]
    relays = [
        Relay(
            pg_pool,
            pg_schema,
            c.jetstream(),
            stream=stream,
            batch_size=7,
            metrics=RelayMetrics.register(registry),
        )
        for c, registry in zip((first_nc, second_nc), registries, strict=True)
    ]
    streams = [f"match-{i}" for i in range(16)]
    try:
        async with running(*relays):
            await write_concurrently(
                pg_pool, store, writers=12, appends_per_writer=20, streams=streams, seed=11
            )
            total = await committed_events(pg_pool, pg_schema)
            await wait_for_messages(first_nc.jetstream(), stream, total)
            await asyncio.sleep(0.1)  # room for a stray duplicate to show up, if any
        stored = await everything(store)
        received = await read_everything(first_nc.jetstream(), stream)
    finally:
        await first_nc.close()
        await second_nc.close()

    assert_published_once_in_global_order(received, stored)
    published = [
        r.get_sample_value("triad_relay_events_published_total", {"relay": "relay"})
        for r in registries
    ]
    duplicates = [
        r.get_sample_value("triad_relay_duplicates_total", {"relay": "relay"}) for r in registries
    ]
    assert all(p for p in published), f"both relays took turns: {published}"
    assert sum(p or 0 for p in published) == len(stored)
    assert duplicates == [0, 0]


class CrashAfterPublishing:
    """A JetStream context whose process dies after its n-th publish was acknowledged."""

    def __init__(self, js: JetStreamContext, crash_after: int) -> None:
        self._js = js
        self.crash_after = crash_after
        self.published = 0

    async def publish(self, *args: Any, **kwargs: Any) -> Any:
        ack = await self._js.publish(*args, **kwargs)
        self.published += 1
        if self.published == self.crash_after:
            raise SystemError("the relay died before it could commit its checkpoint")
        return ack

    def __getattr__(self, name: str) -> Any:
        return getattr(self._js, name)


async def test_a_crash_between_publishing_and_committing_republishes_and_jetstream_drops_copies(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    js = nc.jetstream()
    for i in range(10):
        await store.append(f"match-{i % 3}", i // 3, [event(str(i))])
    dying = CrashAfterPublishing(js, crash_after=10)  # everything sent, nothing committed
    with pytest.raises(SystemError):
        await Relay(
            pg_pool, pg_schema, cast(JetStreamContext, dying), stream=stream
        ).publish_batch()
    assert await message_count(js, stream) == 10

    registry = CollectorRegistry()
    restarted = Relay(
        pg_pool, pg_schema, js, stream=stream, metrics=RelayMetrics.register(registry)
    )
    assert await restarted.position() == START  # the checkpoint never moved
    assert await restarted.publish_batch() == 10

    assert registry.get_sample_value("triad_relay_duplicates_total", {"relay": "relay"}) == 10
    assert await message_count(js, stream) == 10
    assert_published_once_in_global_order(
        await read_everything(js, stream), await everything(store)
    )


async def test_a_restarted_relay_resumes_after_its_checkpoint(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    js = nc.jetstream()
    await store.append("match-1", 0, [event("a"), event("b")])
    assert await Relay(pg_pool, pg_schema, js, stream=stream).publish_batch() == 2
    await store.append("match-1", 2, [event("c")])
    registry = CollectorRegistry()
    later = Relay(pg_pool, pg_schema, js, stream=stream, metrics=RelayMetrics.register(registry))

    assert await later.publish_batch() == 1
    assert await later.publish_batch() == 0
    assert registry.get_sample_value("triad_relay_duplicates_total", {"relay": "relay"}) == 0
    assert_published_once_in_global_order(
        await read_everything(js, stream), await everything(store)
    )


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
