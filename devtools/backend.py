"""The whole backend as processes: every service started, health-checked, killed and
restarted on one machine, against PostgreSQL and NATS URLs it is given.

``make run`` uses it with the well-known ports and schemas; the load generator, the
benchmarks and the chaos test use it with free ports and per-run schemas (and
per-run JetStream consumer names), so several runs can share one PostgreSQL and one
NATS without seeing each other's rows or stealing each other's events.

    with Backend(BackendConfig(database_url, nats_url, Path("/tmp/run"))) as backend:
        stub = connect(backend.gateway, backend.root_cert)
        backend.kill("match")      # SIGKILL, as a crash
        backend.restart("match")   # same port, same schema; waits until SERVING

Any service may run as several replicas (``BackendConfig.replicas``, ``make run
--replicas match=2``): the first is named after the service, the others ``match-2``,
``match-3``...; each is a process on ports of its own, with the same schema and
settings. The services that call it are given every replica's address in one gRPC
target (``ipv4:127.0.0.1:P1,127.0.0.1:P2``) and spread their calls over them
(``round_robin``, as with the headless Services in Kubernetes); clients of the gateway
may use any of its replicas (:meth:`Backend.replicas`).

Each service runs in a session (process group) of its own: ``kill`` takes its worker
processes (the match service's bot workers) down with it, as a crashing container
would, and ``stop`` leaves no process behind. Logs go to ``<directory>/logs/<name>.log``
and are appended to across restarts.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from devtools import leftovers
from devtools.devcert import ensure_dev_certificate
from devtools.leftovers import wait_group_gone
from devtools.topology import (
    NAMES,
    SERVICES,
    BackendError,
    ServiceSpec,
    free_ports,
    grpc_target,
    ports_of,
    replica_counts,
    replica_name,
    web_env,
    web_port,
)

ROOT = Path(__file__).resolve().parents[1]
STOP_SECONDS = 20.0


@dataclass(frozen=True, slots=True)
class BackendConfig:
    database_url: str
    nats_url: str
    directory: Path
    """Logs go to ``directory/logs``, the development TLS certificate to ``directory/tls``."""
    run_id: str | None = field(default_factory=lambda: secrets.token_hex(5))
    """Schemas ``<service>_<run_id>`` and JetStream consumers named after it; ``None``
    means the services' default schemas and consumers (``make run``)."""
    fixed_ports: bool = False
    """The well-known ports of :data:`SERVICES` (``make run``); otherwise free ones."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra ``TRIAD_...`` settings for every service (they win over the defaults here)."""
    overrides: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Extra settings for one service by name ("match", "gateway", ...); they win over
    :attr:`env`."""
    replicas: Mapping[str, int] = field(default_factory=dict)
    """Processes per service by name ("match": 2); one for a service not named."""
    token_secret: str = field(default_factory=lambda: secrets.token_urlsafe(48))
    admin_token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    start_timeout: float = 60.0


@dataclass(slots=True)
class _Running:
    spec: ServiceSpec
    port: int
    metrics_port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    web_port: int | None = None


class Backend:
    """Every service of the backend as its own process; see the module docstring."""

    def __init__(self, config: BackendConfig) -> None:
        self.config = config
        self.logs = config.directory / "logs"
        cert, key = ensure_dev_certificate(config.directory / "tls")
        self.cert_path, self.key_path = cert, key
        self.root_cert: bytes = cert.read_bytes()
        """The gateway's TLS root certificate (self-signed development certificate)."""
        placed = ports_of(config.fixed_ports, replica_counts(config.replicas))
        shared = {
            "TRIAD_DATABASE_URL": config.database_url,
            "TRIAD_NATS_URL": config.nats_url,
            "TRIAD_TOKEN_SECRET": config.token_secret,
            "TRIAD_ADMIN_TOKEN": config.admin_token,
            "TRIAD_GATEWAY_TLS_CERT": str(cert),
            "TRIAD_GATEWAY_TLS_KEY": str(key),
            **{f"TRIAD_{s.env_prefix}_ADDR": grpc_target(placed[s.name]) for s in SERVICES},
        }
        if config.run_id is not None:
            tag = config.run_id
            shared |= {f"TRIAD_{s.env_prefix}_SCHEMA": f"{s.name}_{tag}" for s in SERVICES}
            shared |= {
                "TRIAD_RATING_CONSUMER": f"rating_{tag}",
                "TRIAD_MATCHMAKER_CONSUMER": f"matchmaker_{tag}",
                # its own event stream and subjects on a NATS other backends may share:
                # never another backend's events consumed, nor its players' pushes
                "TRIAD_NATS_NAMESPACE": tag,
            }
        self._services: dict[str, _Running] = {}
        for spec in SERVICES:
            for index, (port, metrics_port) in enumerate(placed[spec.name], start=1):
                env = {
                    **os.environ,
                    **shared,
                    f"TRIAD_{spec.env_prefix}_PORT": str(port),
                    f"TRIAD_{spec.env_prefix}_METRICS_PORT": str(metrics_port),
                    **config.env,
                    **config.overrides.get(spec.name, {}),
                }
                name = replica_name(spec.name, index)
                log = self.logs / f"{name}.log"
                web = None
                if spec.name == "gateway":
                    web = web_port(config.fixed_ports and index == 1)
                    # Below the config's own settings, which may move it.
                    env = {
                        **env,
                        **web_env(web),
                        **config.env,
                        **config.overrides.get("gateway", {}),
                    }
                self._services[name] = _Running(spec, port, metrics_port, env, log, web_port=web)

    # ------------------------------------------------------------------ addresses

    @property
    def names(self) -> tuple[str, ...]:
        """The running parts: :data:`NAMES`, then any gateway added with :meth:`add_gateway`."""
        return tuple(self._services)

    def replicas(self, service: str) -> tuple[str, ...]:
        """The parts running ``service`` ("match"): itself, then ``match-2``... (and for
        the gateway, any added with :meth:`add_gateway`)."""
        if service not in NAMES:
            raise KeyError(f"no service {service!r}; the services are {', '.join(NAMES)}")
        return tuple(n for n, r in self._services.items() if r.spec.name == service)

    @property
    def gateway(self) -> str:
        """The public endpoint, ``host:port``, serving TLS with :attr:`root_cert`."""
        return self.address("gateway")

    def address(self, name: str) -> str:
        return f"127.0.0.1:{self._get(name).port}"

    def web_url(self, name: str = "gateway") -> str:
        """Where a gateway serves gRPC-Web and the browser client (``gateway.web``),
        over TLS with :attr:`root_cert`: ``https://127.0.0.1:8443`` under ``make run``."""
        return f"https://127.0.0.1:{self._get(name).web_port}"

    def metrics_address(self, name: str) -> str:
        """Where the service serves Prometheus ``/metrics`` over HTTP."""
        return f"127.0.0.1:{self._get(name).metrics_port}"

    def schema(self, name: str) -> str:
        """The PostgreSQL schema the service writes."""
        return self._get(name).env.get(f"TRIAD_{self._get(name).spec.env_prefix}_SCHEMA", name)

    def log(self, name: str) -> Path:
        return self._get(name).log

    def pid(self, name: str) -> int | None:
        process = self._get(name).process
        return None if process is None or process.poll() is not None else process.pid

    def env(self, name: str) -> Mapping[str, str]:
        """The ``TRIAD_`` settings the service runs with (for tools that connect alike)."""
        return {k: v for k, v in self._get(name).env.items() if k.startswith("TRIAD_")}

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Backend:
        """Start every service at once and wait until each reports SERVING."""
        self.logs.mkdir(parents=True, exist_ok=True)
        try:
            for name in self.names:
                self._spawn(name)
            deadline = time.monotonic() + self.config.start_timeout
            for name in self.names:
                self._wait_healthy(name, deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def kill(self, name: str) -> None:
        """SIGKILL the service and its worker processes: no drain, no cleanup, a crash."""
        running = self._get(name)
        process = running.process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
        wait_group_gone(process.pid)

    def restart(self, name: str, timeout: float | None = None) -> None:
        """Start the service again (killing it first if it still runs) on the same port
        with the same settings; return once it reports SERVING."""
        running = self._get(name)
        if running.process is not None and running.process.poll() is None:
            self._terminate([running])
        self._spawn(name)
        self._wait_healthy(name, time.monotonic() + (timeout or self.config.start_timeout))

    def add_gateway(self, name: str, env: Mapping[str, str]) -> str:
        """Start another gateway replica, ``name``, on a free port: the same schema,
        secrets, certificate and services as ``gateway``, with ``env`` on top (a lower
        rate limit, shorter tokens...). Returns its address once it reports SERVING;
        :meth:`kill`, :meth:`restart` and :meth:`stop` know it by ``name``."""
        if name in self._services:
            raise ValueError(f"there is already a part named {name!r}")
        first = self._get("gateway")
        [(port, metrics_port)] = free_ports(1)
        web = web_port(False)
        prefix = first.spec.env_prefix
        replica = _Running(
            first.spec,
            port,
            metrics_port,
            {
                **first.env,
                f"TRIAD_{prefix}_PORT": str(port),
                f"TRIAD_{prefix}_METRICS_PORT": str(metrics_port),
                **web_env(web),
                **env,
            },
            self.logs / f"{name}.log",
            web_port=web,
        )
        self._services[name] = replica
        self._spawn(name)
        self._wait_healthy(name, time.monotonic() + self.config.start_timeout)
        return self.address(name)

    def exited(self) -> dict[str, int]:
        """Services whose process has ended (and was not restarted), with the exit code."""
        return {
            name: code
            for name, running in self._services.items()
            if running.process is not None and (code := running.process.poll()) is not None
        }

    def stop(self) -> None:
        """SIGTERM every service (the gateway first), wait, SIGKILL what is left;
        the worker processes in each service's group go too."""
        self._terminate([self._services[n] for n in reversed(self.names)])

    def __enter__(self) -> Backend:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ inside

    def _get(self, name: str) -> _Running:
        try:
            return self._services[name]
        except KeyError:
            known = ", ".join(self.names)
            raise KeyError(f"no service {name!r}; the services are {known}") from None

    def _spawn(self, name: str) -> None:
        running = self._get(name)
        running.log.parent.mkdir(parents=True, exist_ok=True)
        with running.log.open("ab") as out:
            running.process = subprocess.Popen(
                [sys.executable, "-m", running.spec.module],
                env=running.env,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        leftovers.started(name, running.process.pid)

    def _wait_healthy(self, name: str, deadline: float) -> None:
        running = self._get(name)
        address = self.address(name)
        root = self.root_cert if running.spec.name == "gateway" else None
        while time.monotonic() < deadline:
            process = running.process
            if process is None or process.poll() is not None:
                code = None if process is None else process.returncode
                raise BackendError(f"{name} exited with {code}:\n{_tail(running.log)}")
            if _serving(address, root):
                return
            time.sleep(0.05)
        raise BackendError(f"{name} not healthy at {address} in time:\n{_tail(running.log)}")

    def _terminate(self, services: list[_Running]) -> None:
        alive = [r for r in services if r.process is not None and r.process.poll() is None]
        for running in alive:
            assert running.process is not None
            with contextlib.suppress(ProcessLookupError):
                running.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for running in alive:
            assert running.process is not None
            with contextlib.suppress(subprocess.TimeoutExpired):
                running.process.wait(max(0.1, deadline - time.monotonic()))
        for running in services:
            if running.process is not None:
                # The group outlives its leader when a worker hangs on: take it all.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(running.process.pid, signal.SIGKILL)
                running.process.wait(10)
                wait_group_gone(running.process.pid)


def _serving(address: str, root: bytes | None) -> bool:
    channel = (
        grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=root))
        if root is not None
        else grpc.insecure_channel(address)
    )
    try:
        with channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=1
            )
    except grpc.RpcError:
        return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def _tail(path: Path, size: int = 3000) -> str:
    try:
        return path.read_bytes()[-size:].decode(errors="replace")
    except OSError:
        return "(no log)"
