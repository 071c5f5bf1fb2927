"""The collection's consumers of other services' events: MatchFinished settles a match
(locks, coins, Trade One) exactly once, through the platform's idempotent consumer."""

from __future__ import annotations

from typing import Any

from nats.js import JetStreamContext
from triad.v1 import events_pb2 as ev

from services.collection.codec import finished_match
from services.collection.handlers import Context
from services.collection.handlers_trades import settle_match
from services.collection.store import Store
from services.platform.bus import EventStream
from services.platform.consumer import Consumer, ConsumerMetrics, Handler


def durable_for(schema: str) -> str:
    """One durable consumer per schema: replicas that write the same schema share it (each
    event goes to one of them), and a service on another schema never steals its events."""
    return f"collection-{schema}-match-finished"


def postgres_store(ctx: Context) -> Store:
    """The consumer's processed marks live in PostgreSQL: so must its effects."""
    if not isinstance(ctx.store, Store):
        raise TypeError("the MatchFinished consumer settles in the PostgreSQL store")
    return ctx.store


def settle_handler(ctx: Context) -> Handler:
    store = postgres_store(ctx)

    async def handle(conn: Any, envelope: ev.EventEnvelope) -> None:
        finished = finished_match(envelope)
        if finished is not None:
            await store.run_in(conn, lambda unit: settle_match(ctx, unit, finished))

    return handle


def match_finished_consumer(
    js: JetStreamContext,
    ctx: Context,
    stream: EventStream | None = None,
    metrics: ConsumerMetrics | None = None,
    **options: Any,
) -> Consumer:
    """A durable consumer of every MatchFinished, settled in the collection's schema.

    ``max_ack_pending=1`` is not needed: each match settles on its own, in any order."""
    events = stream or EventStream()
    store = postgres_store(ctx)
    return Consumer(
        js,
        store.pool,
        store.schema,
        durable_for(store.schema),
        events.filter("match", "MatchFinished"),
        settle_handler(ctx),
        stream=events,
        metrics=metrics,
        **options,
    )
