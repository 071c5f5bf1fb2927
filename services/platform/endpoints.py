"""The default ports of every process, in one table: each service's settings, the
development launcher and the tests read them here.

``TRIAD_<NAME>_PORT`` and ``TRIAD_<NAME>_METRICS_PORT`` override them per process;
``TRIAD_<NAME>_ADDR`` tells a caller where a service is (``default_address`` when
unset, the local default).

Use::

    from services.platform.endpoints import DEFAULT_PORTS, default_address

    port=port(env, "TRIAD_MATCH_PORT", DEFAULT_PORTS["match"].grpc)
    match_addr=optional(env, "TRIAD_MATCH_ADDR") or default_address("match")
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Ports:
    """Where a process listens by default: gRPC and Prometheus /metrics (and the
    gateway's web port: gRPC-Web and the browser client, served when
    ``TRIAD_GATEWAY_WEB_PORT`` is set, as ``make run`` and the manifests do)."""

    grpc: int
    metrics: int
    web: int | None = None


DEFAULT_PORTS: Mapping[str, Ports] = MappingProxyType(
    {
        "gateway": Ports(grpc=50051, metrics=9151, web=8443),
        "match": Ports(grpc=50061, metrics=9161),
        "matchmaker": Ports(grpc=50062, metrics=9162),
        "collection": Ports(grpc=50063, metrics=9163),
        "rating": Ports(grpc=50064, metrics=9164),
        "battle": Ports(grpc=50065, metrics=9165),
    }
)

LOCAL_HOST = "127.0.0.1"


def default_address(service: str) -> str:
    """``127.0.0.1:50061`` for the match service: where it listens when run locally."""
    return f"{LOCAL_HOST}:{DEFAULT_PORTS[service].grpc}"
