"""The collection's consumers of other services' events: MatchFinished settles a match
(locks, coins, Trade One) exactly once, through the platform's idempotent consumer."""

from __future__ import annotations

from typing import Any

from nats.js import JetStreamContext
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.collection.handlers import Context
from services.collection.mapping import player_ref_back
from services.collection.trade_handlers import FinishedMatch, FinishedSeat, settle_match
from services.platform.bus import EventStream
from services.platform.consumer import Consumer, ConsumerMetrics, Handler
from services.wire import moment


def durable_for(schema: str) -> str:
    """One durable consumer per schema: replicas that write the same schema share it (each
    event goes to one of them), and a service on another schema never steals its events."""
    return f"collection-{schema}-match-finished"


def finished_match(message: ev.MatchFinished) -> FinishedMatch:
    seats = tuple(
        FinishedSeat(
            player_ref_back(
                pb.PlayerRef(player_id=s.player.player_id, player_name=s.player.player_name)
            ),
            s.player.is_bot,
            tuple(s.original_card_ids),
        )
        for s in message.seats
    )
    if len(seats) != 2:
        raise ValueError(f"match {message.match_id} has {len(seats)} seats, not two")
    outcome = message.outcome
    winner = None
    if outcome.WhichOneof("result") == "winner_seat":
        winner = {pb.SEAT_A: 0, pb.SEAT_B: 1}[outcome.winner_seat]
    return FinishedMatch(
        match_id=message.match_id,
        seats=(seats[0], seats[1]),
        winner=winner,
        trade_one=message.trade_rule == pb.TRADE_RULE_ONE,
        finished_at=moment(outcome.finish_time),
        placements=message.placement_count,
    )


def settle_handler(ctx: Context) -> Handler:
    async def handle(conn: Any, envelope: ev.EventEnvelope) -> None:
        if envelope.event_type != "triad.v1.MatchFinished":
            return
        finished = finished_match(ev.MatchFinished.FromString(envelope.payload))
        await ctx.store.run_in(conn, lambda unit: settle_match(ctx, unit, finished))

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
    return Consumer(
        js,
        ctx.store.pool,
        ctx.store.schema,
        durable_for(ctx.store.schema),
        events.filter("match", "MatchFinished"),
        settle_handler(ctx),
        stream=events,
        metrics=metrics,
        **options,
    )
