"""The whole backend as processes for the hostile, identity and race tests: every service
its own process on real PostgreSQL and NATS, behind the TLS gateway, with each test
module's durations and limits (TRIAD_* settings) of its own.

Like the ``backend`` fixture of tests/test_end_to_end.py, which has no overrides.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from uuid import uuid4

import asyncpg
import grpc
from triad.v1 import gateway_pb2_grpc

from gateway.devcert import ensure_dev_certificate
from services.collection.tests.process import ADMIN
from tests.processes import Service, free_port
from tests.test_gateway import SECRET

SERVICES = ("match", "collection", "rating", "matchmaker")


@dataclass
class Stack:
    services: dict[str, Service]
    gateways: list[Service]
    cert: Path
    schemas: list[str]
    env: dict[str, str] = field(default_factory=dict)

    @property
    def gateway(self) -> Service:
        return self.gateways[0]

    def channel(self, gateway: Service | None = None) -> grpc.aio.Channel:
        creds = grpc.ssl_channel_credentials(root_certificates=self.cert.read_bytes())
        return grpc.aio.secure_channel((gateway or self.gateway).address, creds)

    def api(self, channel: grpc.aio.Channel) -> gateway_pb2_grpc.TriadGatewayAsyncStub:
        return gateway_pb2_grpc.TriadGatewayStub(channel)  # type: ignore[no-untyped-call]

    def logs(self) -> dict[str, str]:
        found = {name: s.log.read_text() for name, s in self.services.items()}
        for index, gateway in enumerate(self.gateways):
            found[f"gateway{index}"] = gateway.log.read_text()
        return found


@contextmanager
def stack(
    database_url: str,
    nats_url: str,
    logs: Path,
    *,
    overrides: Mapping[str, Mapping[str, str]] | None = None,
    gateways: tuple[Mapping[str, str], ...] = ({},),
) -> Iterator[Stack]:
    """Start match, collection, rating and matchmaker, then one gateway per entry of
    ``gateways`` (each with its own extra settings, all on one gateway schema).

    ``overrides`` maps a service name ("match", "gateway", ...) to extra settings.
    """
    extra = {name: dict(values) for name, values in (overrides or {}).items()}
    tag = uuid4().hex[:10]
    ports = {name: free_port() for name in SERVICES}
    shared = {
        "TRIAD_DATABASE_URL": database_url,
        "TRIAD_NATS_URL": nats_url,
        **{f"TRIAD_{n.upper()}_ADDR": f"127.0.0.1:{ports[n]}" for n in SERVICES},
    }
    own = {
        "match": {"TRIAD_BOT_SECONDS": "0.2"},
        "collection": {"TRIAD_ADMIN_TOKEN": ADMIN},
        "rating": {"TRIAD_RATING_CONSUMER": f"r_{tag}"},
        "matchmaker": {
            "TRIAD_MATCHMAKER_CONSUMER": f"mm_{tag}",
            "TRIAD_MATCHMAKER_PAIR_INTERVAL_SECONDS": "0.2",
        },
    }
    services = {
        name: Service(
            f"services.{name}.main",
            {
                **shared,
                f"TRIAD_{name.upper()}_SCHEMA": f"{name}_{tag}",
                f"TRIAD_{name.upper()}_PORT": str(ports[name]),
                f"TRIAD_{name.upper()}_METRICS_PORT": "0",
                **own[name],
                **extra.get(name, {}),
            },
            ports[name],
            logs / f"{name}.log",
        )
        for name in SERVICES
    }
    cert, key = ensure_dev_certificate(logs / "tls")
    started: list[Service] = []
    for index, settings in enumerate(gateways):
        port = free_port()
        started.append(
            Service(
                "gateway.main",
                {
                    **shared,
                    "TRIAD_GATEWAY_SCHEMA": f"gateway_{tag}",
                    "TRIAD_GATEWAY_PORT": str(port),
                    "TRIAD_GATEWAY_METRICS_PORT": "0",
                    "TRIAD_TOKEN_SECRET": SECRET,
                    "TRIAD_GATEWAY_TLS_CERT": str(cert),
                    "TRIAD_GATEWAY_TLS_KEY": str(key),
                    "TRIAD_HEARTBEAT_SECONDS": "0.5",
                    "TRIAD_RATE_PER_SECOND": "200",
                    "TRIAD_RATE_BURST": "200",
                    **extra.get("gateway", {}),
                    **settings,
                },
                port,
                logs / f"gateway{index}.log",
                root_certificates=cert.read_bytes(),
            )
        )
    schemas = [f"{name}_{tag}" for name in (*SERVICES, "gateway")]
    try:
        with ThreadPoolExecutor(len(services)) as pool:
            for future in [pool.submit(s.start, 60.0) for s in services.values()]:
                future.result()
        for gateway in started:
            gateway.start(60.0)
        yield Stack(services, started, cert, schemas, shared)
    finally:
        for gateway in started:
            gateway.stop()
        with ThreadPoolExecutor(len(services)) as pool:
            list(pool.map(Service.stop, services.values()))


async def checksums(database_url: str, schemas: list[str]) -> dict[str, str]:
    """The md5 of every table of ``schemas``, over its rows in a stable order: equal
    checksums mean equal contents."""
    conn = await asyncpg.connect(database_url)
    try:
        tables = await conn.fetch(
            "SELECT table_schema, table_name FROM information_schema.tables"
            " WHERE table_schema = ANY($1::text[]) AND table_type = 'BASE TABLE'"
            " ORDER BY 1, 2",
            schemas,
        )
        sums: dict[str, str] = {}
        for row in tables:
            name = f'"{row["table_schema"]}"."{row["table_name"]}"'
            sums[name] = await conn.fetchval(
                f"SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), ''))"
                f" || ':' || count(*) FROM {name} t"
            )
        return sums
    finally:
        await conn.close()
