"""``triad-rating``: the composition root of the rating service. Wiring only."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import asyncpg
import structlog

from services.platform import bus
from services.platform.consumer import ConsumerMetrics
from services.platform.database import create_pool
from services.platform.grpcserver import Lifecycle
from services.platform.metrics import new_registry
from services.platform.migrations import migrate
from services.platform.pushes import PlayerPushes
from services.platform.service import Background, open_notifier, open_pushes, run_service, serve
from services.rating import schema
from services.rating.config import RatingSettings
from services.rating.consumers import ForfeitedDraftConsumer, RatingConsumer
from services.rating.domain import Ladder, LadderKey
from services.rating.metrics import BAND, RatingMetrics
from services.rating.schema import NOTIFY_CHANNEL, SCHEMA_MIGRATIONS
from services.rating.server import SERVICE_NAME, RatingServicer, register
from services.rating.store import RatingReader

log = structlog.get_logger()

DISTRIBUTION_SECONDS = 15.0


async def consume(
    settings: RatingSettings,
    pool: Any,
    stop: asyncio.Event,
    metrics: RatingMetrics,
    consumer_metrics: ConsumerMetrics,
    pushes: PlayerPushes,
) -> None:
    """Rate every MatchFinished and DraftForfeited on the stream and tell each player
    their change (``pushes``). Connecting waits for NATS as long as it takes; the reads
    are served meanwhile."""
    if settings.nats_url is None:
        log.warning("TRIAD_NATS_URL is not set: no result is consumed, ratings stay")
        return
    client = await bus.connect(list(settings.nats_servers), name="triad-rating")
    try:
        stream = bus.EventStream.of(settings.shared)
        await bus.ensure_stream(client.jetstream(), stream)

        def worker(kind: type[RatingConsumer], durable: str, **options: Any) -> RatingConsumer:
            return kind(
                client.jetstream(),
                pool,
                settings.schema,
                settings.season,
                durable=durable,
                stream=stream,
                metrics=metrics,
                consumer_metrics=consumer_metrics,
                pushes=pushes,
                ack_wait=settings.ack_wait_seconds,
                **options,
            )

        # The MatchFinished workers share one durable consumer: JetStream hands each
        # fetch to one of them.
        batch = 256 if settings.workers == 1 else 32
        workers = [
            worker(RatingConsumer, settings.consumer, batch=batch) for _ in range(settings.workers)
        ]
        # Forfeited drafts are few: one pull loop on a durable consumer of their own.
        workers.append(worker(ForfeitedDraftConsumer, settings.draft_consumer))
        await asyncio.gather(*(consumer.run(stop) for consumer in workers))
    finally:
        # Not drain(): with the consumer's pull subscription bound, nats-py's drain waits
        # on that subscription's queue forever. Flushing sends the last acks; an ack lost
        # anyway only brings its event again, which the processed mark turns away.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.flush(), 2.0)
        await client.close()


async def publish_distribution(
    reader: RatingReader, season: int, metrics: RatingMetrics, stop: asyncio.Event
) -> None:
    """Refresh the rating distribution gauges of the current season's ladders."""
    while not stop.is_set():
        for ladder in Ladder:
            key = LadderKey(ladder, season)
            try:
                metrics.distribution(key, await reader.distribution(key, BAND))
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                log.warning("rating.distribution_failed", error=str(error))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), DISTRIBUTION_SECONDS)


async def run(settings: RatingSettings) -> None:
    registry = new_registry()
    async with Lifecycle() as life:
        pool = await life.enter(
            create_pool(settings.database_url, max_size=min(16, settings.database_pool_size))
        )
        await migrate(pool, settings.schema, SCHEMA_MIGRATIONS)
        reader = RatingReader(pool, settings.schema)
        notifier = await open_notifier(life, settings.database_url, NOTIFY_CHANNEL)
        metrics = RatingMetrics.register(registry)
        pushes = await open_pushes(life, settings, "rating", registry)
        consumer_metrics = ConsumerMetrics.register(registry)
        work = Background.of(life)
        work.prune(
            pool, settings, schema.transient(settings.schema, settings.shared.stream_max_age)
        )
        work.start(
            consume(settings, pool, work.stop, metrics, consumer_metrics, pushes),
            notifier.keep_alive(work.stop),
            publish_distribution(reader, settings.season, metrics, work.stop),
        )
        log.info("rating.season", current=settings.season)
        servicer = RatingServicer(reader, notifier, settings.season)
        await serve(life, settings, registry, lambda s: register(s, servicer), [SERVICE_NAME])


def main() -> int:
    return run_service("rating", RatingSettings.from_env, run)


if __name__ == "__main__":
    raise SystemExit(main())
