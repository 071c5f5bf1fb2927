"""Run the backend's services as real processes for cross-service tests."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]


LISTEN_PORTS = range(20_000, 32_768)
"""Where test and ``make run`` servers listen: below Linux's ephemeral range (32768 and
up), from which the kernel hands out ``bind(0)`` ports *and* the local ports of every
outgoing connection. A port picked there could be taken by some client's connection to
PostgreSQL or NATS between the pick and the server's bind (seen as "Failed to bind to
address" when the machine is busy); below it, only another listener can take it."""


def worker_ports(ports: range = LISTEN_PORTS, environ: Mapping[str, str] = os.environ) -> range:
    """This process's share of ``ports``: under pytest-xdist (``make test`` runs three
    workers) worker N of K takes every K-th port from the N-th, so two workers never
    hand out the same port, though each remembers only its own."""
    worker, count = (
        environ.get("PYTEST_XDIST_WORKER", ""),
        environ.get("PYTEST_XDIST_WORKER_COUNT", ""),
    )
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit()):
        return ports
    total = int(count)
    return ports[int(worker[2:]) % total :: total] if total > 0 else ports


_HANDED_OUT: set[int] = set()
"""Ports this process has handed out. A server binds its port some time after the probe
socket that found it free has closed, so a later probe could find the same port free
again (two gateways' web ports once were one: "address already in use"); a port is
therefore handed out once per process (until most of the range has been)."""


def bound_free_port(sock: socket.socket) -> int:
    """Bind ``sock`` to a free port of ``LISTEN_PORTS`` on 127.0.0.1 (of this pytest
    worker's share, ``worker_ports``), drawn at random so that concurrent test runs
    rarely try the same one, and never one this process has handed out already; its
    number."""
    ports = worker_ports()
    if len(_HANDED_OUT) > len(ports) // 2:
        _HANDED_OUT.clear()
    for _ in range(200):
        port = secrets.choice(ports)
        if port in _HANDED_OUT:
            continue
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        _HANDED_OUT.add(port)
        return port
    sock.bind(("127.0.0.1", 0))  # a crowded range: fall back to the kernel's pick
    return int(sock.getsockname()[1])


def free_port() -> int:
    with socket.socket() as sock:
        return bound_free_port(sock)


class Service:
    """One service process: started, health-checked, killed and restarted by tests."""

    def __init__(
        self,
        module: str,
        env: Mapping[str, str],
        port: int,
        log: Path,
        root_certificates: bytes | None = None,
    ) -> None:
        self.module = module
        self.root_certificates = root_certificates
        """Set for a TLS server: health checks then go over TLS, trusting this root."""
        self.env = {**os.environ, **env}
        self.port = port
        self.address = f"127.0.0.1:{port}"
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> Service:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", self.module],
                env=self.env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                # Its own process group: a kill or a stop takes its worker processes
                # (the match service's bot pool) with it, as a container's end would.
                start_new_session=True,
            )
        self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"{self.module} exited: {self.log.read_text()[-3000:]}")
            try:
                with self._channel() as channel:
                    reply = health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(service=""), timeout=1
                    )
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.05)
        raise TimeoutError(
            f"{self.module} not healthy in {timeout}s: {self.log.read_text()[-3000:]}"
        )

    def _channel(self) -> grpc.Channel:
        if self.root_certificates is None:
            return grpc.insecure_channel(self.address)
        credentials = grpc.ssl_channel_credentials(root_certificates=self.root_certificates)
        return grpc.secure_channel(self.address, credentials)

    def kill(self) -> None:
        """SIGKILL to the whole process group: no drain, no cleanup, as a crash."""
        if self.process is not None:
            self._kill_group()
            self.process.wait(10)

    def stop(self) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is not None:
            self._kill_group()  # workers a crashed leader left behind
            return self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            return -9
        finally:
            self._kill_group()

    def _kill_group(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
