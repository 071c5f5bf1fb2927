"""The shape of every service's ``main.py``: settings read once, a lifecycle that owns
everything acquired, background work stopped before the pool closes, one server.

Use::

    from services.platform.service import Background, open_notifier, open_pushes, run_service, serve

    async def run(settings: MatchSettings) -> None:
        async with Lifecycle() as life:
            pool = await life.enter(create_pool(settings.database_url))
            notifier = await open_notifier(life, settings.database_url, NOTIFY_CHANNEL)
            work = Background.of(life)                 # stopped (and awaited) at stop
            work.every(settings.timer_poll_seconds, lambda: handlers_timers.fire_due_timer(ctx))
            work.start(notifier.keep_alive(work.stop))
            await serve(life, settings, registry, lambda s: register(s, servicer), [NAME])

    def main() -> int:
        return run_service("match", MatchSettings.from_env, run)

``run_service`` configures the logs, reads the settings (a bad value ends the process
with exit status 2 and one line naming the variable, before anything connects) and
runs ``run`` until SIGTERM. ``serve`` listens where the service's settings say
(``settings.ServiceSettings``: host, port, metrics port).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import timedelta
from typing import Any, TypeVar

import grpc
import structlog
from prometheus_client import REGISTRY, CollectorRegistry

from services.platform.background import every, utc_now
from services.platform.grpcserver import (
    GrpcServer,
    Lifecycle,
    Register,
    ServerConfig,
    build_server,
)
from services.platform.interceptors import HandlerWrapper
from services.platform.logging import configure_logging
from services.platform.metrics import RpcMetrics
from services.platform.notifier import Notifier
from services.platform.pushes import Pushes, player_prefix
from services.platform.retention import PAUSE_SECONDS, Transient, pruning
from services.platform.settings import ServiceSettings, SettingsError

log = structlog.get_logger()

S = TypeVar("S")

SETTINGS_EXIT_STATUS = 2
"""The exit status of a process whose settings are wrong (a usage error)."""

FAILED_EXIT_STATUS = 1
"""The exit status of a process that failed while running (logged as ``service failed``)."""


def run_service(
    name: str, read_settings: Callable[[], S], run: Callable[[S], Coroutine[Any, Any, None]]
) -> int:
    """The whole of ``main()``: logs, settings read once, then ``run(settings)``."""
    configure_logging(name)
    try:
        settings = read_settings()
    except SettingsError as error:
        print(f"triad-{name}: {error}", file=sys.stderr)
        return SETTINGS_EXIT_STATUS
    try:
        # Told to stop before it served (Lifecycle cancels the start): what it had opened
        # is closed, and stopping is what was asked.
        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(run(settings))
    except Exception as error:
        # One line like every other (its traceback a field of it), not a traceback over
        # many lines that a log collector reads as many messages.
        log.exception("service failed", error=repr(error))
        return FAILED_EXIT_STATUS
    return 0


class Background:
    """Tasks that run beside the server; at stop, ``stop`` is set and they are awaited
    (before anything acquired earlier, such as the pool, is closed)."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self._tasks: list[asyncio.Future[None]] = []

    @classmethod
    def of(cls, life: Lifecycle) -> Background:
        """Background work stopped when ``life`` ends."""
        work = cls()
        life.push_async_callback(work.close)
        return work

    def start(self, *work: Awaitable[None]) -> None:
        """Run each until stop (they watch ``self.stop``)."""
        self._tasks += [asyncio.ensure_future(w) for w in work]

    def every(
        self,
        pause: float,
        step: Callable[[], Awaitable[bool]],
        copies: int = 1,
        **until_due: Any,
    ) -> None:
        """Run ``step`` in ``copies`` loops (``background.every``): pausing only when it
        found nothing to do, surviving its failures; ``until_due`` (``next_due``,
        ``clock``, ``due``) lets an idle loop sleep until its next due time."""
        self.start(*(every(self.stop, pause, step, **until_due) for _ in range(copies)))

    async def close(self) -> None:
        self.stop.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def prune(self, pool: Any, settings: ServiceSettings, tables: Sequence[Transient]) -> None:
        """Keep ``tables`` pruned (``services.platform.retention``): a round at once,
        then every ``PAUSE_SECONDS`` (at once again while a round had more to do)."""
        if tables:
            kept = timedelta(days=settings.retention_days)
            self.every(PAUSE_SECONDS, pruning(pool, tables, kept, utc_now))


async def open_notifier(life: Lifecycle, database_url: str, channel: str) -> Notifier:
    """A started notifier on ``channel``, closed when ``life`` ends."""
    notifier = Notifier(database_url, channel)
    await notifier.start()
    life.push_async_callback(notifier.close)
    return notifier


async def open_pushes(
    life: Lifecycle,
    settings: ServiceSettings,
    name: str,
    registry: CollectorRegistry = REGISTRY,
) -> Pushes:
    """The service's publisher of player updates (``pushes``), on a NATS connection of
    its own made in the background, closed when ``life`` ends; without
    ``TRIAD_NATS_URL`` it drops them. Its counter (``triad_player_pushes_total``) goes
    into ``registry``: pass the one ``serve`` exposes when it is not the default."""
    pushes = Pushes(None, player_prefix(settings.shared), registry)
    if settings.nats_url is None:
        return pushes
    # In the background: the service serves while NATS is away, as its relay does.
    connecting = asyncio.ensure_future(
        pushes.connect(settings.shared.nats_servers, f"triad-{name}-pushes")
    )

    async def close() -> None:
        connecting.cancel()
        await asyncio.gather(connecting, return_exceptions=True)
        await pushes.close()

    life.push_async_callback(close)
    return pushes


async def serve(
    life: Lifecycle,
    settings: ServiceSettings,
    registry: CollectorRegistry,
    register: Register,
    service_names: Sequence[str],
    *,
    credentials: grpc.ServerCredentials | None = None,
    wrappers: Sequence[HandlerWrapper] = (),
    also: Callable[[GrpcServer], Awaitable[object]] | None = None,
) -> None:
    """Serve /metrics and the gRPC server on the settings' host and ports until stop
    (/metrics on the same interface as gRPC: 127.0.0.1 under ``make run``, every one in
    a pod). ``also`` runs once the server has started, before the wait: another listener
    on the same handlers (the gateway's web port) is started there and pushed onto
    ``life``."""
    life.start_metrics(registry, settings.metrics_port, settings.host)
    server = await life.start_server(
        build_server(
            ServerConfig(host=settings.host, port=settings.port),
            register,
            service_names,
            metrics=RpcMetrics.register(registry),
            credentials=credentials,
            wrappers=wrappers,
        )
    )
    if also is not None:
        await also(server)
    await life.wait(server)
