"""Pruning on real PostgreSQL (``services.platform.retention``): only rows past their
time go, a batch at a time, the oldest first, narrowed by their condition. Every
service's own tables: ``tests/integration/test_retention.py``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from services.platform.migrations import quote_schema
from services.platform.retention import Transient, processed_marks, prune, pruning

pytestmark = pytest.mark.integration

NOW = datetime(2030, 1, 10, tzinfo=UTC)
WEEK = timedelta(days=7)


async def test_only_rows_past_their_time_go_a_batch_at_a_time_oldest_first(
    pg_pool: Any, pg_schema: str
) -> None:
    table = f"{quote_schema(pg_schema)}.keys"
    await pg_pool.execute(f"CREATE SCHEMA {quote_schema(pg_schema)}")
    await pg_pool.execute(
        f"CREATE TABLE {table} (id int PRIMARY KEY, at timestamptz NOT NULL, state text)"
    )
    rows = [(i, NOW - WEEK - timedelta(hours=1 + i), "done") for i in range(25)]
    rows += [(100, NOW - WEEK - timedelta(days=30), "pending")]  # excluded by ``where``
    rows += [(200 + i, NOW - timedelta(days=i), "done") for i in range(7)]  # kept: recent
    await pg_pool.executemany(f"INSERT INTO {table} VALUES ($1, $2, $3)", rows)
    keys = Transient(table, "at", where="state <> 'pending'")

    assert await prune(pg_pool, keys, NOW - WEEK, batch=10) == 10
    left = {r["id"] for r in await pg_pool.fetch(f"SELECT id FROM {table}")}
    assert set(range(15, 25)).isdisjoint(left), "the oldest went first"

    step = pruning(pg_pool, [keys], WEEK, lambda: NOW, batch=10)
    assert await step() is True  # a full batch: more may be left
    assert await step() is False  # the last 5
    left = {r["id"] for r in await pg_pool.fetch(f"SELECT id FROM {table}")}
    assert left == {100, *range(200, 207)}


def test_processed_marks_outlive_the_event_stream_and_stay_when_it_keeps_all() -> None:
    assert processed_marks("s.processed_events", 0) == []
    (marks,) = processed_marks("s.processed_events", 7 * 86_400)
    assert marks.kept == timedelta(days=8) and marks.column == "processed_at"
