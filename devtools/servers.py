"""PostgreSQL and NATS for a local backend: the URLs given, else embedded servers, with
PostgreSQL set up for as many connections as every service's pool may take."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import asyncpg

from devtools.embedded import embedded_nats, embedded_postgres

MAX_CONNECTIONS = 400
"""Every service's pool may grow to 32 connections, plus its relay, notifier and
consumers: five services need more than PostgreSQL's default of 100 under load."""


@contextlib.contextmanager
def infrastructure(
    database_url: str | None, nats_url: str | None, directory: Path | None = None
) -> Iterator[tuple[str, str]]:
    """PostgreSQL and NATS URLs: the given ones, else embedded servers (kept in
    ``directory/pg`` and ``directory/nats`` when given, else thrown away afterwards).
    An embedded PostgreSQL is set up for :data:`MAX_CONNECTIONS` connections."""
    with ExitStack() as stack:
        database = database_url or stack.enter_context(roomy_postgres(directory))
        nats = nats_url or stack.enter_context(
            embedded_nats(None if directory is None else directory / "nats")
        )
        yield database, nats


@contextlib.contextmanager
def roomy_postgres(directory: Path | None = None) -> Iterator[str]:
    """The embedded PostgreSQL with room for every service's pool (kept in
    ``directory/pg``, else thrown away). max_connections is read only at start, so a
    first start may set it (ALTER SYSTEM) and restart. The tests' servers come from here
    too: a whole backend per test module needs the room as much as ``make run`` does."""
    with ExitStack() as stack:
        if directory is None:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="triad-pg-"))
            pgdata = Path(scratch) / "pgdata"
        else:
            pgdata = directory / "pg"
        with ExitStack() as first:
            url = first.enter_context(embedded_postgres(pgdata))
            roomy = _run_sql(url, "SHOW max_connections") >= MAX_CONNECTIONS
            if roomy:
                stack.push(first.pop_all())
            else:
                _run_sql(url, f"ALTER SYSTEM SET max_connections = {MAX_CONNECTIONS}")
        if not roomy:
            url = stack.enter_context(embedded_postgres(pgdata))
        yield url


def _run_sql(url: str, statement: str) -> int:
    """Run one statement on its own event loop (the caller may be inside one); an
    integer result, or 0."""

    async def run() -> int:
        conn = await asyncpg.connect(url)
        try:
            value = await conn.fetchval(statement)
        finally:
            await conn.close()
        return int(value) if isinstance(value, str) and value.isdigit() else 0

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()
