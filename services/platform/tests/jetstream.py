"""Helpers for tests of the relay and the consumers: a stream per test, reading it back,
relays running in the background."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from random import Random
from typing import Any
from uuid import uuid4

from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import DeliverPolicy
from triad.v1 import events_pb2

from services.platform import consumer_schema, eventstore_schema, relay
from services.platform.bus import EventStream
from services.platform.eventstore import NewEvent, PostgresEventStore, WrongExpectedVersion

ALL_MIGRATIONS = (*eventstore_schema.MIGRATIONS, *relay.MIGRATIONS, *consumer_schema.MIGRATIONS)


def unique_stream() -> EventStream:
    """A JetStream stream and subject space of the test's own: the NATS server is shared."""
    tag = uuid4().hex[:12]
    return EventStream(name=f"TEST_{tag}", prefix=f"test{tag}.events")


async def wait_until(
    condition: Callable[[], Awaitable[bool]], timeout: float = 10.0, what: str = "condition"
) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


async def message_count(js: JetStreamContext, stream: EventStream) -> int:
    info = await js.stream_info(stream.name)
    return int(info.state.messages)


async def wait_for_messages(
    js: JetStreamContext, stream: EventStream, count: int, timeout: float = 10.0
) -> None:
    async def arrived() -> bool:
        return await message_count(js, stream) >= count

    await wait_until(arrived, timeout, f"{count} messages in {stream.name}")


@dataclass(frozen=True, slots=True)
class Received:
    msg: Msg
    envelope: events_pb2.EventEnvelope


async def read_everything(js: JetStreamContext, stream: EventStream) -> list[Received]:
    """Every message in the stream, in stream order, through an ordered consumer."""
    count = await message_count(js, stream)
    sub = await js.subscribe(
        stream.filter(),
        stream=stream.name,
        ordered_consumer=True,
        deliver_policy=DeliverPolicy.ALL,
    )
    try:
        received = []
        for _ in range(count):
            msg = await sub.next_msg(timeout=5)
            received.append(Received(msg, events_pb2.EventEnvelope.FromString(msg.data)))
        return received
    finally:
        await sub.unsubscribe()


async def committed_events(pool: Any, schema: str) -> int:
    """How many events are committed, all of them.

    ``read_all`` is no way to count them while a relay runs: a relay's batch holds a
    transaction id, and ``read_all`` stops short of events from younger transactions
    until the batch commits.
    """
    return int(await pool.fetchval(f"SELECT count(*) FROM {schema}.events"))


def event(tag: str = "") -> NewEvent:
    return NewEvent(type="triad.v1.CardPlaced", data=tag.encode(), metadata={"tag": tag})


async def write_concurrently(
    pool: Any,
    store: PostgresEventStore,
    *,
    writers: int,
    appends_per_writer: int,
    streams: list[str],
    seed: int = 7,
) -> None:
    """Writers appending to shared streams, some holding their transaction open a while.

    The slow transactions commit after faster ones that started later: the interleaving
    that makes a naive reader of the global order skip an event.
    """
    versions = dict.fromkeys(streams, 0)

    async def writer(number: int) -> None:
        rng = Random(seed * 1000 + number)
        for n in range(appends_per_writer):
            stream_id = rng.choice(streams)
            batch = [event(f"{number}:{n}:{i}") for i in range(rng.randint(1, 3))]
            hold = rng.random() < 0.3
            while True:
                expected = versions[stream_id]
                try:
                    if hold:
                        async with pool.acquire() as conn, conn.transaction():
                            await store.append_in(conn, stream_id, expected, batch)
                            await asyncio.sleep(rng.uniform(0.005, 0.03))
                    else:
                        await store.append(stream_id, expected, batch)
                except WrongExpectedVersion:
                    versions[stream_id] = max(
                        versions[stream_id], len(await store.read_stream(stream_id))
                    )
                    await asyncio.sleep(rng.uniform(0, 0.003))
                    continue
                versions[stream_id] = max(versions[stream_id], expected + len(batch))
                break

    await asyncio.gather(*(writer(i) for i in range(writers)))


@contextlib.asynccontextmanager
async def running(*relays: relay.Relay) -> AsyncIterator[None]:
    """Run relays in the background; on leaving, let each finish its batch and stop."""
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(r.run(stop)) for r in relays]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*tasks)
