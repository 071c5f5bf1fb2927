"""What every service runs beside its gRPC server: loops that poll for work, and the
relay of its event log to JetStream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
from nats.aio.client import Client
from nats.js import JetStreamContext
from prometheus_client import CollectorRegistry

from services.platform import bus
from services.platform.eventstore_schema import appended_channel
from services.platform.interceptors import out_of_reach
from services.platform.notifier import Notifier
from services.platform.relay import Relay, RelayMetrics
from services.platform.settings import Settings

log = structlog.get_logger()


def utc_now() -> datetime:
    return datetime.now(UTC)


OUTAGE_BACKOFF_CEILING = 1.0
"""Seconds between tries at most while a server a loop needs is out of reach."""


class DueSoon:
    """What lets a loop of due work (timers) sleep until its next due time instead of
    polling: the loop says until when it sleeps (``sleeping_until``), and whoever writes
    work due sooner than that (this process's commands) wakes it (``due_at``). Work
    written by another replica is found at the loop's next look, at most ``pause``
    later (the replica that wrote it wakes its own loops)."""

    def __init__(self) -> None:
        self.woken = asyncio.Event()
        self._until: datetime | None = None

    def due_at(self, when: datetime) -> None:
        if self._until is not None and when < self._until:
            self.woken.set()

    def sleeping_until(self, until: datetime | None) -> None:
        self._until = until


HELD_ELSEWHERE_SECONDS = 0.05
"""How soon an idle loop looks again at work that is due but that its step could not
claim (another loop holds it, e.g. while a bot thinks in the claim's transaction)."""

NextDue = Callable[[], Awaitable[datetime | None]]
"""When the earliest work falls due (None: no work waits)."""


async def every(
    stop: asyncio.Event,
    pause: float,
    step: Callable[[], Awaitable[bool]],
    *,
    next_due: NextDue | None = None,
    clock: Callable[[], datetime] = utc_now,
    due: DueSoon | None = None,
) -> None:
    """Run ``step`` until stop; pause only when it found nothing to do. A failing step is
    logged and retried: one bad round (PostgreSQL restarting, a bug in one match) must
    not end the replica's timers or pairing for good.

    With ``next_due``, an idle loop sleeps until the earliest work falls due (at most
    ``pause``, then it asks again without running ``step``), woken sooner by ``due``
    when this process writes work due before then: an idle loop costs one query per
    ``pause``, not a claim per poll.

    An outage (PostgreSQL or NATS out of reach) is one warning when it starts and one
    line when it ends, with tries backing off to once a second meanwhile; any other
    failure is logged with its traceback each time, as the bug it is."""
    failures = 0
    named = f"{getattr(step, '__module__', '?')}.{getattr(step, '__qualname__', repr(step))}"
    while not stop.is_set():
        wait = pause
        if due is not None:
            due.woken.clear()  # work written from here on wakes the sleep below
        try:
            busy = await step()
        except Exception as error:
            failures += 1
            busy = False
            if not out_of_reach(error):
                log.exception("background step failed; retrying", step=named)
            elif failures == 1:
                log.warning(
                    "background step cannot reach a server; retrying",
                    step=named,
                    error=repr(error),
                )
            wait = max(pause, min(OUTAGE_BACKOFF_CEILING, pause * 2 ** min(failures, 16)))
        else:
            if failures:
                log.info("background step recovered", step=named, after_failures=failures)
                failures = 0
        if busy:
            continue
        if next_due is None or failures:
            await _rest(stop, wait, None)
            continue
        # Idle: look only at the next due time (one query) until work may be due, or
        # this process wrote some, or the ceiling passed with nothing due (look again).
        while not stop.is_set():
            if due is not None:  # from now: work written during the look below wakes it
                due.sleeping_until(clock() + timedelta(seconds=pause))
            wait, soon = await _until_due(next_due, clock, pause)
            if due is not None:
                due.sleeping_until(clock() + timedelta(seconds=wait))
            woken = await _rest(stop, wait, due.woken if due is not None else None)
            if due is not None:
                due.sleeping_until(None)
            if woken or soon:
                break


async def _until_due(
    next_due: NextDue, clock: Callable[[], datetime], pause: float
) -> tuple[float, bool]:
    """How long to rest before looking again, and whether work may be due by then (so
    the step runs next). Overdue work is always stepped on after its short rest, whatever
    the pause: a pause no longer than that rest (a test's 0.02 s) must not leave the loop
    looking at overdue work forever without claiming it."""
    try:
        when = await next_due()
    except Exception:  # the step's own failure is what gets logged; look again soon
        return pause, False
    if when is None:
        return pause, False
    left = (when - clock()).total_seconds()
    if left <= 0:  # due, yet the step found nothing: another loop or replica holds it
        return min(pause, HELD_ELSEWHERE_SECONDS), True
    return min(pause, left), left < pause


async def _rest(stop: asyncio.Event, seconds: float, woken: asyncio.Event | None) -> bool:
    """Wait ``seconds``, or less if stopped or woken; whether it was woken."""
    waits = [asyncio.ensure_future(stop.wait())]
    if woken is not None:
        waits.append(asyncio.ensure_future(woken.wait()))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
    return woken is not None and woken.is_set()


@dataclass(frozen=True, slots=True)
class EventStreamLink:
    """A NATS connection and the event stream it made sure of."""

    client: Client
    js: JetStreamContext
    stream: bus.EventStream


async def open_event_stream(shared: Settings, name: str) -> EventStreamLink:
    """Connect to NATS (waiting as long as it takes) and make sure the event stream
    exists with the configured replicas. Close ``client`` when done."""
    client = await bus.connect(shared.nats_servers, name=name)
    stream = bus.EventStream.of(shared)
    js = client.jetstream()
    await bus.ensure_stream(js, stream)
    return EventStreamLink(client, js, stream)


async def publish_log(
    shared: Settings,
    pool: Any,
    schema: str,
    name: str,
    registry: CollectorRegistry,
    stop: asyncio.Event,
    linger: float = 0.0,
) -> None:
    """Relay a service's event log (its outbox) to JetStream until stop; the service
    serves meanwhile, whether NATS is up or not. ``shared`` are the settings the
    service read at start (nothing here reads the environment); ``linger`` is the
    relay's (``Relay``: batching appends that commit one command at a time)."""
    if shared.nats_url is None:
        log.warning("TRIAD_NATS_URL is not set: events are not published", service=name)
        return
    link = await open_event_stream(shared, f"triad-{name}-relay")
    try:
        async with appends_to(shared.database_url or "", schema, stop) as appended:
            relay = Relay(
                pool,
                schema,
                link.js,
                name=name,
                stream=link.stream,
                metrics=RelayMetrics.register(registry),
                appended=appended,
                linger=linger,
            )
            await relay.run(stop)
    finally:
        # close, not drain: nothing is left to flush (every publish waited for its ack),
        # and nats-py's drain can wait out its whole timeout.
        await link.client.close()


@asynccontextmanager
async def appends_to(
    database_url: str, schema: str, stop: asyncio.Event
) -> AsyncIterator[asyncio.Event]:
    """An event set whenever ``schema``'s event log is appended to (its trigger's
    notice on the schema's own channel: another service's appends wake nothing here),
    for a relay to wait on instead of polling. The listening connection is (re)opened
    in the background; each reconnect sets the event too."""
    notifier = Notifier(database_url, appended_channel(schema))
    keeping = asyncio.create_task(notifier.keep_alive(stop))
    try:
        with notifier.watch(schema) as appended:
            yield appended
    finally:
        keeping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeping
        await notifier.close()
