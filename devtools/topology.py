"""Which processes a local backend runs and where: the services with their well-known
ports, how many replicas of each (``make run --replicas match=2``), the ports every
replica gets, and the gRPC target its callers use.

The first replica is named after the service, the others ``match-2``, ``match-3``...;
callers are given every replica's address in one ``ipv4:`` target that their
``round_robin`` channels spread calls over, as with the headless Services in Kubernetes.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from devtools.processes import bound_free_port
from services.platform.endpoints import DEFAULT_PORTS

MAX_REPLICAS = 8


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    name: str
    module: str
    port: int
    """The well-known port, used when the config asks for fixed ports (``make run``)."""
    metrics_port: int
    env_prefix: str


def _spec(name: str, module: str) -> ServiceSpec:
    """A service on its default ports (``services/platform/endpoints.py``)."""
    ports = DEFAULT_PORTS[name]
    return ServiceSpec(name, module, ports.grpc, ports.metrics, name.upper())


SERVICES: tuple[ServiceSpec, ...] = (
    _spec("match", "services.match.main"),
    _spec("matchmaker", "services.matchmaker.main"),
    _spec("collection", "services.collection.main"),
    _spec("rating", "services.rating.main"),
    _spec("battle", "services.battle.main"),
    _spec("gateway", "gateway.main"),
)
NAMES: tuple[str, ...] = tuple(s.name for s in SERVICES)


def replica_name(service: str, index: int) -> str:
    """``match`` for the first replica, ``match-2``, ``match-3``... for the others."""
    return service if index == 1 else f"{service}-{index}"


def replica_counts(replicas: Mapping[str, int]) -> dict[str, int]:
    """Processes per service: ``replicas`` checked (known names, 1 to 8 each), 1 elsewhere."""
    unknown = sorted(set(replicas) - set(NAMES))
    if unknown:
        raise BackendError(
            f"replicas of {', '.join(unknown)}: no such service; the services are "
            f"{', '.join(NAMES)}"
        )
    for name, count in replicas.items():
        if not 1 <= count <= MAX_REPLICAS:
            raise BackendError(f"{name}={count}: a service runs 1 to {MAX_REPLICAS} replicas")
    return {name: replicas.get(name, 1) for name in NAMES}


def parse_replicas(text: str) -> dict[str, int]:
    """``"match=2,collection=2"`` (the ``--replicas`` flag, ``TRIAD_REPLICAS``) as counts;
    BackendError names what is wrong."""
    counts: dict[str, int] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, sep, count = item.partition("=")
        if not sep or not count.strip().isdigit():
            raise BackendError(
                f"replicas: {item!r} is not SERVICE=COUNT (for example match=2,collection=2)"
            )
        counts[name.strip()] = int(count)
    replica_counts(counts)
    return counts


def grpc_target(ports: list[tuple[int, int]]) -> str:
    """The gRPC target of a service's replicas: ``127.0.0.1:P`` for one, else every
    address in one ``ipv4:`` target that a round_robin channel spreads calls over."""
    if len(ports) == 1:
        return f"127.0.0.1:{ports[0][0]}"
    return "ipv4:" + ",".join(f"127.0.0.1:{port}" for port, _ in ports)


class BackendError(RuntimeError):
    """A service exited or did not become healthy; the message ends with its log's tail."""


def ports_of(fixed: bool, counts: Mapping[str, int]) -> dict[str, list[tuple[int, int]]]:
    """Each replica's gRPC and metrics port, by service. Fixed: the first replica of
    each takes the well-known ports, the others free ones. Free ones are all taken while
    every probe socket is still open, so no two replicas are handed the same port."""
    if fixed:
        web = DEFAULT_PORTS["gateway"].web
        wanted = [p for s in SERVICES for p in (s.port, s.metrics_port)] + ([web] if web else [])
        for port in wanted:
            if listening(port):
                raise BackendError(
                    f"port {port} is in use (is another `make run` up?); stop it first"
                )
        extra = iter(free_ports(sum(counts.values()) - len(SERVICES)))
        return {
            s.name: [(s.port, s.metrics_port), *(next(extra) for _ in range(counts[s.name] - 1))]
            for s in SERVICES
        }
    pairs = iter(free_ports(sum(counts.values())))
    return {s.name: [next(pairs) for _ in range(counts[s.name])] for s in SERVICES}


def listening(port: int) -> bool:
    """Whether a server holds ``port`` on this host. gRPC binds with SO_REUSEPORT and
    would share a port in use, so a fixed port is probed first; the probe takes
    SO_REUSEADDR so that the TIME-WAIT connections a stopped backend leaves for a minute
    do not count (a listening socket still does)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def free_ports(count: int) -> list[tuple[int, int]]:
    """``count`` pairs of free ports (gRPC, metrics), all taken while every probe socket
    is still open, so no two are the same."""
    with ExitStack() as stack:
        found: list[int] = []
        for _ in range(2 * count):
            sock = stack.enter_context(socket.socket())
            found.append(bound_free_port(sock))
    return [(found[2 * i], found[2 * i + 1]) for i in range(count)]


WEB_ROOT = Path(__file__).resolve().parents[1] / "web" / "dist"
"""The built browser client (``make web``), which the gateways' web ports serve."""


def web_port(fixed: bool) -> int:
    """The gateway's web port: the well-known one (``make run``'s first gateway) or a free one."""
    web = DEFAULT_PORTS["gateway"].web
    if fixed and web is not None:
        return web
    [(port, _)] = free_ports(1)
    return port


def web_env(port: int) -> dict[str, str]:
    return {"TRIAD_GATEWAY_WEB_PORT": str(port), "TRIAD_GATEWAY_WEB_ROOT": str(WEB_ROOT)}
