"""Every service's and the gateway's transient tables (``services.platform.retention``),
once migrated, are pruned through an index on their time, with no SQL error: a column
or condition that does not match its table fails here, not in a replica's log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gateway import schema as gateway_schema
from services.battle import schema as battle_schema
from services.collection import schema as collection_schema
from services.match import schema as match_schema
from services.matchmaker import schema as matchmaker_schema
from services.platform.migrations import migrate
from services.platform.retention import pruning
from services.rating import schema as rating_schema

pytestmark = pytest.mark.integration

NOW = datetime(2030, 1, 10, tzinfo=UTC)
WEEK = timedelta(days=7)


@pytest.mark.parametrize(
    ("migrations", "transient"),
    [
        (match_schema.SCHEMA_MIGRATIONS, match_schema.transient),
        (battle_schema.SCHEMA_MIGRATIONS, battle_schema.transient),
        (gateway_schema.SCHEMA_MIGRATIONS, gateway_schema.transient),
        (
            collection_schema.SCHEMA_MIGRATIONS,
            lambda s: collection_schema.transient(s, 604_800),
        ),
        (
            matchmaker_schema.SCHEMA_MIGRATIONS,
            lambda s: matchmaker_schema.transient(s, 604_800),
        ),
        (rating_schema.SCHEMA_MIGRATIONS, lambda s: rating_schema.transient(s, 604_800)),
    ],
    ids=["match", "battle", "gateway", "collection", "matchmaker", "rating"],
)
async def test_every_transient_table_is_pruned_through_an_index_on_its_time(
    pg_pool: Any, pg_schema: str, migrations: Any, transient: Any
) -> None:
    await migrate(pg_pool, pg_schema, migrations)
    tables = transient(pg_schema)
    assert tables
    assert await pruning(pg_pool, tables, WEEK, lambda: NOW)() is False
    for rows in tables:
        name = rows.table.rsplit(".", 1)[-1]
        defs = await pg_pool.fetch(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2",
            pg_schema,
            name,
        )
        assert any(f"({rows.column})" in d["indexdef"] for d in defs), (name, defs)
