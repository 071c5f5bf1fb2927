"""The match service of these tests: a separate process on real PostgreSQL and NATS,
started for each test, and a gRPC stub to it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import grpc
import pytest
from triad.v1 import match_pb2_grpc

from devtools.processes import Service, free_port
from tests.integration.match_service.match_events import ADMIN


@pytest.fixture
def match_service(shared_database_url: str, nats_url: str, tmp_path: Path) -> Iterator[Service]:
    service = Service(
        "services.match.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_MATCH_SCHEMA": f"match_{uuid4().hex[:12]}",
            "TRIAD_MATCH_PORT": str(free_port()),
            "TRIAD_MATCH_METRICS_PORT": "0",
            "TRIAD_ADMIN_TOKEN": ADMIN,
            "TRIAD_TIMER_POLL_SECONDS": "0.02",
        },
        free_port(),
        tmp_path / "match.log",
    )
    service.port = int(service.env["TRIAD_MATCH_PORT"])
    service.address = f"127.0.0.1:{service.port}"
    service.start()
    yield service
    assert service.stop() == 0, service.log.read_text()[-2000:]


@pytest.fixture
async def stub(match_service: Service) -> AsyncIterator[match_pb2_grpc.MatchServiceAsyncStub]:
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)
