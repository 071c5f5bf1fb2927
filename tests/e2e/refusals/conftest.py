"""The backend of the refusal tests: every service a process on real PostgreSQL and NATS,
one for this package, with no turn or trade timer firing and short access tokens, and a
TLS stub to its gateway.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from devtools.stack import Stack, stack
from tests.e2e.refusals.refusal_players import LONG, SHORT_TOKEN_MINUTES

# ---- the backend --------------------------------------------------------------------


@pytest.fixture(scope="package")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    with stack(
        shared_database_url,
        nats_url,
        tmp_path_factory.mktemp("refusals"),
        overrides={
            "match": {"TRIAD_TURN_SECONDS": LONG, "TRIAD_DISCONNECT_SECONDS": LONG},
            "collection": {"TRIAD_TRADE_CHOICE_SECONDS": LONG},
        },
        # the second gateway issues access tokens that expire in seconds
        gateways=({}, {"TRIAD_ACCESS_TOKEN_MINUTES": str(SHORT_TOKEN_MINUTES)}),
    ) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)
