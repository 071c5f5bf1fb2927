"""Idempotent JetStream consumers: each event's effect happens once, however often it arrives.

JetStream delivers at least once: a message is redelivered when its ack is lost, when
the consumer crashes between its work and its ack, or when the relay republished it
after the duplicate window. So the effect and the mark "this consumer processed this
event" commit in one PostgreSQL transaction: the mark is inserted first (``INSERT ...
ON CONFLICT DO NOTHING``); if it was already there the effect is skipped; otherwise
the handler runs on the same connection, and both commit or neither does. The ack
comes after the commit. A crash anywhere leaves either nothing (redelivery applies
it) or both (redelivery finds the mark and only acks).

Two deliveries of one event processed at once (a redelivery racing a slow first
attempt) serialise on the primary key: the second insert waits for the first
transaction and then finds the mark, or, if that transaction rolled back, takes over.

A handler that raises rolls everything back; the message is nak'ed with a delay and
comes again, and so does the rest of its batch. JetStream does not keep order across
redeliveries, though (the rest of a batch may come back ahead of the failed event), so
a handler that must see events strictly in order runs with ``max_ack_pending=1``: the
server then delivers nothing new until the failed event is done. Undecodable messages
are terminated (logged, never redelivered): no retry can fix them.

Replaying (``triad-admin consumer reset``, :mod:`services.platform.consumer_admin`)
    Each consumer registers itself in ``event_consumers`` (its durable, stream and
    filter) when it binds, and each mark records the event's stream sequence, so an
    operator can move a consumer back to a position and have the events after it
    applied again: the reset forgets the marks after the position and moves the
    JetStream consumer back, both under the consumer's advisory lock. Every
    transaction that marks an event holds that lock shared, so the reset waits for the
    deliveries in flight to commit and holds the next ones back until it has
    committed: none slips between the two steps and escapes the replay.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import hashlib
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import structlog
from google.protobuf.message import DecodeError
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from prometheus_client import CollectorRegistry, Counter, Gauge
from triad.v1 import events_pb2

from services.platform.bus import EventStream
from services.platform.interceptors import out_of_reach
from services.platform.migrations import quote_schema

log = structlog.get_logger()

# The stream sequence of the message being applied, for its mark: a context variable so
# that subclasses overriding apply(envelope) need not pass it along.
_sequence: ContextVar[int | None] = ContextVar("consumer_stream_sequence", default=None)

Handler = Callable[[Any, events_pb2.EventEnvelope], Awaitable[None]]
"""``handler(conn, envelope)``: perform the effect on ``conn``, inside the open transaction."""


def lock_key(schema: str, durable: str) -> int:
    """The consumer's 64-bit advisory-lock key: each mark takes it shared, a reset
    exclusively (stable across processes; Python's hash() is salted per run)."""
    digest = hashlib.sha256(f"triad.consumer:{schema}:{durable}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@dataclass(frozen=True, slots=True)
class ConsumerMetrics:
    """The consumers' Prometheus metrics, labelled by durable name, in the process's registry."""

    processed: Counter
    duplicates: Counter
    redeliveries: Counter
    failures: Counter
    lag: Gauge

    @classmethod
    def register(cls, registry: CollectorRegistry) -> ConsumerMetrics:
        labels = ("consumer",)
        return cls(
            processed=Counter(
                "triad_consumer_events_processed_total",
                "Events whose effect was applied.",
                labels,
                registry=registry,
            ),
            duplicates=Counter(
                "triad_consumer_duplicates_skipped_total",
                "Deliveries of events already processed: acked without running the effect.",
                labels,
                registry=registry,
            ),
            redeliveries=Counter(
                "triad_consumer_redeliveries_total",
                "Messages delivered more than once.",
                labels,
                registry=registry,
            ),
            failures=Counter(
                "triad_consumer_handler_failures_total",
                "Handler errors: rolled back, nak'ed, retried later.",
                labels,
                registry=registry,
            ),
            lag=Gauge(
                "triad_consumer_lag_events",
                "Messages matching the consumer's filter not yet delivered to it.",
                labels,
                registry=registry,
            ),
        )


class Outcome(enum.Enum):
    APPLIED = "applied"
    DUPLICATE = "duplicate"
    FAILED = "failed"  # the handler raised: nak'ed for a later retry
    REJECTED = "rejected"  # not an event envelope: terminated


class Consumer:
    """A durable pull consumer on the event stream that applies each event once."""

    def __init__(
        self,
        js: JetStreamContext,
        pool: Any,
        schema: str,
        durable: str,
        filter_subject: str,
        handler: Handler,
        *,
        stream: EventStream | None = None,
        batch: int = 64,
        fetch_timeout: float = 1.0,
        ack_wait: float = 10.0,
        max_ack_pending: int = 1000,
        retry_delay: float = 1.0,
        max_backoff: float = 5.0,
        metrics: ConsumerMetrics | None = None,
    ) -> None:
        """``metrics`` default to a private registry: pass the process's to expose them.

        ``ack_wait`` is how long the events a crashed process held stay with it before
        JetStream hands them out again: a match finished at the crash is settled that
        much later. Handlers take milliseconds, and a delivery that outlives it is only
        turned away by the processed mark, so it is short."""
        self.durable = durable
        self.filter_subject = filter_subject
        self.stream = stream or EventStream()
        self.batch = batch
        self.fetch_timeout = fetch_timeout
        self.retry_delay = retry_delay
        self.max_backoff = max_backoff
        self._js = js
        self._pool = pool
        self._handler = handler
        self._config = ConsumerConfig(
            durable_name=durable,
            filter_subject=filter_subject,
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=ack_wait,
            # Never give up on an event: dropping one would lose a trade or an Elo change.
            # A handler that keeps failing shows up as lag and in the failure count.
            max_deliver=-1,
            max_ack_pending=max_ack_pending,
        )
        self._sub: JetStreamContext.PullSubscription | None = None
        self._bound = False  # False after a failure: check the consumer exists, rebind
        quoted = quote_schema(schema)
        self._lock_key = lock_key(schema, durable)
        # The shared lock first (the CTE is read before the insert): a reset in progress
        # holds it exclusively, and this mark waits until the reset has committed.
        self._mark_sql = (
            "WITH guard AS (SELECT pg_advisory_xact_lock_shared($3)) "
            f"INSERT INTO {quoted}.processed_events (consumer, event_id, stream_seq) "
            "SELECT $1, $2, $4 FROM guard ON CONFLICT DO NOTHING RETURNING true"
        )
        self._register_sql = (
            f"INSERT INTO {quoted}.event_consumers (consumer, stream, filter_subject) "
            "VALUES ($1, $2, $3) ON CONFLICT (consumer) DO UPDATE SET stream = $2, "
            "filter_subject = $3, bound_at = now()"
        )
        metrics = metrics or ConsumerMetrics.register(CollectorRegistry())
        self._processed = metrics.processed.labels(durable)
        self._duplicates = metrics.duplicates.labels(durable)
        self._redeliveries = metrics.redeliveries.labels(durable)
        self._failures = metrics.failures.labels(durable)
        self._lag = metrics.lag.labels(durable)

    async def start(self) -> None:
        """Create or update the durable consumer (idempotent), register it for the
        operators' tool, and bind to it."""
        await self._js.add_consumer(self.stream.name, self._config)
        await self._pool.execute(
            self._register_sql, self.durable, self.stream.name, self.filter_subject
        )
        if self._sub is not None:
            with contextlib.suppress(Exception):  # the old binding may be dead already
                await self._sub.unsubscribe()
        self._sub = await self._js.pull_subscribe_bind(
            durable=self.durable, stream=self.stream.name
        )
        self._bound = True

    async def apply(self, envelope: events_pb2.EventEnvelope) -> bool:
        """Mark and apply in one transaction; False if this consumer had processed it.

        The mark keeps the event's position in the JetStream stream (when it came from
        there: see :meth:`process`), so that a reset to an earlier position knows which
        marks to forget."""
        async with self._pool.acquire() as conn, conn.transaction():
            fresh = await conn.fetchval(
                self._mark_sql,
                self.durable,
                UUID(envelope.event_id),
                self._lock_key,
                _sequence.get(),
            )
            if not fresh:
                return False
            await self._handler(conn, envelope)
        return True

    async def process(self, msg: Msg) -> Outcome:
        """Apply one delivered message, then ack it (or nak it if the handler failed)."""
        metadata = msg.metadata
        self._lag.set(metadata.num_pending)
        if metadata.num_delivered > 1:
            self._redeliveries.inc()
        try:
            envelope = events_pb2.EventEnvelope.FromString(msg.data)
            UUID(envelope.event_id)
        except (DecodeError, ValueError) as error:
            log.error(
                "consumer.rejected", consumer=self.durable, subject=msg.subject, error=repr(error)
            )
            await msg.term()
            return Outcome.REJECTED
        try:
            token = _sequence.set(metadata.sequence.stream)
            try:
                applied = await self.apply(envelope)
            finally:
                _sequence.reset(token)
        except Exception as error:  # the effect did not commit: try again later
            self._failures.inc()
            # A server out of reach recovers by itself; anything else is a bug (a poison
            # event), whose fix needs the traceback, as background steps log theirs.
            log.warning(
                "consumer.handler_failed",
                consumer=self.durable,
                event_id=envelope.event_id,
                stream_id=envelope.stream_id,
                version=envelope.version,
                deliveries=metadata.num_delivered,
                error=repr(error),
                exc_info=not out_of_reach(error),
            )
            await msg.nak(delay=self.retry_delay)
            return Outcome.FAILED
        await msg.ack()
        (self._processed if applied else self._duplicates).inc()
        return Outcome.APPLIED if applied else Outcome.DUPLICATE

    async def poll(self) -> list[Outcome]:
        """Fetch one batch and process it in order; an empty list when nothing came."""
        if self._sub is None or not self._bound:
            await self.start()
        assert self._sub is not None
        try:
            messages = await self._sub.fetch(self.batch, timeout=self.fetch_timeout)
        except TimeoutError:  # nothing to do (or NATS is away: the fetch is retried)
            await self._update_lag()
            return []
        outcomes: list[Outcome] = []
        for index, msg in enumerate(messages):
            outcome = await self.process(msg)
            outcomes.append(outcome)
            if outcome is Outcome.FAILED:
                # Hand the rest back too, due together with the failed one.
                for rest in messages[index + 1 :]:
                    await rest.nak(delay=self.retry_delay)
                break
        return outcomes

    async def run(self, stop: asyncio.Event) -> None:
        """Consume until ``stop`` is set; survive NATS and PostgreSQL outages."""
        log.info("consumer.started", consumer=self.durable, filter=self.filter_subject)
        failures = 0
        while not stop.is_set():
            try:
                outcomes = await self.poll()
            except Exception as error:  # NATS or the consumer is gone: rebind and retry
                failures += 1
                delay = min(self.max_backoff, 0.05 * 2 ** min(failures - 1, 16))
                log.warning(
                    "consumer.poll_failed",
                    consumer=self.durable,
                    error=repr(error),
                    failures=failures,
                    retry_in=delay,
                )
                # A NATS restarted without its store lost the consumer: recreate it.
                self._bound = False
                await _sleep(stop, delay)
                continue
            failures = 0
            if Outcome.FAILED in outcomes:
                await _sleep(stop, self.retry_delay)
        log.info("consumer.stopped", consumer=self.durable)

    async def _update_lag(self) -> None:
        if self._sub is None:
            return
        with contextlib.suppress(Exception):  # a metric is not worth failing the loop
            info = await asyncio.wait_for(self._sub.consumer_info(), self.fetch_timeout)
            self._lag.set(info.num_pending or 0)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
