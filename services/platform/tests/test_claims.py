"""Claiming due work from several replicas: each due row goes to one claimer, the most
overdue first, and only rows that are due."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from services.platform.claims import DueWork, claim_one, claimed, take_due

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_query_takes_the_most_overdue_rows_and_skips_locked_ones() -> None:
    work = DueWork(table='"mm".starts', key="start_id", due="lease_until", where="state = 'p'")
    assert work.oldest(5) == (
        "SELECT start_id FROM \"mm\".starts WHERE lease_until <= $1 AND (state = 'p') "
        "ORDER BY lease_until LIMIT 5 FOR UPDATE SKIP LOCKED"
    )


@pytest.mark.parametrize("name", ["t; DROP TABLE x", "a b", "", 'x"."y"."z'])
def test_names_that_are_not_plain_sql_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="not a plain SQL name"):
        DueWork(table=name, key="id")


async def timers(pool: Any, schema: str) -> DueWork:
    await pool.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    await pool.execute(
        f'CREATE TABLE "{schema}".timers (id text PRIMARY KEY, due_at timestamptz NOT NULL, '
        "state text NOT NULL DEFAULT 'open')"
    )
    await pool.executemany(
        f'INSERT INTO "{schema}".timers (id, due_at) VALUES ($1, $2)',
        [("late", T0 - timedelta(seconds=5)), ("later", T0 - timedelta(seconds=1)),
         ("future", T0 + timedelta(seconds=60))],
    )  # fmt: skip
    return DueWork(table=f'"{schema}".timers', key="id")


@pytest.mark.integration
async def test_concurrent_claimers_each_get_a_different_due_row_most_overdue_first(
    pg_pool: Any, pg_schema: str
) -> None:
    work = await timers(pg_pool, pg_schema)
    async with (
        claimed(pg_pool, work, T0) as first,
        claimed(pg_pool, work, T0) as second,
        claimed(pg_pool, work, T0) as third,
    ):
        assert (first.key, second.key, third.key) == ("late", "later", None)


@pytest.mark.integration
async def test_a_claim_in_the_callers_transaction_holds_until_it_ends(
    pg_pool: Any, pg_schema: str
) -> None:
    work = await timers(pg_pool, pg_schema)
    async with pg_pool.acquire() as conn, conn.transaction():
        assert await claim_one(conn, work, T0) == "late"
        async with pg_pool.acquire() as other, other.transaction():
            assert await claim_one(other, work, T0) == "later"
    async with pg_pool.acquire() as conn, conn.transaction():
        assert await claim_one(conn, work, T0) == "late"  # released: due again


@pytest.mark.integration
async def test_take_due_changes_the_due_rows_once_even_from_racing_replicas(
    pg_pool: Any, pg_schema: str
) -> None:
    work = await timers(pg_pool, pg_schema)
    open_due = DueWork(table=work.table, key="id", where="state = 'open'")

    async def expire() -> list[Any]:
        return await take_due(
            pg_pool, open_due, T0, change="state = $2", returning="id", args=["expired"], limit=10
        )

    taken = await asyncio.gather(*(expire() for _ in range(4)))
    assert sorted(r["id"] for rows in taken for r in rows) == ["late", "later"]
    assert await expire() == []
    states = await pg_pool.fetch(f"SELECT id, state FROM {work.table} ORDER BY id")
    assert [tuple(r) for r in states] == [
        ("future", "open"), ("late", "expired"), ("later", "expired"),
    ]  # fmt: skip
