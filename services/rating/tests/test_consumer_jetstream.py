"""MatchFinished through real JetStream into the ladders on real PostgreSQL, once.

Envelopes are published as the match service's relay publishes them (subject
``<prefix>.match.MatchFinished``, ``Nats-Msg-Id`` = event id); the rating consumer
applies them. Duplicates past JetStream's window, a lost ack after a commit (the
process died between its commit and its ack) and a failure before the commit each
leave exactly one rating change per player per match.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from random import Random
from typing import Any
from uuid import UUID, uuid4

import pytest
from nats.aio.client import Client
from prometheus_client import CollectorRegistry

from services.platform import bus
from services.platform.bus import EventStream
from services.platform.consumer import ConsumerMetrics, Outcome
from services.platform.tests.jetstream import unique_stream, wait_for_messages, wait_until
from services.rating.consumers import RatingConsumer
from services.rating.domain import FinishedGame
from services.rating.metrics import RatingMetrics
from services.rating.store import PostgresLadders, RatingReader
from services.rating.tests.builders import envelope, event_id, game, random_games
from services.rating.tests.replay import check_log_against_the_formula, clean

pytestmark = pytest.mark.integration
DURABLE = "rating"


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await bus.connect(nats_url, name="test-rating", reconnect_time_wait=0.2)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
async def stream(nc: Client) -> AsyncIterator[EventStream]:
    events = unique_stream()
    await bus.ensure_stream(nc.jetstream(), events)
    yield events
    with contextlib.suppress(Exception):
        await nc.jetstream().delete_stream(events.name)


async def publish(
    nc: Client, stream: EventStream, g: FinishedGame, msg_id: str | None = None
) -> None:
    body = envelope(g).SerializeToString()
    subject = stream.subject(f"match-{g.match_id}", "triad.v1.MatchFinished")
    await nc.jetstream().publish(
        subject,
        body,
        stream=stream.name,
        headers={bus.MSG_ID: msg_id or str(event_id(g.match_id))},
    )


def rating_consumer(
    nc: Client, pool: Any, schema: str, stream: EventStream
) -> tuple[RatingConsumer, CollectorRegistry]:
    registry = CollectorRegistry()
    made = RatingConsumer(
        nc.jetstream(),
        pool,
        schema,
        0,
        durable=DURABLE,
        stream=stream,
        metrics=RatingMetrics.register(registry),
        consumer_metrics=ConsumerMetrics.register(registry),
        fetch_timeout=0.1,
        retry_delay=0.1,
    )
    return made, registry


async def poll_until_quiet(consumer: RatingConsumer, rounds: int = 3) -> Counter[Outcome]:
    seen: Counter[Outcome] = Counter()
    quiet = 0
    while quiet < rounds:
        outcomes = await consumer.poll()
        seen.update(outcomes)
        quiet = 0 if outcomes else quiet + 1
    return seen


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return registry.get_sample_value(name, labels) or 0.0


async def test_a_backlog_with_repeats_is_rated_once_in_stream_order(
    pg_pool: Any, rating_schema: str, nc: Client, stream: EventStream
) -> None:
    games = random_games(Random(11), 120, players=10)
    for g in games:
        await publish(nc, stream, g)
    # The relay republished some events after the duplicate window: new message ids.
    for g in Random(12).sample(games, 30):
        await publish(nc, stream, g, msg_id=str(uuid4()))
    # And one event ten times over, to be sure.
    for _ in range(10):
        await publish(nc, stream, games[0], msg_id=str(uuid4()))
    await wait_for_messages(nc.jetstream(), stream, 160)
    consumer, registry = rating_consumer(nc, pg_pool, rating_schema, stream)
    await consumer.start()

    stop = asyncio.Event()
    task = asyncio.ensure_future(consumer.run(stop))
    try:

        async def drained() -> bool:
            info = await nc.jetstream().consumer_info(stream.name, DURABLE)
            return (info.num_pending, info.num_ack_pending) == (0, 0)

        await wait_until(drained, timeout=30, what="the backlog consumed")
    finally:
        stop.set()
        await task

    log = await RatingReader(pg_pool, rating_schema).log()
    assert [c.match_id for c in log[::2]] == [g.match_id for g in games]  # stream order
    check_log_against_the_formula(log)
    expected = clean(games)
    for (key, player), standing in expected.rows.items():
        (mine,) = await RatingReader(pg_pool, rating_schema).standings(key, [player])
        assert mine.standing == standing
    assert (
        sample(registry, "triad_rating_updates_applied_total", ladder="ranked", season="0") == 120
    )
    assert sample(registry, "triad_rating_duplicates_ignored_total", kind="event") == 40
    assert sample(registry, "triad_consumer_events_processed_total", consumer=DURABLE) == 120


async def test_the_same_message_id_ten_times_is_one_message_and_one_rating(
    pg_pool: Any, rating_schema: str, nc: Client, stream: EventStream
) -> None:
    g = game("m1", "ann", "bea")
    for _ in range(10):
        await publish(nc, stream, g)
    await wait_for_messages(nc.jetstream(), stream, 1)
    consumer, _ = rating_consumer(nc, pg_pool, rating_schema, stream)
    assert await poll_until_quiet(consumer) == Counter({Outcome.APPLIED: 1})
    assert len(await RatingReader(pg_pool, rating_schema).log()) == 2


async def test_a_crash_between_commit_and_ack_brings_the_event_again_and_it_is_not_rerated(
    pg_pool: Any, rating_schema: str, nc: Client, stream: EventStream
) -> None:
    g = game("m1", "ann", "bea")
    await publish(nc, stream, g)
    consumer, registry = rating_consumer(nc, pg_pool, rating_schema, stream)
    await consumer.start()
    # A first process rates the match and commits, then dies before its ack: the server
    # hands the message out again (a nak does it now rather than after ack_wait).
    doomed = await nc.jetstream().pull_subscribe_bind(durable=DURABLE, stream=stream.name)
    (msg,) = await doomed.fetch(1, timeout=2)
    assert await consumer.apply(envelope(g)) is True
    await msg.nak()

    assert await poll_until_quiet(consumer) == Counter({Outcome.DUPLICATE: 1})
    log = await RatingReader(pg_pool, rating_schema).log()
    assert [(c.player_id, c.delta) for c in log] == [("ann", 20), ("bea", -20)]
    assert sample(registry, "triad_consumer_redeliveries_total", consumer=DURABLE) == 1


async def test_a_crash_before_the_commit_leaves_nothing_and_the_redelivery_rates_once(
    pg_pool: Any,
    rating_schema: str,
    nc: Client,
    stream: EventStream,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = [game("m1", "ann", "bea"), game("m2", "bea", "cid")]
    for g in games:
        await publish(nc, stream, g)
    consumer, registry = rating_consumer(nc, pg_pool, rating_schema, stream)
    original = PostgresLadders.record
    failures: list[UUID] = []

    async def dies_once(self: PostgresLadders, *args: Any) -> Any:
        recorded = await original(self, *args)
        if not failures:
            failures.append(args[2])
            raise ConnectionResetError("killed after writing, before the commit")
        return recorded

    monkeypatch.setattr(PostgresLadders, "record", dies_once)
    seen = await poll_until_quiet(consumer, rounds=4)

    assert seen[Outcome.FAILED] == 1 and seen[Outcome.APPLIED] == 2
    log = await RatingReader(pg_pool, rating_schema).log()
    assert sorted(c.match_id for c in log) == ["m1", "m1", "m2", "m2"]
    check_log_against_the_formula(log)
    assert sample(registry, "triad_consumer_handler_failures_total", consumer=DURABLE) == 1
