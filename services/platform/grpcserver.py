"""The gRPC server every service runs, and the lifecycle of the process around it.

``build_server`` gives a grpc.aio server with the standard ``grpc.health.v1`` servicer,
server reflection, our interceptor on every method (request context, errors and
metrics; ``interceptors.wrap_handler``) and message-size and keepalive limits.
``Lifecycle`` is STYLE principle 13: one ``main()`` owns an ``AsyncExitStack``; SIGTERM
or SIGINT sets an event; on stop, health goes NOT_SERVING, the server drains for its
grace period, then everything acquired before it (NATS, the pool...) is closed in
reverse order. Nothing here connects or binds at import.
"""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import Any, TypeVar

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from prometheus_client import CollectorRegistry

from services.platform.interceptors import HandlerWrapper, wrap_handler
from services.platform.metrics import RpcMetrics, new_registry, start_metrics_server

log = structlog.get_logger(__name__)

T = TypeVar("T")
Register = Callable[[grpc.aio.Server], None]

MIB = 1024 * 1024
HEALTH_SERVICE = "grpc.health.v1.Health"

# Tuned for long server streams (match views, queue status) to phones behind NATs:
KEEPALIVE_OPTIONS: tuple[tuple[str, int], ...] = (
    # Ping every 30 s: a client that vanished without a FIN is noticed within ~40 s, and
    # middleboxes that drop flows idle for a minute or more never see ours idle.
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    # A quiet stream may send nothing for minutes; by default core stops pinging after
    # two pings without data, which would switch keepalive off exactly when it matters.
    ("grpc.http2.max_pings_without_data", 0),
    # Accept clients' own keepalive down to every 10 s, even between calls, instead of
    # answering it with GOAWAY "too_many_pings".
    ("grpc.keepalive_permit_without_calls", 1),
    # After 5 minutes a connection is told to go away (GOAWAY): its clients reconnect and
    # re-resolve, so pods added by a scale-out get traffic. Calls in flight, long match
    # streams included, finish on the old connection (no grace limit is set).
    ("grpc.max_connection_age_ms", 300_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Where and how a service listens. ``port=0`` binds a free port (see ``GrpcServer.port``)."""

    host: str = "[::]"
    port: int = 0
    max_receive_message_bytes: int = 1 * MIB
    # The client's default receive limit: failing here names the real culprit.
    max_send_message_bytes: int = 4 * MIB
    stop_grace_seconds: float = 10.0

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(eq=False)
class GrpcServer:
    """A built server: the grpc.aio server, its health servicer and the port it bound."""

    server: grpc.aio.Server
    health: Any  # grpc_health.v1.health.aio.HealthServicer (the package ships no types)
    port: int
    service_names: tuple[str, ...]
    grace: float
    handlers: Mapping[str, Any] = field(default_factory=dict)
    """The registered methods' handlers as the server calls them (wrapped), by full
    name: another transport (the gateway's gRPC-Web port) calls the same ones."""

    async def start(self) -> None:
        await self.server.start()
        # "" is the whole server, which is what Kubernetes' grpc probe asks by default.
        for name in ("", *self.service_names):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float | None = None) -> None:
        """NOT_SERVING for every service, then drain: in-flight RPCs get ``grace`` seconds."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(self.grace if grace is None else grace)

    async def serve_health(self, host: str, port: int) -> grpc.aio.Server:
        """The same health servicer alone, without TLS, on another port (0: a free one):
        for a server whose own port speaks TLS, where Kubernetes' grpc probes (plaintext
        only) ask. Nothing else is served there. Started; the caller stops it."""
        probes = grpc.aio.server()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, probes)
        probes.add_insecure_port(f"{host}:{port}")
        await probes.start()
        return probes


class _WrappingServer(grpc.aio.Server):
    """The server as ``register`` (and health, and reflection) see it: every handler
    added through it is registered wrapped (``wrap``), once, not intercepted per call."""

    def __init__(self, server: grpc.aio.Server, wrap: Callable[[str, Any], Any]) -> None:
        self._server = server
        self._wrap = wrap
        self.handlers: dict[str, Any] = {}
        """Each registered method's handler as wrapped, by full name (``/triad.v1.X/Y``)."""

    def add_registered_method_handlers(self, service_name: str, method_handlers: Any) -> None:
        # What generated add_XServicer_to_server uses: grpc finds these without Python.
        wrapped = {
            name: self._wrap(f"/{service_name}/{name}", handler)
            for name, handler in method_handlers.items()
        }
        self.handlers |= {f"/{service_name}/{name}": h for name, h in wrapped.items()}
        self._server.add_registered_method_handlers(service_name, wrapped)

    def add_generic_rpc_handlers(self, generic_rpc_handlers: Iterable[Any]) -> None:
        self._server.add_generic_rpc_handlers(
            [_WrappedGeneric(handler, self._wrap) for handler in generic_rpc_handlers]
        )

    def add_insecure_port(self, address: str) -> int:
        return self._server.add_insecure_port(address)

    def add_secure_port(self, address: str, server_credentials: grpc.ServerCredentials) -> int:
        return self._server.add_secure_port(address, server_credentials)

    async def start(self) -> None:
        await self._server.start()

    async def stop(self, grace: float | None) -> None:
        await self._server.stop(grace)

    async def wait_for_termination(self, timeout: float | None = None) -> bool:
        return await self._server.wait_for_termination(timeout)


class _WrappedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose answers are wrapped, each method's once: grpc asks it on
    every call to a method it does not find registered (raw-bytes services)."""

    def __init__(self, inner: Any, wrap: Callable[[str, Any], Any]) -> None:
        self._inner = inner
        self._wrap = wrap
        # method -> (handler as given, handler wrapped); only methods with a handler get
        # here, so this is bounded by what the inner handler serves.
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        handler = self._inner.service(handler_call_details)
        if handler is None:
            return None  # unknown method: grpc answers UNIMPLEMENTED itself
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(method, handler)
        self._wrapped[method] = (handler, wrapped)
        return wrapped


def build_server(
    config: ServerConfig,
    register: Register,
    service_names: Sequence[str],
    *,
    metrics: RpcMetrics | None = None,
    credentials: grpc.ServerCredentials | None = None,
    wrappers: Sequence[HandlerWrapper] = (),
) -> GrpcServer:
    """A bound, not yet started server.

    ``register`` adds the service's servicers (``add_XServicer_to_server(s, server)`` or
    generic handlers); ``service_names`` are their full names (``triad.v1.Match``), which
    health reports on and reflection lists. ``wrappers`` wrap each method's handler
    inside ours: they see the request id bound, and what they raise is mapped too.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", config.max_receive_message_bytes),
            ("grpc.max_send_message_length", config.max_send_message_bytes),
            *KEEPALIVE_OPTIONS,
        ],
    )

    def wrap(method: str, handler: Any) -> Any:
        return wrap_handler(method, handler, metrics, wrappers)

    wrapping = _WrappingServer(server, wrap)
    register(wrapping)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, wrapping)
    reflection.enable_server_reflection(
        (*service_names, HEALTH_SERVICE, reflection.SERVICE_NAME), wrapping
    )
    if credentials is None:
        port = server.add_insecure_port(config.address)
    else:
        port = server.add_secure_port(config.address, credentials)
    if port == 0:
        raise RuntimeError(f"could not bind the gRPC server to {config.address}")
    return GrpcServer(
        server,
        health,
        port,
        tuple(service_names),
        config.stop_grace_seconds,
        MappingProxyType(dict(wrapping.handlers)),
    )


