"""The end-to-end backend for the tests of this directory that do not start one of their
own: every service a separate process on real PostgreSQL and NATS (devtools/stack.py),
one per test module, and a TLS stub to its gateway.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from devtools.stack import Stack, stack
from tests.e2e.end_to_end import BOT_FILL_SECONDS


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """The whole backend from the launcher (devtools/stack.py), the populated bot quick."""
    with stack(
        shared_database_url,
        nats_url,
        tmp_path_factory.mktemp("end-to-end"),
        overrides={"matchmaker": {"TRIAD_MATCHMAKER_BOT_FILL_SECONDS": str(BOT_FILL_SECONDS)}},
    ) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)
