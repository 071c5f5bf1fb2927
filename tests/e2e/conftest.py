"""The end-to-end backend for the tests of this directory that do not start one of their
own: every service a separate process on real PostgreSQL and NATS (devtools/stack.py),
one per test module, and a TLS stub to its gateway.

A module names the settings its backend runs with as ``STACK_OVERRIDES`` (service name to
settings, as ``stack``'s ``overrides``); without one the populated bot is quick. A module
that runs several gateways names each one's settings as ``STACK_GATEWAYS`` (``apis``:
a stub to each) and several processes of a service as ``STACK_REPLICAS``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from devtools.stack import Overrides, Stack, stack
from tests.e2e.end_to_end import BOT_FILL_SECONDS
from tests.e2e.races.race_players import stop_attending

QUICK_BOT: Overrides = {"matchmaker": {"TRIAD_MATCHMAKER_BOT_FILL_SECONDS": str(BOT_FILL_SECONDS)}}


@pytest.fixture(scope="module")
def backend(
    request: pytest.FixtureRequest,
    shared_database_url: str,
    nats_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    """The whole backend from the launcher (devtools/stack.py), with the module's
    ``STACK_OVERRIDES``, its logs in a folder named after the module."""
    overrides = getattr(request.module, "STACK_OVERRIDES", QUICK_BOT)
    gateways = getattr(request.module, "STACK_GATEWAYS", ({},))
    replicas = getattr(request.module, "STACK_REPLICAS", None)
    logs = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    with stack(
        shared_database_url,
        nats_url,
        logs,
        overrides=overrides,
        gateways=gateways,
        replicas=replicas,
    ) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    """A TLS stub to the module's (or package's) backend; the sessions the test's players
    kept open (``race_players.attend``) end with the test, whichever module it is in."""
    async with backend.channel() as channel:
        yield backend.api(channel)
        await stop_attending()


@pytest.fixture
async def apis(backend: Stack) -> AsyncIterator[tuple[Any, ...]]:
    """A TLS stub to each of the module's gateways (``STACK_GATEWAYS``), in order."""
    channels = [backend.channel(gateway) for gateway in backend.gateways]
    async with contextlib.AsyncExitStack() as opened:
        for channel in channels:
            await opened.enter_async_context(channel)
        yield tuple(backend.api(channel) for channel in channels)
