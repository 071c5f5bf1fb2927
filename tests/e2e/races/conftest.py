"""The backend of the race tests: every service a process on real PostgreSQL and NATS,
one for this package, with the durations shortened by their settings (the ``api``
fixture of ``tests/e2e/conftest.py`` serves it, and ends the sessions a test kept open).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devtools.stack import Stack, stack
from tests.e2e.races.race_players import (
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
