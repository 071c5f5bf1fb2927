"""The outbox relay on real PostgreSQL and NATS: every event once, in the global order.

What is compared is what a JetStream ordered consumer receives against what
``read_all`` returns once every writer has committed: the same event ids, in the same
order, each once.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast
from uuid import UUID

import pytest
from nats.aio.client import Client
from nats.js import JetStreamContext
from prometheus_client import CollectorRegistry

from services.platform import bus
from services.platform.bus import EventStream
from services.platform.eventstore import START, PostgresEventStore, Recorded
from services.platform.relay import Relay, RelayMetrics
from services.platform.tests.jetstream import (
    Received,
    committed_events,
    event,
    message_count,
    read_everything,
    running,
    wait_for_messages,
    write_concurrently,
)

pytestmark = pytest.mark.integration


async def everything(store: PostgresEventStore) -> list[Recorded]:
    return await store.read_all(START, limit=100_000)


def assert_published_once_in_global_order(received: list[Received], stored: list[Recorded]) -> None:
    assert [UUID(r.envelope.event_id) for r in received] == [e.event_id for e in stored]
    last_version: dict[str, int] = {}
    for item in received:
        envelope = item.envelope
        assert envelope.version == last_version.get(envelope.stream_id, 0) + 1
        last_version[envelope.stream_id] = envelope.version


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


async def test_a_stream_kept_for_ever_is_brought_to_the_deployments_retention(
    nc: Client, stream: EventStream
) -> None:
    """A stream created before retention was set (kept for ever) ages its events out
    once a service starts with ``TRIAD_NATS_STREAM_MAX_AGE_SECONDS``."""
    js = nc.jetstream()
    for_ever = await bus.ensure_stream(js, stream)
    week = EventStream(stream.name, stream.prefix, max_age=7 * 24 * 3600.0)
    aged = await bus.ensure_stream(js, week)

    assert not for_ever.config.max_age
    assert aged.config.max_age == 7 * 24 * 3600


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
