"""The servers every integration test gets: real PostgreSQL and NATS, isolated per test."""

from __future__ import annotations

from typing import Any

import asyncpg
import nats
import pytest

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("run", ["first", "second"])
async def test_each_test_gets_a_fresh_empty_database(database_url: str, run: str) -> None:
    """Run twice: whichever runs second would see the first one's table if it leaked."""
    conn = await asyncpg.connect(database_url)
    try:
        assert (await conn.fetchval("SELECT current_database()")).startswith("triad_test_")
        tables = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', "
            "'information_schema')"
        )
        assert tables == []
        await conn.execute(f"CREATE TABLE left_by_{run} (n int)")
    finally:
        await conn.close()


@pytest.mark.parametrize("run", ["first", "second"])
async def test_each_test_gets_a_schema_no_other_test_has_used(
    pg_pool: Any, pg_schema: str, run: str
) -> None:
    assert await pg_pool.fetchval("SELECT to_regnamespace($1)", pg_schema) is None
    await pg_pool.execute(f"CREATE SCHEMA {pg_schema}")
    await pg_pool.execute(f"CREATE TABLE {pg_schema}.left_by_{run} (n int)")


async def test_the_database_is_a_real_postgresql_with_the_global_order_functions(
    pg_pool: Any,
) -> None:
    assert await pg_pool.fetchval("SELECT pg_snapshot_xmin(pg_current_snapshot()) IS NOT NULL")


async def test_nats_is_a_real_server_with_jetstream(nats_url: str) -> None:
    client = await nats.connect(nats_url)
    try:
        account = await client.jetstream().account_info()
    finally:
        await client.close()
    assert account.limits is not None
