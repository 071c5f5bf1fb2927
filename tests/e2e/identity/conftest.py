"""The backend of the identity tests: every service a process on real PostgreSQL and NATS,
one for this package, and a TLS stub to its gateway.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from devtools.stack import Stack, stack


@pytest.fixture(scope="package")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("identity")
    with stack(shared_database_url, nats_url, logs) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)
