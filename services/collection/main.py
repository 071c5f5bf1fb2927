"""``triad-collection``: the composition root of the collection service. Wiring only."""

from __future__ import annotations

import asyncio
from functools import partial
from random import SystemRandom
from typing import Any

import structlog
from prometheus_client import REGISTRY

from services.collection import handlers_auction, handlers_drafts, handlers_trades, metrics, schema
from services.collection.config import CollectionSettings
from services.collection.consumers import match_finished_consumer, postgres_store
from services.collection.domain.catalog import load_catalog
from services.collection.handlers import Context
from services.collection.schema import NOTIFY_CHANNEL, SCHEMA_MIGRATIONS
from services.collection.server import SERVICE_NAME, CollectionServicer, register
from services.collection.server.pushes import Publisher
from services.collection.store import Store
from services.platform.background import appends_to, open_event_stream, utc_now
from services.platform.consumer import ConsumerMetrics
from services.platform.database import create_pool
from services.platform.grpcserver import Lifecycle
from services.platform.migrations import migrate
from services.platform.relay import Relay, RelayMetrics
from services.platform.service import (
    Background,
    open_notifier,
    open_pushes,
    run_service,
    serve,
)

log = structlog.get_logger()


async def use_nats(settings: CollectionSettings, ctx: Context, stop: asyncio.Event) -> None:
    """Relay the collection's event log to JetStream, and settle finished matches from it.
    Connecting waits for NATS as long as it takes; the service serves meanwhile."""
    if settings.nats_url is None:
        log.warning("TRIAD_NATS_URL is not set: no events published, no matches settled")
        return
    link = await open_event_stream(settings.shared, "triad-collection")
    client, js, stream = link.client, link.js, link.stream
    try:
        async with appends_to(settings.database_url, settings.schema, stop) as appended:
            relay = Relay(
                postgres_store(ctx).pool,
                settings.schema,
                js,
                name="collection",
                stream=stream,
                metrics=RelayMetrics.register(REGISTRY),
                appended=appended,
            )
            consumer = match_finished_consumer(
                js, ctx, stream, metrics=ConsumerMetrics.register(REGISTRY)
            )
            await asyncio.gather(relay.run(stop), consumer.run(stop))
    finally:
        # Not drain(): nats-py never marks a pull subscription's queue done, so a drain
        # waits out its whole timeout. Nothing is left to flush: the consumer acked what
        # it applied, and the relay waited for JetStream's ack of every publish.
        await client.close()


async def run(settings: CollectionSettings) -> None:
    async with Lifecycle() as life:
        pool: Any = await life.enter(
            create_pool(settings.database_url, max_size=settings.database_pool_size)
        )
        await migrate(pool, settings.schema, SCHEMA_MIGRATIONS)
        catalog = load_catalog()
        ctx = Context(
            store=Store(pool, settings.schema, catalog),
            catalog=catalog,
            clock=utc_now,
            rng=SystemRandom(),
            choice_seconds=settings.trade_choice_seconds,
            pick_seconds=settings.draft_pick_seconds,
            inactivity_seconds=settings.draft_inactivity_seconds,
            pair_rewards_per_day=settings.reward_matches_per_pair_per_day,
        )
        notifier = await open_notifier(life, settings.database_url, NOTIFY_CHANNEL)
        publisher = Publisher(ctx, await open_pushes(life, settings, "collection"))
        notifier.hear(publisher.hear)
        work = Background.of(life)
        work.prune(
            pool, settings, schema.transient(settings.schema, settings.shared.stream_max_age)
        )

        async def count_locks() -> bool:
            counts = await ctx.store.count_locks()
            for holder in ("match", "trade", "listing"):
                metrics.LOCKED_COPIES.labels(holder=holder).set(counts.get(holder, 0))
            holders = await ctx.store.count_lock_holders()
            metrics.TRADES_PENDING.set(holders.get("trade", 0))
            # One lock per open listing (the listing's copy): the same count.
            metrics.LISTINGS_OPEN.set(counts.get("listing", 0))
            due = await ctx.store.next_due_trade()
            overdue = 0.0 if due is None else (utc_now() - due).total_seconds()
            metrics.TRADE_OVERDUE.set(max(overdue, 0.0))
            return False

        async def check_auction() -> bool:
            metrics.AUCTION_VIOLATIONS.set(await ctx.store.auction_violations())
            return False

        # Idle, each deadline loop sleeps until its earliest deadline (at most the poll
        # ceiling), woken when a command here writes one due sooner (ctx.wakes).
        store = ctx.store
        for fire, next_due, due in (
            (handlers_trades.fire_due_trade, store.next_due_trade, ctx.wakes.trades),
            (handlers_drafts.fire_due_draft, store.next_due_draft, ctx.wakes.drafts),
            (handlers_auction.fire_due_listing, store.next_due_listing, ctx.wakes.listings),
        ):
            work.every(
                settings.timer_poll_seconds,
                partial(fire, ctx),
                next_due=next_due,
                clock=utc_now,
                due=due,
            )
        work.every(5.0, count_locks)
        work.every(60.0, check_auction)
        work.start(
            use_nats(settings, ctx, work.stop),
            notifier.keep_alive(work.stop),
            publisher.run(work.stop),
        )
        servicer = CollectionServicer(ctx, notifier, settings.admin_token)
        log.info("catalog loaded", characters=len(catalog))
        await serve(life, settings, REGISTRY, lambda s: register(s, servicer), [SERVICE_NAME])


def main() -> int:
    return run_service("collection", CollectionSettings.from_env, run)


if __name__ == "__main__":
    raise SystemExit(main())
