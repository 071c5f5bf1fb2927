"""MatchFinished (and DraftForfeited) from JetStream to the ladders, each exactly once.

The platform's idempotent consumer does the "exactly once" for an event: its mark in
``processed_events`` and the rating commit in one transaction (a redelivery finds the
mark and only acks). The handler adds the second line, per match: a match rated
before, under whatever event id, is not rated again, and ``UNIQUE (ladder, season,
match_id, player_id)`` in the log stops even a bug in that check.

Order: JetStream hands each batch out in stream order and the consumer applies it in
that order. Only a failed event (the transaction rolled back, the event nak'ed) can come
back behind later ones; it is then rated from the standings at that moment, which the
log of changes records, so "exactly once" holds either way.

Drafts (RULES.md 10): a draft forfeited by inactivity before its match is rated too,
the forfeiter losing, by ``ForfeitedDraftConsumer``: a durable consumer of its own on
``DraftForfeited`` (the collection service's event), with the same handler and the
same marks. A draft counts once: a Draft match names its draft (``origin_id``), and
the ladders refuse a second result for a draft rated already, by its forfeit or by
its match (a draft that forfeited has no match, but the check does not rely on it).

Pushes: once an event's rating has committed, each of its players is told their change
(``handlers.announce``, a ``rating_change`` push), by the replica that rated it, once; a
redelivery, a duplicate or an ignored game tells nothing. A push lost (the process died
between its commit and its push, NATS away) is repaired by the player's next session.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any
from uuid import UUID

import structlog
from nats.js import JetStreamContext
from triad.v1 import events_pb2 as ev

from services.platform.bus import EventStream
from services.platform.consumer import Consumer, ConsumerMetrics
from services.platform.pushes import PlayerPushes, Pushes
from services.rating import codec, handlers, mapping
from services.rating.handlers import Outcome
from services.rating.metrics import RatingMetrics
from services.rating.store import PostgresLadders

log = structlog.get_logger()

MALFORMED = "malformed"

# What the handler did, per delivery: a context variable rather than an attribute, so
# deliveries applied concurrently (tests, the bench) each count their own.
_outcomes: ContextVar[list[Outcome | str]] = ContextVar("rating_outcomes")


class RatingConsumer(Consumer):
    """The platform consumer with the rating handler; counts outcomes once committed."""

    SUBJECT = ("match", "MatchFinished")
    """The events this consumer takes: ``(component, short type)`` on the stream."""

    def __init__(
        self,
        js: JetStreamContext,
        pool: Any,
        schema: str,
        current_season: int,
        *,
        durable: str = "rating",
        stream: EventStream | None = None,
        metrics: RatingMetrics,
        consumer_metrics: ConsumerMetrics | None = None,
        pushes: PlayerPushes | None = None,
        **options: Any,
    ) -> None:
        stream = stream or EventStream()
        self._schema = schema
        self._season = current_season
        self._metrics = metrics
        self._pushes = mapping.ChangePushes(pushes or Pushes(None))
        super().__init__(
            js,
            pool,
            schema,
            durable,
            stream.filter(*self.SUBJECT),
            self._handle,
            stream=stream,
            metrics=consumer_metrics,
            **options,
        )

    async def apply(self, envelope: ev.EventEnvelope) -> bool:
        outcomes: list[Outcome | str] = []
        token = _outcomes.set(outcomes)
        try:
            fresh = await super().apply(envelope)
        finally:
            _outcomes.reset(token)
        # Counted and told only now: a transaction that rolled back did nothing.
        if not fresh:
            self._metrics.duplicate_event()
        for outcome in outcomes:
            if isinstance(outcome, str):
                self._metrics.ignored.labels(outcome).inc()
            else:
                self._metrics.observe(outcome)
                await handlers.announce(self._pushes, outcome)
        return fresh

    async def _handle(self, conn: Any, envelope: ev.EventEnvelope) -> None:
        try:
            game = codec.decode(envelope)
        except codec.DecodeError as error:
            # No retry can fix it, and retrying forever would hide it: log it loudly,
            # count it, and let the mark commit.
            log.error(
                "rating.malformed_event",
                event_type=envelope.event_type,
                event_id=envelope.event_id,
                error=repr(error),
            )
            _outcomes.get().append(MALFORMED)
            return
        if game is None:
            return  # the subject filter lets only these through; be safe anyway
        outcome = await handlers.rate_match(
            PostgresLadders(conn, self._schema), game, UUID(envelope.event_id), self._season
        )
        _outcomes.get().append(outcome)


class ForfeitedDraftConsumer(RatingConsumer):
    """Drafts forfeited before their match, rated as the forfeiter's loss (RULES.md 10)."""

    SUBJECT = ("draft", "DraftForfeited")
