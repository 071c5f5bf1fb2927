"""Connection pools for the services."""

from __future__ import annotations

from typing import Any

import asyncpg


async def _keep_session(_conn: Any) -> None:
    """Release a connection as it is.

    asyncpg's default release runs ``RESET ALL; UNLISTEN *; CLOSE ALL; SELECT
    pg_advisory_unlock_all()``, a round trip per command on the hot path. Our pooled
    connections never change session state: listeners use their own connections and
    advisory locks are transaction-scoped, so there is nothing to reset.
    """


def create_pool(url: str, min_size: int = 2, max_size: int = 32) -> Any:
    """An asyncpg pool (use with ``async with`` or ``await``).

    Idle connections are kept (``max_inactive_connection_lifetime=0``): asyncpg would
    otherwise arm a five-minute timer on every release and cancel it on the next
    acquire, which under load cost the match service about 6% of its event loop. The
    pool never holds more than ``max_size`` connections either way."""
    return asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        reset=_keep_session,
        max_inactive_connection_lifetime=0,
    )
