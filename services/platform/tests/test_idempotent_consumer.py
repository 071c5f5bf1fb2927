"""Idempotent consumers on real PostgreSQL and NATS: however often an event comes, once.

The effect under test is a row in an ``effects`` table with no unique key, written by
the handler on the connection it is given: a second application would show as a
second row.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import pytest
from nats.aio.client import Client
from prometheus_client import CollectorRegistry
from triad.v1 import events_pb2

from devtools.embedded import embedded_nats
from services.platform import bus
from services.platform.bus import EventStream
from services.platform.consumer import Consumer, ConsumerMetrics, Handler, Outcome, lock_key
from services.platform.consumer_admin import list_consumers, reset_consumer
from services.platform.eventstore import START, PostgresEventStore
from services.platform.migrations import migrate
from services.platform.relay import Relay
from services.platform.tests.jetstream import (
    ALL_MIGRATIONS,
    event,
    unique_stream,
    wait_for_messages,
    wait_until,
)
from services.platform.tests.logcapture import captured_logs

pytestmark = pytest.mark.integration

DURABLE = "effects"


@pytest.fixture
async def store(pg_pool: Any, pg_schema: str) -> PostgresEventStore:
    await migrate(pg_pool, pg_schema, ALL_MIGRATIONS)
    await pg_pool.execute(
        f"CREATE TABLE {pg_schema}.effects (event_id uuid, stream_id text, version integer)"
    )
    return PostgresEventStore(pg_pool, pg_schema)


@pytest.fixture
async def stream(nc: Client) -> AsyncIterator[EventStream]:
    events = unique_stream()
    await bus.ensure_stream(nc.jetstream(), events)
    yield events
    with contextlib.suppress(Exception):
        await nc.jetstream().delete_stream(events.name)


def recording_effects(schema: str) -> Handler:
    async def handler(conn: Any, envelope: events_pb2.EventEnvelope) -> None:
        await conn.execute(
            f"INSERT INTO {schema}.effects VALUES ($1, $2, $3)",
            UUID(envelope.event_id),
            envelope.stream_id,
            envelope.version,
        )

    return handler


async def effects(pool: Any, schema: str) -> list[tuple[UUID, str, int]]:
    rows = await pool.fetch(f"SELECT event_id, stream_id, version FROM {schema}.effects")
    return [(r["event_id"], r["stream_id"], r["version"]) for r in rows]


async def processed(pool: Any, schema: str) -> set[UUID]:
    rows = await pool.fetch(f"SELECT event_id FROM {schema}.processed_events")
    return {r["event_id"] for r in rows}


async def publish_all(pool: Any, schema: str, nc: Client, stream: EventStream) -> None:
    relay = Relay(pool, schema, nc.jetstream(), stream=stream)
    while await relay.publish_batch():
        pass


async def poll_until_quiet(consumer: Consumer, rounds: int = 3) -> Counter[Outcome]:
    """Poll until ``rounds`` fetches in a row bring nothing; tally what happened."""
    seen: Counter[Outcome] = Counter()
    quiet = 0
    while quiet < rounds:
        outcomes = await consumer.poll()
        seen.update(outcomes)
        quiet = 0 if outcomes else quiet + 1
    return seen


def consumer_for(
    nc: Client, pool: Any, schema: str, stream: EventStream, **options: Any
) -> tuple[Consumer, CollectorRegistry]:
    registry = CollectorRegistry()
    consumer = Consumer(
        nc.jetstream(),
        pool,
        schema,
        DURABLE,
        stream.filter("match"),
        options.pop("handler", None) or recording_effects(schema),
        stream=stream,
        fetch_timeout=0.1,
        metrics=ConsumerMetrics.register(registry),
        **options,
    )
    return consumer, registry


def metric(registry: CollectorRegistry, name: str) -> float:
    return registry.get_sample_value(name, {"consumer": DURABLE}) or 0.0


async def test_each_event_is_applied_once_in_stream_order_and_the_durable_resumes(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    for version in range(5):
        for match in ("match-a", "match-b"):
            await store.append(match, version, [event(f"{match}:{version}")])
    await store.append("player-1", 0, [event("not for this consumer's filter")])
    await publish_all(pg_pool, pg_schema, nc, stream)
    consumer, registry = consumer_for(nc, pg_pool, pg_schema, stream)

    stop = asyncio.Event()
    task = asyncio.ensure_future(consumer.run(stop))
    try:

        async def all_applied() -> bool:
            return len(await effects(pg_pool, pg_schema)) == 10

        await wait_until(all_applied, what="ten effects")
    finally:
        stop.set()
        await task

    applied = await effects(pg_pool, pg_schema)
    for match in ("match-a", "match-b"):
        assert [v for _, s, v in applied if s == match] == [1, 2, 3, 4, 5]
    assert metric(registry, "triad_consumer_events_processed_total") == 10

    # Another process with the same durable name takes up where this one stopped.
    await store.append("match-a", 5, [event("later")])
    await publish_all(pg_pool, pg_schema, nc, stream)
    successor, registry = consumer_for(nc, pg_pool, pg_schema, stream)
    seen = await poll_until_quiet(successor)
    assert seen == Counter({Outcome.APPLIED: 1})
    assert len(await effects(pg_pool, pg_schema)) == 11
    info = await nc.jetstream().consumer_info(stream.name, DURABLE)
    assert (info.num_pending, info.num_ack_pending) == (0, 0)
    assert metric(registry, "triad_consumer_lag_events") == 0


async def test_an_event_published_twice_under_different_message_ids_is_applied_once(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    # As when the relay republishes after JetStream's duplicate window has passed.
    (recorded,) = await store.append("match-1", 0, [event("once")])
    body = bus.envelope(recorded).SerializeToString()
    subject = stream.subject(recorded.stream_id, recorded.type)
    js = nc.jetstream()
    for _ in range(3):
        await js.publish(subject, body, stream=stream.name, headers={bus.MSG_ID: str(uuid4())})
    await wait_for_messages(js, stream, 3)
    consumer, registry = consumer_for(nc, pg_pool, pg_schema, stream)

    seen = await poll_until_quiet(consumer)

    assert seen == Counter({Outcome.APPLIED: 1, Outcome.DUPLICATE: 2})
    assert await effects(pg_pool, pg_schema) == [(recorded.event_id, "match-1", 1)]
    assert metric(registry, "triad_consumer_duplicates_skipped_total") == 2


async def test_a_lost_ack_brings_the_event_again_and_its_effect_does_not_run_twice(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    (recorded,) = await store.append("match-1", 0, [event("crash before ack")])
    await publish_all(pg_pool, pg_schema, nc, stream)
    consumer, registry = consumer_for(nc, pg_pool, pg_schema, stream)
    await consumer.start()

    # A first process applies the effect and commits, then dies before its ack: the
    # server hands the message out again (a nak does it now, instead of after ack_wait).
    js = nc.jetstream()
    doomed = await js.pull_subscribe_bind(durable=DURABLE, stream=stream.name)
    (msg,) = await doomed.fetch(1, timeout=2)
    assert await consumer.apply(events_pb2.EventEnvelope.FromString(msg.data)) is True
    await msg.nak()

    seen = await poll_until_quiet(consumer)

    assert seen == Counter({Outcome.DUPLICATE: 1})
    assert await effects(pg_pool, pg_schema) == [(recorded.event_id, "match-1", 1)]
    assert metric(registry, "triad_consumer_redeliveries_total") == 1
    info = await js.consumer_info(stream.name, DURABLE)
    assert info.num_ack_pending == 0


def failing_once(schema: str, event_id: UUID) -> Handler:
    """Writes its effect, then fails the first time it sees ``event_id``."""
    record = recording_effects(schema)
    attempts: Counter[UUID] = Counter()

    async def handler(conn: Any, envelope: events_pb2.EventEnvelope) -> None:
        attempts[UUID(envelope.event_id)] += 1
        await record(conn, envelope)
        if UUID(envelope.event_id) == event_id and attempts[event_id] == 1:
            raise RuntimeError("the rating service's dependency is down")

    return handler


async def test_a_failing_handler_leaves_no_trace_and_the_retry_applies_the_event_once(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    recorded = await store.append("match-1", 0, [event("a"), event("b"), event("c")])
    failing = recorded[1].event_id
    await publish_all(pg_pool, pg_schema, nc, stream)
    consumer, registry = consumer_for(
        nc, pg_pool, pg_schema, stream, handler=failing_once(pg_schema, failing), retry_delay=0.2
    )

    first = await consumer.poll()
    assert first == [Outcome.APPLIED, Outcome.FAILED]  # and "c" is handed back unprocessed
    assert failing not in await processed(pg_pool, pg_schema)
    assert [e[0] for e in await effects(pg_pool, pg_schema)] == [recorded[0].event_id]

    seen = await poll_until_quiet(consumer, rounds=4)  # quiet for longer than the redelivery delay

    assert seen == Counter({Outcome.APPLIED: 2})
    assert Counter(e[0] for e in await effects(pg_pool, pg_schema)) == Counter(
        r.event_id for r in recorded
    )
    assert await processed(pg_pool, pg_schema) == {r.event_id for r in recorded}
    assert metric(registry, "triad_consumer_handler_failures_total") == 1
    assert metric(registry, "triad_consumer_events_processed_total") == 3


async def test_a_handler_bug_is_logged_with_its_traceback_an_outage_without(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    """A poison event (TriadConsumerFailing) needs a code fix: the line names the event
    and says where the handler failed; an outage recovers by itself, one line each."""
    recorded = await store.append("match-1", 0, [event("a"), event("b")])
    await publish_all(pg_pool, pg_schema, nc, stream)
    bug, outage = (str(r.event_id) for r in recorded)
    attempts: Counter[str] = Counter()

    async def handler(conn: Any, envelope: events_pb2.EventEnvelope) -> None:
        attempts[envelope.event_id] += 1
        if attempts[envelope.event_id] == 1 and envelope.event_id == bug:
            raise KeyError("ladder")  # a bug of the handler's
        if attempts[envelope.event_id] == 1:
            raise ConnectionRefusedError("the rating database is away")

    consumer, _ = consumer_for(nc, pg_pool, pg_schema, stream, handler=handler, retry_delay=0.2)
    with captured_logs() as logs:
        await poll_until_quiet(consumer, rounds=4)
    failed = {line["event_id"]: line for line in logs.events("consumer.handler_failed")}
    assert "Traceback" in failed[bug]["exception"] and "in handler" in failed[bug]["exception"]
    assert failed[outage]["error"].startswith("ConnectionRefusedError")
    assert "exception" not in failed[outage]


async def test_with_one_message_in_flight_a_failure_holds_back_the_rest_of_the_stream(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    recorded = await store.append("match-1", 0, [event("a"), event("b"), event("c")])
    await publish_all(pg_pool, pg_schema, nc, stream)
    handler = failing_once(pg_schema, recorded[1].event_id)
    consumer, _ = consumer_for(
        nc, pg_pool, pg_schema, stream, handler=handler, retry_delay=0.2, max_ack_pending=1
    )

    await poll_until_quiet(consumer, rounds=4)

    applied = [(e[0], e[2]) for e in await effects(pg_pool, pg_schema)]
    assert applied == [(r.event_id, r.version) for r in recorded]


async def test_a_message_that_is_no_event_is_terminated_not_retried(
    pg_pool: Any, pg_schema: str, store: PostgresEventStore, nc: Client, stream: EventStream
) -> None:
    js = nc.jetstream()
    await js.publish(stream.subject("match-1", "Garbage"), b"\xff\xff not protobuf")
    consumer, _ = consumer_for(nc, pg_pool, pg_schema, stream)

    assert await poll_until_quiet(consumer) == Counter({Outcome.REJECTED: 1})
    info = await js.consumer_info(stream.name, DURABLE)
    assert (info.num_pending, info.num_ack_pending) == (0, 0)
    assert await store.read_all(START) == []


# Replaying while the consumer runs: services/platform/consumer_admin.py, the engine of
# ``triad-admin consumer reset`` (as a process against the whole backend:
# tests/e2e/test_operator_consumers.py).


async def lock_waiters(pool: Any, key: int) -> int:
    """Sessions waiting for the advisory lock ``key`` (a bigint key shows as two halves)."""
    high, low = (key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF
    return int(
        await pool.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND classid::bigint = $1 AND objid::bigint = $2 AND objsubid = 1",
            high,
            low,
        )
    )


async def test_a_reset_waits_for_the_delivery_in_flight_and_has_it_applied_again(
    pg_pool: Any,
    pg_schema: str,
    store: PostgresEventStore,
    shared_database_url: str,
) -> None:
    # A NATS of its own: the reset request needs 2.14 or later (the embedded server and
    # the deployment's are), and TRIAD_TEST_SERVERS may point at an older one.
    with embedded_nats() as url:
        nc = await bus.connect(url, name="test-replay")
        try:
            stream = unique_stream()
            await bus.ensure_stream(nc.jetstream(), stream)
            await replay_while_in_flight(pg_pool, pg_schema, store, nc, stream, shared_database_url)
        finally:
            await nc.close()


async def replay_while_in_flight(
    pg_pool: Any,
    pg_schema: str,
    store: PostgresEventStore,
    nc: Client,
    stream: EventStream,
    shared_database_url: str,
) -> None:
    for version in range(3):
        await store.append("match-a", version, [event(f"a{version}")])
    await publish_all(pg_pool, pg_schema, nc, stream)
    record = recording_effects(pg_schema)
    entered, gate = asyncio.Event(), asyncio.Event()

    async def slow_on_the_last(conn: Any, envelope: events_pb2.EventEnvelope) -> None:
        await record(conn, envelope)
        if envelope.version == 3 and not gate.is_set():
            entered.set()
            await gate.wait()  # marked, effect written, not committed: in flight

    consumer, _ = consumer_for(nc, pg_pool, pg_schema, stream, handler=slow_on_the_last)
    polling = asyncio.create_task(consumer.poll())  # one batch: the three events
    await asyncio.wait_for(entered.wait(), 10)

    admin = await asyncpg.connect(shared_database_url)
    try:
        js = nc.jetstream()
        resetting = asyncio.create_task(reset_consumer(admin, js, DURABLE, 0, pg_schema))
        key = lock_key(pg_schema, DURABLE)

        async def reset_waits() -> bool:
            return await lock_waiters(pg_pool, key) == 1

        await wait_until(reset_waits, what="the reset to wait for the delivery in flight")
        assert not resetting.done()
        gate.set()
        result = await asyncio.wait_for(resetting, 10)
        assert await polling == [Outcome.APPLIED] * 3
        # The mark of the delivery in flight committed first, and was forgotten too.
        assert (result.position, result.marks_forgotten) == (0, 3)
        assert await processed(pg_pool, pg_schema) == set()

        assert await poll_until_quiet(consumer) == Counter({Outcome.APPLIED: 3})
        versions = Counter(v for _, _, v in await effects(pg_pool, pg_schema))
        assert versions == {1: 2, 2: 2, 3: 2}  # each handler ran once more
        [state] = await list_consumers(admin, js, pg_schema)
        assert (state.name, state.marks, state.caught_up) == (DURABLE, 3, True)
        assert state.position == state.stream_last == 3
    finally:
        gate.set()
        await admin.close()
