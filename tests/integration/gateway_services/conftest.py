"""The backend of the gateway-services tests: match, collection, rating and gateway as
processes on real PostgreSQL and NATS, one for this package, and a TLS stub to the
gateway.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import gateway_pb2_grpc

from devtools.devcert import ensure_dev_certificate
from devtools.players import SECRET
from devtools.processes import Service, free_port
from services.collection.tests.process import ADMIN
from tests.integration.gateway_services.gateway_services_players import DRAFT_INACTIVITY_SECONDS

if TYPE_CHECKING:
    from tests.integration.gateway_services.gateway_services_players import Api


@pytest.fixture(scope="package")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """One backend for the package (players are unique per test, so tests do not meet).

    The relay of the match service publishes to the default stream, so collection and
    rating read that stream too; each has a schema of its own, and rating a durable
    consumer of its own, so no other test's process takes their events.
    """
    logs = tmp_path_factory.mktemp("gateway-services")
    tag = uuid4().hex[:10]
    ports = {name: free_port() for name in ("match", "collection", "rating", "gateway")}
    shared = {"TRIAD_DATABASE_URL": shared_database_url, "TRIAD_NATS_URL": nats_url}
    services = {
        "match": Service(
            "services.match.main",
            {
                **shared,
                "TRIAD_MATCH_SCHEMA": f"match_{tag}",
                "TRIAD_MATCH_PORT": str(ports["match"]),
                "TRIAD_MATCH_METRICS_PORT": "0",
            },
            ports["match"],
            logs / "match.log",
        ),
        "collection": Service(
            "services.collection.main",
            {
                **shared,
                "TRIAD_COLLECTION_SCHEMA": f"collection_{tag}",
                "TRIAD_COLLECTION_PORT": str(ports["collection"]),
                "TRIAD_COLLECTION_METRICS_PORT": "0",
                "TRIAD_ADMIN_TOKEN": ADMIN,
                # A draft's 120-s inactivity forfeit, short: only the draft test drafts.
                "TRIAD_DRAFT_INACTIVITY_SECONDS": str(DRAFT_INACTIVITY_SECONDS),
            },
            ports["collection"],
            logs / "collection.log",
        ),
        "rating": Service(
            "services.rating.main",
            {
                **shared,
                "TRIAD_RATING_SCHEMA": f"rating_{tag}",
                "TRIAD_RATING_PORT": str(ports["rating"]),
                "TRIAD_RATING_METRICS_PORT": "0",
                "TRIAD_RATING_CONSUMER": f"rating_{tag}",
            },
            ports["rating"],
            logs / "rating.log",
        ),
    }
    cert, key = ensure_dev_certificate(logs / "tls")
    gateway = Service(
        "gateway.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,  # the players' pushes
            "TRIAD_GATEWAY_SCHEMA": f"gateway_{tag}",
            "TRIAD_GATEWAY_PORT": str(ports["gateway"]),
            "TRIAD_GATEWAY_METRICS_PORT": "0",
            "TRIAD_TOKEN_SECRET": SECRET,
            "TRIAD_GATEWAY_TLS_CERT": str(cert),
            "TRIAD_GATEWAY_TLS_KEY": str(key),
            "TRIAD_MATCH_ADDR": services["match"].address,
            "TRIAD_COLLECTION_ADDR": services["collection"].address,
            "TRIAD_RATING_ADDR": services["rating"].address,
            "TRIAD_MATCHMAKER_ADDR": "",  # not configured: its RPCs answer UNAVAILABLE
            "TRIAD_HEARTBEAT_SECONDS": "0.2",
            "TRIAD_RATE_PER_SECOND": "200",
            "TRIAD_RATE_BURST": "200",
        },
        ports["gateway"],
        logs / "gateway.log",
        root_certificates=cert.read_bytes(),
    )
    try:
        with ThreadPoolExecutor(len(services)) as pool:  # the services start in parallel
            for started in [pool.submit(s.start) for s in services.values()]:
                started.result()
        gateway.start()
        yield {**services, "gateway": gateway, "cert": cert}
    finally:
        codes = {"gateway": gateway.stop()}
        with ThreadPoolExecutor(len(services)) as pool:  # each may take seconds to drain
            codes.update(zip(services, pool.map(Service.stop, services.values()), strict=True))
        for name, code in codes.items():
            log = gateway.log if name == "gateway" else services[name].log
            assert code == 0, f"{name}: {log.read_text()[-2000:]}"


@pytest.fixture
async def api(backend: dict[str, Any]) -> AsyncIterator[Api]:
    creds = grpc.ssl_channel_credentials(root_certificates=backend["cert"].read_bytes())
    async with grpc.aio.secure_channel(backend["gateway"].address, creds) as channel:
        yield gateway_pb2_grpc.TriadGatewayStub(channel)