GC_GEN0_THRESHOLD = 20_000
"""Allocations between young collections (CPython's default is 700). A service holds
many long-lived objects (cached match states, pools, protobuf descriptors), and every
tenth young collection cascades into older ones that walk them all: under load the
default spent about 3% of the match service's time collecting, in pauses of up to
70 ms (the latency's tail), and this about a fifth of that."""


def settle_garbage_collector() -> None:
    """Once a service is set up: what it built to start (modules, descriptors, pools)
    is moved out of the collector's sight (``gc.freeze``; refcounting still frees it),
    and young collections run less often."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, older, oldest)


class Lifecycle:
    """Everything a process acquires, released in reverse order once it is told to stop.

    ``run_service`` gives ``run`` the settings, read once; ``serve`` starts and waits::

        async def run(settings: MatchSettings) -> None:
            async with Lifecycle() as life:
                nc = await nats.connect(settings.shared.nats_url)
                life.push_async_callback(nc.drain)
                pool = await life.enter(asyncpg.create_pool(settings.shared.database_url))
                await serve(life, settings, REGISTRY, register, [SERVICE_NAME])

        def main() -> int:
            return run_service("match", MatchSettings.from_env, run)

    Leaving the block stops the server (health NOT_SERVING, then ``stop(grace)``) and
    then closes the pool and drains NATS: the reverse of the order they were acquired.
    """

    def __init__(self, signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT)):
        self._signals = tuple(signals)
        self._stack = AsyncExitStack()
        self._stop = asyncio.Event()
        self.stop_reason: str | None = None
        self.metrics_port: int | None = None
        self._starting: asyncio.Task[Any] | None = None
        """The task setting the process up, until its first server starts: a signal then
        cancels it (waiting for PostgreSQL, a migration), as there is nothing to drain."""

    async def __aenter__(self) -> Lifecycle:
        await self._stack.__aenter__()
        self._starting = asyncio.current_task()
        loop = asyncio.get_running_loop()
        for sig in self._signals:
            loop.add_signal_handler(sig, self._signalled, sig.name)
            # Pushed first, so removed last: a second SIGTERM during the drain is
            # absorbed instead of killing the process halfway through its cleanup.
            self._stack.callback(loop.remove_signal_handler, sig)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        self._starting = None  # a signal during the cleanup must not cut it short
        if self.stop_reason is None:
            self.stop_reason = "error" if exc is not None else "exit"
        log.info("stopping", reason=self.stop_reason)
        suppress = await self._stack.__aexit__(exc_type, exc, tb)
        log.info("stopped")
        return suppress

    def _signalled(self, name: str) -> None:
        self.request_stop(name)
        if self._starting is not None:
            self._starting.cancel()
            self._starting = None

    def request_stop(self, reason: str = "requested") -> None:
        """Begin the shutdown: ``wait()`` returns. Safe to call more than once."""
        if self.stop_reason is None:
            self.stop_reason = reason
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def push_async_callback(self, callback: Callable[[], Awaitable[object]]) -> None:
        """Run ``callback`` at stop, before everything registered earlier (``nc.drain``)."""
        self._stack.push_async_callback(callback)

    async def enter(self, context: AbstractAsyncContextManager[T]) -> T:
        """Enter an async context manager now and exit it at stop, in reverse order."""
        return await self._stack.enter_async_context(context)

    async def start_server(self, server: GrpcServer) -> GrpcServer:
        self._starting = None  # from now on a signal ends the wait and the server drains
        await server.start()
        self._stack.push_async_callback(server.stop)
        settle_garbage_collector()
        return server

    def start_metrics(
        self, registry: CollectorRegistry, port: int = 0, host: str = "0.0.0.0"
    ) -> int:
        """Serve /metrics until stop; returns the bound port."""
        metrics_server = start_metrics_server(registry, port, host)
        # close() joins the HTTP thread (up to its poll interval): keep it off the loop.
        self._stack.push_async_callback(asyncio.to_thread, metrics_server.close)
        self.metrics_port = metrics_server.port
        return metrics_server.port

    async def wait(self, *servers: GrpcServer) -> None:
        """Until a signal or ``request_stop()``, or until a server terminates on its own."""
        self._starting = None  # set up: a signal now ends this wait
        for server in servers:
            log.info(
                "serving",
                port=server.port,
                services=list(server.service_names),
                metrics_port=self.metrics_port,
            )
        waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(self._stop.wait())]
        # Shielded: grpc.aio awaits its own shutdown future here, and cancelling this
        # wait would cancel that future and with it a later server.stop().
        waits += [asyncio.shield(s.server.wait_for_termination()) for s in servers]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
        self.request_stop("server terminated")


async def serve(
    config: ServerConfig,
    register: Register,
    service_names: Sequence[str],
    *,
    metrics_port: int | None = None,
    metrics_host: str = "0.0.0.0",
    on_serving: Callable[[GrpcServer], None] | None = None,
) -> None:
    """The whole life of a process that is only a gRPC server: serve until SIGTERM, then stop.

    ``metrics_port=None`` serves no /metrics (the RPC metrics are still recorded);
    ``on_serving`` is called once the server is up, e.g. to print the bound port.
    """
    registry = new_registry()
    async with Lifecycle() as life:
        if metrics_port is not None:
            life.start_metrics(registry, metrics_port, metrics_host)
        built = build_server(config, register, service_names, metrics=RpcMetrics.register(registry))
        server = await life.start_server(built)
        if on_serving is not None:
            on_serving(server)
        await life.wait(server)
