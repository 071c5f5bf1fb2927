"""Connection pools for the services."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import asyncpg
import structlog

from services.platform.interceptors import out_of_reach

log = structlog.get_logger()

RETRY_CEILING_SECONDS = 5.0
"""The longest pause between two tries to reach PostgreSQL at start."""


async def _keep_session(_conn: Any) -> None:
    """Release a connection as it is.

    asyncpg's default release runs ``RESET ALL; UNLISTEN *; CLOSE ALL; SELECT
    pg_advisory_unlock_all()``, a round trip per command on the hot path. Our pooled
    connections never change session state: listeners use their own connections and
    advisory locks are transaction-scoped, so there is nothing to reset.
    """


@asynccontextmanager
async def create_pool(url: str, min_size: int = 2, max_size: int = 32) -> AsyncIterator[Any]:
    """An asyncpg pool (``connect_pool``), open for the ``async with`` block, as a
    service's lifecycle takes it: ``life.enter(create_pool(...))``."""
    pool = await connect_pool(url, min_size, max_size)
    try:
        yield pool
    finally:
        await pool.close()


async def connect_pool(url: str, min_size: int = 2, max_size: int = 32) -> Any:
    """An asyncpg pool, connected; the caller closes it.

    PostgreSQL out of reach at start (a deployment's first minutes, while CloudNativePG
    brings the cluster up; a failover) is waited for: one log line naming the server
    (never the URL's password), tries again every 0.5 s growing to 5 s, one line when
    it answers. A process told to stop meanwhile stops (``Lifecycle`` cancels its start).
    Anything else (a wrong password, no such database) fails at once.

    Idle connections are kept (``max_inactive_connection_lifetime=0``): asyncpg would
    otherwise arm a five-minute timer on every release and cancel it on the next
    acquire, which under load cost the match service about 6% of its event loop. The
    pool never holds more than ``max_size`` connections either way."""
    tries, pause = 0, 0.5
    while True:
        tries += 1
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=min_size,
                max_size=max_size,
                reset=_keep_session,
                max_inactive_connection_lifetime=0,
            )
        except Exception as error:
            if not out_of_reach(error):
                raise
            if tries == 1:
                log.warning("waiting for PostgreSQL", server=_server(url), error=repr(error))
            await asyncio.sleep(pause)
            pause = min(pause * 2, RETRY_CEILING_SECONDS)
            continue
        if tries > 1:
            log.info("PostgreSQL reached", server=_server(url), tries=tries)
        return pool


def _server(url: str) -> str:
    """Where a PostgreSQL URL points (its host and port, or its socket directory),
    without its user and password."""
    parts = urlsplit(url)
    socket_dir = parse_qs(parts.query).get("host", [""])[0]
    return f"{parts.hostname or socket_dir or 'localhost'}:{parts.port or 5432}"
