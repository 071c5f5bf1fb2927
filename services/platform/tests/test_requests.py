"""Idempotent request keys in a service's requests table: a retry finds its first
result, a reused id is refused, a racing run learns it lost."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.platform.requests import Request, RequestReused, RequestSeen, answered, remember

pytestmark = pytest.mark.integration


async def table(pool: Any, schema: str) -> str:
    await pool.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    name = f'"{schema}".requests'
    await pool.execute(
        f"CREATE TABLE {name} (scope text, request_id text, fingerprint text NOT NULL, "
        "ref_id text NOT NULL, PRIMARY KEY (scope, request_id))"
    )
    return name


async def test_a_retry_finds_the_first_result_and_a_new_id_finds_none(
    pg_pool: Any, pg_schema: str
) -> None:
    requests = await table(pg_pool, pg_schema)
    key = Request.of("enqueue:p1", "r-1", "ranked")
    assert await answered(pg_pool, requests, key, "ref_id") is None
    async with pg_pool.acquire() as conn, conn.transaction():
        await remember(conn, requests, key, ref_id="ticket-1")
    first = await answered(pg_pool, requests, Request.of("enqueue:p1", "r-1", "ranked"), "ref_id")
    assert first is not None and first["ref_id"] == "ticket-1"
    assert await answered(pg_pool, requests, Request.of("enqueue:p2", "r-1", "x"), "ref_id") is None


async def test_the_same_id_with_other_content_is_refused(pg_pool: Any, pg_schema: str) -> None:
    requests = await table(pg_pool, pg_schema)
    async with pg_pool.acquire() as conn:
        await remember(conn, requests, Request.of("s", "r-1", "ranked"), ref_id="t")
    with pytest.raises(RequestReused, match="'r-1' was already used"):
        await answered(pg_pool, requests, Request.of("s", "r-1", "unranked"), "ref_id")


async def test_of_two_racing_runs_one_records_and_the_other_is_told_it_was_seen(
    pg_pool: Any, pg_schema: str
) -> None:
    requests = await table(pg_pool, pg_schema)
    key = Request.of("s", "r-1", "ranked")

    async def run(ref_id: str) -> str:
        async with pg_pool.acquire() as conn, conn.transaction():
            await remember(conn, requests, key, ref_id=ref_id)
        return ref_id

    outcomes = await asyncio.gather(run("a"), run("b"), return_exceptions=True)
    assert sum(isinstance(o, RequestSeen) for o in outcomes) == 1
    won = next(o for o in outcomes if isinstance(o, str))
    assert await pg_pool.fetchval(f"SELECT ref_id FROM {requests}") == won
