"""The whole backend as processes for the hostile, identity and race tests: every service
its own process on real PostgreSQL and NATS, behind the TLS gateway, with each test
module's durations and limits (TRIAD_* settings) of its own.

The end-to-end and client tests use it too (tests/e2e/conftest.py's ``backend``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import grpc
from triad.v1 import gateway_pb2_grpc

from devtools.backend import Backend, BackendConfig
from devtools.players import SECRET
from devtools.topology import NAMES
from services.collection.tests.process import ADMIN


@dataclass(frozen=True, slots=True)
class Gateway:
    name: str
    address: str


@dataclass
class Stack:
    backend: Backend
    gateways: list[Gateway]
    cert: Path
    schemas: list[str]

    @property
    def gateway(self) -> Gateway:
        return self.gateways[0]

    def channel(self, gateway: Gateway | None = None) -> grpc.aio.Channel:
        creds = grpc.ssl_channel_credentials(root_certificates=self.backend.root_cert)
        return grpc.aio.secure_channel((gateway or self.gateway).address, creds)

    def api(self, channel: grpc.aio.Channel) -> gateway_pb2_grpc.TriadGatewayAsyncStub:
        return gateway_pb2_grpc.TriadGatewayStub(channel)

    def logs(self) -> dict[str, str]:
        return {name: self.backend.log(name).read_text() for name in self.backend.names}


TEST_SETTINGS = {
    "TRIAD_BOT_SECONDS": "0.2",
    "TRIAD_MATCHMAKER_PAIR_INTERVAL_SECONDS": "0.2",
    "TRIAD_HEARTBEAT_SECONDS": "0.5",
    "TRIAD_RATE_PER_SECOND": "200",
    "TRIAD_RATE_BURST": "200",
    "TRIAD_REGISTRATIONS_PER_MINUTE": "100000",  # every test player signs up from here
    "TRIAD_REGISTRATION_BURST": "100000",
}
"""Quick bots, pairing and heartbeats, and a rate limit a test's bursts stay under."""


Overrides = Mapping[str, Mapping[str, str]]
"""Extra settings by service name ("match", "gateway", ...)."""


@contextmanager
def stack(
    database_url: str,
    nats_url: str,
    logs: Path,
    *,
    overrides: Overrides | None = None,
    gateways: tuple[Mapping[str, str], ...] = ({},),
    replicas: Mapping[str, int] | None = None,
) -> Iterator[Stack]:
    """The whole backend (devtools/backend.py) with :data:`TEST_SETTINGS`, the
    tests' token secret and admin token, and one gateway per entry of ``gateways`` (each
    with its own extra settings; the first is the backend's own).

    ``overrides`` maps a service name ("match", "gateway", ...) to extra settings;
    ``replicas`` the services to run as several processes to their count.
    """
    first, *more = gateways
    per_service = {name: dict(values) for name, values in (overrides or {}).items()}
    per_service["gateway"] = {**per_service.get("gateway", {}), **first}
    config = BackendConfig(
        database_url,
        nats_url,
        logs,
        env=TEST_SETTINGS,
        overrides=per_service,
        token_secret=SECRET,
        admin_token=ADMIN,
        replicas=replicas or {},
    )
    with Backend(config) as backend:
        front = [Gateway("gateway", backend.gateway)]
        for index, settings in enumerate(more, start=1):
            name = f"gateway{index}"
            front.append(Gateway(name, backend.add_gateway(name, settings)))
        schemas = [backend.schema(name) for name in NAMES]
        yield Stack(backend, front, backend.cert_path, schemas)


BEATS = frozenset({"gateways", "rate_buckets"})
"""Tables that say a process lives (the gateways' beats, gateway/presence.py) or count
refused calls (the open calls' limits, gateway/limits.py), not what anyone did: left out
of ``checksums``."""


async def checksums(database_url: str, schemas: list[str]) -> dict[str, str]:
    """The md5 of every table of ``schemas`` but ``BEATS``, over its rows in a stable
    order: equal checksums mean equal contents."""
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
            if row["table_name"] in BEATS:
                continue
            name = f'"{row["table_schema"]}"."{row["table_name"]}"'
            sums[name] = await conn.fetchval(
                f"SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), ''))"
                f" || ':' || count(*) FROM {name} t"
            )
        return sums
    finally:
        await conn.close()
