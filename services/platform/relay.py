"""The outbox relay: every committed event, published once to JetStream, in the global order.

The events table is the outbox
    A transactional outbox is a table written in the same transaction as the state
    change, so a message is queued if and only if the change commits. Appending events
    already is that transaction: ``append_in`` runs inside the caller's transaction, and
    the event rows exist exactly when it commits. So the events table is the outbox, and
    the relay only needs to remember how far it got: one checkpoint row, here.

    A separate outbox table would hold a second copy of every event and need an order
    to be read in. Its ``bigserial`` id would have the very gap the event log has: ids
    are taken at insert and become visible at commit, in another order, so a relay
    checkpointing on the id skips a transaction that commits late. Fixing that means
    deleting published rows (churn, vacuum, and still no order between the survivors)
    or the event store's own remedy. ``read_all`` already is that remedy: it follows
    ``(tx_id, seq)`` below the cluster's xmin, never skips a late commit, and keeps each
    stream's events in version order. Reusing it costs nothing per append, deletes
    nothing, and lets an operator republish history by moving a checkpoint back.

One batch, one transaction
    ``relay_batch()`` locks the relay's checkpoint row (``SELECT ... FOR UPDATE``), reads
    the next events after it and advances it past them, in one round trip; the relay
    publishes each in order, waits for JetStream's ack, and commits. A failed publish
    rolls the advance back. The row lock makes relays with the same name take turns, so
    two processes never publish out of order nor skip anything. Taking the lock gives
    the batch a transaction id, which holds the cluster's xmin (and so every global
    reader) back while the batch publishes; publishes have a timeout, so the hold is
    short. A batch is four round trips: the look, ``BEGIN``, ``relay_batch()``, ``COMMIT``.

    A caught-up relay waits for the next append's notice (a statement trigger on the
    events table notifies its own channel, ``appended_channel(schema)``), looking anyway once
    a second; an idle service does not poll PostgreSQL fifty times a second. Each look
    first asks, read-only, whether anything is readable (a notice comes at commit, often
    before the events are below the horizon), and only then opens the batch.

    If NATS is down, a publish times out, the transaction rolls back, and the batch is
    retried with backoff: nothing is lost. A crash (or a failed commit) after some
    publishes republishes them; ``Nats-Msg-Id`` is the event id, so JetStream drops the
    copies within its duplicate window, and consumers are idempotent by event id for
    whatever arrives later than that. Events are published one at a time: pipelining
    would let a rejected publish be retried behind a later one that went through,
    breaking the stream's order.

Held back
    The horizon is the whole PostgreSQL server's: one transaction that holds an id
    (it wrote, or locked a row) and stays open, in any database, keeps every relay
    from reading what committed after it began. Nothing is lost, but nothing is
    published until it ends. The lag gauges count such events too (the alert on
    ``triad_relay_lag_seconds`` fires), and past ``held_back_warning`` seconds the
    relay logs ``relay.held_back`` with the oldest such transaction's pid, database,
    application and query, for an operator to end it.

PostgreSQL is the source of truth
    A JetStream ack is not an fsync: by default the server syncs its files every couple
    of minutes, so a crash of a single-node server can lose acknowledged messages. The
    log in PostgreSQL keeps them, and resetting the checkpoint (``reset``) replays them.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from asyncio import FIRST_COMPLETED
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
from nats.js import JetStreamContext
from prometheus_client import CollectorRegistry

from services.platform import bus
from services.platform.bus import EventStream
from services.platform.eventstore import START, Position, Recorded
from services.platform.eventstore import _recorded as recorded
from services.platform.migrations import quote_schema
from services.platform.relay_metrics import RelayMetrics
from services.platform.relay_schema import MIGRATIONS

__all__ = ["MIGRATIONS", "Relay", "RelayMetrics"]

log = structlog.get_logger()


LAG_COUNT_CAP = 100_000

_OLDEST_HOLDER_SQL = """
    SELECT pid, datname AS database, usename AS user, application_name, state,
           extract(epoch FROM now() - xact_start)::int AS open_seconds,
           backend_xid::text AS xid, left(query, 200) AS query
    FROM pg_stat_activity WHERE backend_xid IS NOT NULL
    ORDER BY age(backend_xid) DESC LIMIT 1"""
"""The transaction holding the cluster's xmin back: the oldest that has an id (a
prepared transaction would not be listed here: ``pg_prepared_xacts``)."""


class Relay:
    """Publishes the events of one schema to JetStream (see the module docstring)."""

    def __init__(
        self,
        pool: Any,
        schema: str,
        js: JetStreamContext,
        name: str = "relay",
        *,
        stream: EventStream | None = None,
        batch_size: int = 500,
        poll_interval: float = 0.02,
        publish_timeout: float = 5.0,
        max_backoff: float = 5.0,
        metrics: RelayMetrics | None = None,
        appended: asyncio.Event | None = None,
        idle_interval: float = 1.0,
        linger: float = 0.0,
        held_back_warning: float = 10.0,
    ) -> None:
        """``metrics`` default to a private registry: pass the process's to expose them.

        ``appended``: an event set when the schema's log is appended to (a listener of
        ``appended_channel(schema)``). With it, a caught-up relay waits for it, and looks
        anyway every ``idle_interval`` (a notice missed, or a commit not yet below every
        reader's horizon when it came); without it, it polls every ``poll_interval``.

        ``linger``: after a notice, how long to wait for more appends to publish them in
        one batch (a service whose commands each commit alone, without a group commit,
        would otherwise wake the relay, and pay its reads, once per command).

        ``held_back_warning``: after how many seconds of committed events waiting behind
        an older open transaction the relay logs ``relay.held_back`` naming it."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.name = name
        self.stream = stream or EventStream()
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.publish_timeout = publish_timeout
        self.max_backoff = max_backoff
        self.idle_interval = idle_interval
        self.linger = linger
        self.held_back_warning = held_back_warning
        self._held_since: datetime | None = None
        """Since when committed events have waited behind the horizon (None: they don't)."""
        self._warn_after = datetime.min.replace(tzinfo=UTC)
        self._appended = appended
        self._pool = pool
        self._js = js
        self._stream_ready = False
        self._row_ready = False
        self._more: bool | None = None
        """Whether the last batch saw committed events after it (None: not known)."""
        quoted = quote_schema(schema)
        checkpoints = f"{quoted}.relay_checkpoints"
        self._ensure_sql = f"INSERT INTO {checkpoints} (name) VALUES ($1) ON CONFLICT DO NOTHING"
        self._read_sql = f"SELECT tx_id::text AS tx_text, seq FROM {checkpoints} WHERE name = $1"
        self._batch_sql = f"SELECT * FROM {quoted}.relay_batch($1, $2)"
        self._advance_sql = (
            f"UPDATE {checkpoints} SET tx_id = $2::text::xid8, seq = $3, updated_at = now() "
            "WHERE name = $1"
        )
        # Read-only, so it takes no transaction id: an idle relay polls with this alone.
        # ``readable``: events wait below the horizon; ``waiting_since``: when the first
        # committed event after the checkpoint was written, readable or not (one behind
        # the horizon is committed and unpublished too: lag). Both walk the global-order
        # index from the checkpoint and stop at the first row.
        self._pending_sql = f"""
            SELECT EXISTS (
                SELECT 1 FROM {quoted}.events AS e, {checkpoints} AS c
                WHERE c.name = $1
                  AND (e.tx_id, e.seq) > (c.tx_id, c.seq)
                  AND e.tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
            ) AS readable, (
                SELECT e.recorded_at FROM {quoted}.events AS e, {checkpoints} AS c
                WHERE c.name = $1 AND (e.tx_id, e.seq) > (c.tx_id, c.seq)
                ORDER BY e.tx_id, e.seq LIMIT 1
            ) AS waiting_since"""
        # The same without the horizon: committed events this relay has yet to publish,
        # readable now or once older transactions end.
        self._committed_sql = f"""
            SELECT EXISTS (
                SELECT 1 FROM {quoted}.events AS e, {checkpoints} AS c
                WHERE c.name = $1 AND (e.tx_id, e.seq) > (c.tx_id, c.seq)
            )"""
        self._lag_sql = f"""
            SELECT count(*) AS behind, min(recorded_at) AS oldest FROM (
                SELECT recorded_at FROM {quoted}.events
                WHERE (tx_id, seq) > ($1::text::xid8, $2::bigint)
                  AND tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
                LIMIT {LAG_COUNT_CAP}
            ) AS unpublished"""
        metrics = metrics or RelayMetrics.register(CollectorRegistry())
        self._published = metrics.published.labels(name)
        self._duplicates = metrics.duplicates.labels(name)
        self._errors = metrics.errors.labels(name)
        self._lag_events = metrics.lag_events.labels(name)
        self._lag_seconds = metrics.lag_seconds.labels(name)

    async def publish_batch(self) -> int:
        """Publish the next events after the checkpoint; return how many.

        Raises when NATS or PostgreSQL fails; the checkpoint then stays where it was.
        """
        if not self._stream_ready:
            # Bounded like a publish: while NATS is down this is the first call to wait.
            await asyncio.wait_for(bus.ensure_stream(self._js, self.stream), self.publish_timeout)
            self._stream_ready = True
        if not self._row_ready:
            await self._pool.execute(self._ensure_sql, self.name)
            self._row_ready = True
        self._more = None
        # A transaction for nothing: not worth opening 50 times a second to find nothing.
        look = await self._pool.fetchrow(self._pending_sql, self.name)
        if not look["readable"]:
            await self._held_back(look["waiting_since"])
            return 0
        self._held_since = None
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(self._batch_sql, self.name, self.batch_size)
            events = [recorded(row) for row in rows]
            await self._measure_lag(conn, events)
            for event in events:
                await self._publish(event)
        if rows:
            self._more = bool(rows[-1]["more"])
        if events and len(events) < self.batch_size:
            self._set_lag(0, None)  # caught up with what was committed when the batch began
        return len(events)

    async def run(self, stop: asyncio.Event) -> None:
        """Publish until ``stop`` is set; survive NATS and PostgreSQL outages."""
        log.info("relay.started", relay=self.name, stream=self.stream.name)
        failures = 0
        while not stop.is_set():
            if self._appended is not None:
                self._appended.clear()  # before reading: a later append wakes the rest below
            try:
                published = await self.publish_batch()
            except Exception as error:  # any failure: roll back, back off, retry
                failures += 1
                self._stream_ready = False  # a restarted NATS may have lost it
                self._errors.inc()
                delay = self._backoff(failures)
                log.warning(
                    "relay.batch_failed",
                    relay=self.name,
                    error=repr(error),
                    failures=failures,
                    retry_in=round(delay, 3),
                )
                await self._measure_backlog()
                await _sleep(stop, delay)
                continue
            if failures:
                log.info("relay.recovered", relay=self.name, after_failures=failures)
                failures = 0
            if published < self.batch_size:
                await self._rest(stop)
        log.info("relay.stopped", relay=self.name)

    async def _rest(self, stop: asyncio.Event) -> None:
        """Until there may be more to publish (or ``stop``).

        With ``appended``: the next notice, unless events are committed but not yet
        readable (an older transaction still holds the horizon back; their notice has
        come already), which are looked for again after ``poll_interval``."""
        if self._appended is None or await self._behind_horizon():
            await _sleep(stop, self.poll_interval)
            return
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self._appended.wait())]
        try:
            await asyncio.wait(waits, timeout=self.idle_interval, return_when=FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
        if self.linger and self._appended.is_set():
            await _sleep(stop, self.linger)

    async def _behind_horizon(self) -> bool:
        """Whether committed events wait after the checkpoint (the last batch says so
        when it published any; else one read-only statement)."""
        if self._more is not None:
            return self._more
        try:
            return bool(await self._pool.fetchval(self._committed_sql, self.name))
        except Exception:  # PostgreSQL away: the next batch finds out, then backs off
            return True

    async def position(self) -> Position:
        """The checkpoint: the last event published (``START`` if none)."""
        row = await self._pool.fetchrow(self._read_sql, self.name)
        return START if row is None else Position(int(row["tx_text"]), row["seq"])

    async def reset(self, to: Position = START) -> None:
        """Move the checkpoint (back) to republish from ``to``, e.g. after losing JetStream."""
        await self._pool.execute(self._ensure_sql, self.name)
        await self._pool.execute(self._advance_sql, self.name, str(to.tx_id), to.seq)

    async def _publish(self, event: Recorded) -> None:
        ack = await self._js.publish(
            self.stream.subject(event.stream_id, event.type),
            bus.envelope(event).SerializeToString(),
            timeout=self.publish_timeout,
            stream=self.stream.name,  # refuse to land anywhere else
            headers=bus.headers(event),
        )
        self._published.inc()
        if ack.duplicate:
            self._duplicates.inc()

    async def _measure_lag(self, conn: Any, events: list[Recorded]) -> None:
        oldest = events[0].recorded_at if events else None
        if len(events) < self.batch_size:  # the batch holds everything committed so far
            self._set_lag(len(events), oldest)
            return
        last = events[-1].position
        row = await conn.fetchrow(self._lag_sql, str(last.tx_id), last.seq)
        rest = row["oldest"]
        self._set_lag(len(events) + row["behind"], oldest if rest is None else min(oldest, rest))

    async def _measure_backlog(self) -> None:
        """The lag read from PostgreSQL alone, after a failed batch: found from outside,
        with NATS down a batch failed before it measured anything, the lag stayed at its
        last value (0) and TriadOutboxLag, whose runbook names NATS down, never fired.
        Nothing is measured when PostgreSQL is out of reach too (the RPC alerts tell)."""
        try:
            checkpoint = await self._pool.fetchrow(self._read_sql, self.name)
            if checkpoint is None:
                return
            row = await self._pool.fetchrow(self._lag_sql, checkpoint["tx_text"], checkpoint["seq"])
        except Exception as error:
            log.debug("relay.lag_unread", relay=self.name, error=repr(error))
            return
        self._set_lag(row["behind"], row["oldest"])

    async def _held_back(self, waiting_since: datetime | None) -> None:
        """Nothing is readable. If committed events wait all the same, an older
        transaction holds the horizon back (anywhere on the PostgreSQL server: the
        horizon is the cluster's): the lag shows their age (their count is not read: one
        stands for them), and past ``held_back_warning`` seconds the relay says which
        transaction holds them, again every ``held_back_warning`` seconds while it does."""
        if waiting_since is None:
            self._held_since = None
            self._set_lag(0, None)
            return
        self._set_lag(1, waiting_since)
        now = datetime.now(UTC)
        if self._held_since is None:
            self._held_since = now
        held = (now - self._held_since).total_seconds()
        if held < self.held_back_warning or now < self._warn_after:
            return
        self._warn_after = now + timedelta(seconds=self.held_back_warning)
        holder = await self._pool.fetchrow(_OLDEST_HOLDER_SQL)
        log.warning(
            "relay.held_back",
            relay=self.name,
            waiting_seconds=round((now - waiting_since).total_seconds(), 1),
            holder=None if holder is None else dict(holder),
            hint="committed events are published once every older transaction ends",
        )

    def _set_lag(self, behind: int, oldest: datetime | None) -> None:
        self._lag_events.set(behind)
        age = 0.0 if oldest is None else (datetime.now(UTC) - oldest).total_seconds()
        self._lag_seconds.set(max(age, 0.0))

    def _backoff(self, failures: int) -> float:
        # Exponential from 50 ms, capped, with jitter so relays do not retry in step.
        ceiling = min(self.max_backoff, 0.05 * 2 ** min(failures - 1, 16))
        return random.uniform(ceiling / 2, ceiling)


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    """Sleep, but wake as soon as ``stop`` is set."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
