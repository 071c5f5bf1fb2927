"""The backend of the gateway tests: the match service and the gateway as separate
processes on real PostgreSQL, started for each test, a TLS stub to the gateway and a
stub to the match service's internal API.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from triad.v1 import gateway_pb2_grpc, match_pb2_grpc

from tests.integration.gateway.gateway_process import match_and_gateway


@pytest.fixture
def backend(
    shared_database_url: str, nats_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[dict[str, Any]]:
    match, gateway, cert = match_and_gateway(shared_database_url, nats_url, tmp_path)
    gateway.env.update(getattr(request.module, "GATEWAY_ENV", {}))  # a module's settings
    match.start()
    gateway.start()
    yield {"match": match, "gateway": gateway, "cert": cert}
    assert gateway.stop() == 0, gateway.log.read_text()[-2000:]
    assert match.stop() == 0, match.log.read_text()[-2000:]


@pytest.fixture
async def api(backend: dict[str, Any]) -> AsyncIterator[gateway_pb2_grpc.TriadGatewayAsyncStub]:
    creds = grpc.ssl_channel_credentials(root_certificates=backend["cert"].read_bytes())
    async with grpc.aio.secure_channel(backend["gateway"].address, creds) as channel:
        yield gateway_pb2_grpc.TriadGatewayStub(channel)


@pytest.fixture
async def internal(
    backend: dict[str, Any],
) -> AsyncIterator[match_pb2_grpc.MatchServiceAsyncStub]:
    async with grpc.aio.insecure_channel(backend["match"].address) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)
