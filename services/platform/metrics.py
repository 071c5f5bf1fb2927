"""Prometheus metrics: one registry per process, the standard RPC metrics, a /metrics endpoint.

The composition root makes the registry (``new_registry()``) once in ``main()`` and
passes it to whatever records metrics; nothing registers into the library's global
``REGISTRY`` at import time, so tests build as many isolated registries as they like
and a service's metrics never depend on what happened to be imported.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from wsgiref.simple_server import WSGIServer

import grpc
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Histogram,
    start_http_server,
)

RPC_DURATION_SECONDS = "triad_rpc_duration_seconds"
RPC_TOTAL = "triad_rpc_total"
RPC_LABELS = ("service", "method", "code")

# From half a millisecond (an in-memory rules call) to five seconds (a client deadline):
# roughly 1-2.5-5 per decade so a p99 is readable at any scale in between.
RPC_DURATION_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
)


def zeroed(counter: Counter, **values: Iterable[str]) -> Counter:
    """``counter`` with a series at 0 for every combination of its labels' ``values``
    (each label's possible values, all of its labels named). A dashboard then shows 0,
    not "No data", before the first time; and ``rate``/``increase`` count the first
    increment, which a series born at 1 hides from them."""
    names = list(values)
    for combination in itertools.product(*(tuple(v) for v in values.values())):
        counter.labels(**dict(zip(names, combination, strict=True)))
    return counter


def new_registry(*, process_collectors: bool = True) -> CollectorRegistry:
    """The registry for this process; call it once in ``main()`` and pass it down.

    With ``process_collectors`` it also exposes CPU, memory, file descriptors, GC and
    the Python version, as the default registry would.
    """
    registry = CollectorRegistry(auto_describe=True)
    if process_collectors:
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            registry.register(collector)
    return registry


@dataclass(frozen=True, slots=True)
class RpcMetrics:
    """Latency and count of every RPC by service, method and final status code."""

    duration: Histogram
    total: Counter
    _children: dict[tuple[str, str, grpc.StatusCode], tuple[Histogram, Counter]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """The labeled children by labels: ``labels()`` checks and joins its arguments
    under a lock on every call; an RPC only needs a dict lookup. Bounded by the
    registered methods times the status codes."""

    @classmethod
    def register(cls, registry: CollectorRegistry) -> RpcMetrics:
        return cls(
            duration=Histogram(
                RPC_DURATION_SECONDS,
                "Time from the first handler call to the RPC's final status.",
                RPC_LABELS,
                registry=registry,
                buckets=RPC_DURATION_BUCKETS,
            ),
            total=Counter(
                RPC_TOTAL,
                "RPCs finished, by final status code.",
                RPC_LABELS,
                registry=registry,
            ),
        )

    def observe(self, service: str, method: str, code: grpc.StatusCode, seconds: float) -> None:
        key = (service, method, code)
        children = self._children.get(key)
        if children is None:
            labels = (service, method, code.name)
            children = self.duration.labels(*labels), self.total.labels(*labels)
            self._children[key] = children
        duration, total = children
        duration.observe(seconds)
        total.inc()


@dataclass(frozen=True, slots=True)
class MetricsServer:
    """A running /metrics endpoint; ``port`` is the bound one (useful when asked for 0)."""

    port: int
    _httpd: WSGIServer
    _thread: threading.Thread

    def close(self) -> None:
        """Stop serving; blocks up to the server's poll interval (half a second)."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


def start_metrics_server(
    registry: CollectorRegistry, port: int = 0, host: str = "0.0.0.0"
) -> MetricsServer:
    """Serve ``registry`` on http://host:port/metrics from a daemon thread.

    prometheus_client's own server runs in a thread, which keeps scrapes off the event
    loop; a scrape only reads counters, so it never contends with request handling.
    """
    httpd, thread = start_http_server(port, addr=host, registry=registry)
    return MetricsServer(port=httpd.server_port, _httpd=httpd, _thread=thread)
