"""``triad-matchmaker``: the composition root of the matchmaker. Wiring only.

Background work, on every replica (the schema makes them safe to run side by side):
pairing rounds, taking over match starts whose replica died, expiring idle tables,
refreshing the queue gauges, relaying the event log to JetStream and, with a
collection service, starting Draft matches when their drafts complete. Players hear of
their tickets and tables on their NATS subjects (``pushes.py``), from the replica that
changed them.
"""

from __future__ import annotations

import asyncio
from functools import partial
from random import SystemRandom
from typing import Any

import structlog
from prometheus_client import CollectorRegistry

from services.matchmaker import consumers, handlers_lobby, handlers_pairing, handlers_starts, schema
from services.matchmaker.clients import (
    FixedRatings,
    GrpcBattles,
    GrpcCollection,
    GrpcMatches,
    GrpcRatings,
    LocalBotDecks,
    NoObligations,
    StarterDecks,
)
from services.matchmaker.config import MatchmakerSettings
from services.matchmaker.domain import QUEUES
from services.matchmaker.handlers import Context, Ports
from services.matchmaker.metrics import MatchmakerMetrics
from services.matchmaker.pushes import PlayerUpdates
from services.matchmaker.schema import SCHEMA_MIGRATIONS
from services.matchmaker.server import SERVICE_NAME, MatchmakerServicer, register
from services.matchmaker.store import NOTIFY_CHANNEL, LobbyStore, MatchmakerStore
from services.platform import bus
from services.platform.background import publish_log, utc_now
from services.platform.channels import internal_channel
from services.platform.consumer import Consumer, ConsumerMetrics
from services.platform.database import create_pool
from services.platform.grpcserver import Lifecycle
from services.platform.metrics import new_registry
from services.platform.migrations import migrate
from services.platform.service import Background, open_notifier, open_pushes, run_service, serve

log = structlog.get_logger()


def ports(settings: MatchmakerSettings, channels: dict[str, Any]) -> Ports:
    """The real services where configured, the in-repo stand-ins elsewhere."""
    timeout = settings.call_timeout_seconds
    collection = (
        GrpcCollection(channels["collection"], timeout) if "collection" in channels else None
    )
    if collection is None:
        log.warning("TRIAD_COLLECTION_ADDR is not set: stand-in decks, no Draft queue")
    if "rating" not in channels:
        log.warning("TRIAD_RATING_ADDR is not set: everyone pairs at 1500")
    return Ports(
        matches=GrpcMatches(channels["match"], timeout),
        decks=collection or StarterDecks(),
        obligations=collection or NoObligations(),
        ratings=GrpcRatings(channels["rating"], timeout)
        if "rating" in channels
        else FixedRatings(),
        bot_decks=collection or LocalBotDecks(),
        drafts=collection,
        battles=GrpcBattles(channels["battle"], timeout) if "battle" in channels else None,
    )


async def start_draft_matches(
    ctx: Context,
    pool: Any,
    settings: MatchmakerSettings,
    registry: CollectorRegistry,
    stop: asyncio.Event,
) -> None:
    """DraftCompleted -> the Draft match, once per event (idempotent consumer)."""
    client = await bus.connect(settings.shared.nats_servers, name="triad-matchmaker-drafts")
    stream = bus.EventStream.of(settings.shared)

    async def handle(conn: Any, envelope: Any) -> None:
        await consumers.on_draft_completed(ctx, conn, envelope)

    try:
        await bus.ensure_stream(client.jetstream(), stream)
        consumer = Consumer(
            client.jetstream(), pool, settings.schema, settings.consumer,
            stream.filter(*consumers.DRAFT_COMPLETED), handle, stream=stream,
            metrics=ConsumerMetrics.register(registry),
        )  # fmt: skip
        await consumer.run(stop)
    finally:
        # Not drain(): nats-py never marks a pull subscription's queue done, so a drain
        # waits out its whole timeout. Nothing is left to flush: what was applied is acked.
        await client.close()


async def run(settings: MatchmakerSettings) -> None:
    registry = new_registry()
    async with Lifecycle() as life:
        pool = await life.enter(
            create_pool(settings.database_url, max_size=settings.database_pool_size)
        )
        await migrate(
            pool,
            settings.schema,
            SCHEMA_MIGRATIONS,
        )
        addresses = {
            "match": settings.match_addr,
            "collection": settings.collection_addr,
            "rating": settings.rating_addr,
            "battle": settings.battle_addr,
        }
        channels = {k: internal_channel(a) for k, a in addresses.items() if a}
        for channel in channels.values():
            life.push_async_callback(channel.close)
        ctx = Context(
            store=MatchmakerStore(pool, settings.schema),
            lobby=LobbyStore(pool, settings.schema),
            ports=ports(settings, channels),
            clock=utc_now,
            rng=SystemRandom(),
            config=settings.config,
            metrics=MatchmakerMetrics.register(registry),
            pushes=PlayerUpdates(await open_pushes(life, settings, "matchmaker", registry)),
        )
        notifier = await open_notifier(life, settings.database_url, NOTIFY_CHANNEL)
        work = Background.of(life)
        work.prune(
            pool, settings, schema.transient(settings.schema, settings.shared.stream_max_age)
        )

        async def gauges() -> bool:
            lengths = await ctx.store.queue_lengths()
            for mode in QUEUES:
                ctx.metrics.queue_length.labels(mode.value).set(lengths.get(mode, 0))
            ctx.metrics.open_tables.set(await ctx.lobby.open_tables())
            return False

        # Idle, each loop sleeps until its next due work (at most the poll ceiling),
        # woken when a use case here writes work due sooner (ctx.wakes): a round
        # every pair interval while tickets wait, none while nobody queues.
        poll, wakes = settings.timer_poll_seconds, ctx.wakes
        pairing = handlers_pairing.PairingLoop(ctx)
        for step, next_due, due in (
            (pairing.step, pairing.next_due, wakes.pairing),
            (
                partial(handlers_starts.recover_due_start, ctx),
                ctx.store.next_due_start,
                wakes.starts,
            ),
            (partial(handlers_lobby.expire_tables, ctx), ctx.lobby.next_due_table, wakes.tables),
        ):
            work.every(poll, step, next_due=next_due, clock=utc_now, due=due)
        work.every(5.0, gauges)
        work.start(notifier.keep_alive(work.stop))
        if settings.nats_url is None:
            log.warning("TRIAD_NATS_URL is not set: matchmaker events are not published")
        else:
            work.start(
                publish_log(
                    settings.shared, pool, settings.schema, "matchmaker", registry, work.stop
                )
            )
            if ctx.ports.drafts is not None:
                work.start(start_draft_matches(ctx, pool, settings, registry, work.stop))
        servicer = MatchmakerServicer(ctx, notifier, settings.watch_heartbeat_seconds)
        await serve(life, settings, registry, lambda s: register(s, servicer), [SERVICE_NAME])


def main() -> int:
    return run_service("matchmaker", MatchmakerSettings.from_env, run)


if __name__ == "__main__":
    raise SystemExit(main())
