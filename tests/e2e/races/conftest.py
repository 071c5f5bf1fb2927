"""The backend of the race tests: every service a process on real PostgreSQL and NATS,
one for this package, with the durations shortened by their settings, and a TLS stub to
its gateway that ends the sessions the test's players kept open.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from devtools.stack import Stack, stack
from tests.e2e.races.race_players import (
    ATTENDING,
    DISCONNECT_SECONDS,
    SHORT_TOKEN_MINUTES,
    TRADE_SECONDS,
    TURN_SECONDS,
)


@pytest.fixture(scope="package")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("races")
    with stack(
        shared_database_url,
        nats_url,
        logs,
        overrides={
            "match": {
                "TRIAD_TURN_SECONDS": str(TURN_SECONDS),
                "TRIAD_DISCONNECT_SECONDS": str(DISCONNECT_SECONDS),
            },
            "collection": {"TRIAD_TRADE_CHOICE_SECONDS": str(TRADE_SECONDS)},
            "gateway": {"TRIAD_HEARTBEAT_SECONDS": "0.3"},
        },
        # the second gateway issues access tokens that expire in seconds
        gateways=({}, {"TRIAD_ACCESS_TOKEN_MINUTES": str(SHORT_TOKEN_MINUTES)}),
    ) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)
        for session in ATTENDING:  # the sessions the test's players kept open
            session.cancel()
        await asyncio.gather(*ATTENDING, return_exceptions=True)
        ATTENDING.clear()
