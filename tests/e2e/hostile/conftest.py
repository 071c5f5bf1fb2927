"""The backend of the hostile tests: every service a process on real PostgreSQL and NATS,
one for this package, with timers that would change state on their own set to ten
minutes, and two TLS gateways: one with no practical rate limit for the hostile
traffic, one with tight limits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import grpc
import pytest

from devtools.stack import Stack, stack
from tests.e2e.hostile.hostile_plans import LONG

# ---- the backend ------------------------------------------------------------------


@pytest.fixture(scope="package")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("hostile")
    with stack(
        shared_database_url,
        nats_url,
        logs,
        overrides={
            "match": {"TRIAD_TURN_SECONDS": LONG, "TRIAD_DISCONNECT_SECONDS": LONG},
            "collection": {
                "TRIAD_TRADE_CHOICE_SECONDS": LONG,
                "TRIAD_DRAFT_PICK_SECONDS": LONG,
                "TRIAD_DRAFT_INACTIVITY_SECONDS": LONG,
            },
            "matchmaker": {"TRIAD_MATCHMAKER_BOT_FILL_SECONDS": LONG},
            # The battles other tests of the package leave in progress must not move on
            # their own while the hostile attack checks that nothing changes.
            "battle": {
                "TRIAD_BATTLE_FORMATION_SECONDS": LONG,
                "TRIAD_BATTLE_SELECTION_SECONDS": LONG,
                "TRIAD_BATTLE_DISCONNECT_SECONDS": LONG,
            },
        },
        gateways=(
            # The hostile traffic must reach the services, not the rate limiter.
            {"TRIAD_RATE_PER_SECOND": "100000", "TRIAD_RATE_BURST": "100000"},
            {
                "TRIAD_RATE_PER_SECOND": "1",
                "TRIAD_RATE_BURST": "5",
                "TRIAD_REGISTRATION_BURST": "3",
                "TRIAD_REGISTRATIONS_PER_MINUTE": "0.5",
            },
        ),
    ) as running:
        yield running


@pytest.fixture
async def channel(backend: Stack) -> AsyncIterator[grpc.aio.Channel]:
    async with backend.channel() as opened:
        yield opened
