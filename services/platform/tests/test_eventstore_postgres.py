"""What only the PostgreSQL store does: migrations, schemas, the caller's transaction."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from services.platform.eventstore import NewEvent, PostgresEventStore, WrongExpectedVersion
from services.platform.eventstore_schema import MIGRATIONS, appended_channel
from services.platform.migrations import Migration, MigrationError, migrate, quote_schema

pytestmark = pytest.mark.integration


def event() -> NewEvent:
    return NewEvent(type="CardPlaced", data=b"\x01")


async def test_migrating_twice_applies_nothing_the_second_time(
    pg_pool: Any, pg_schema: str
) -> None:
    assert await migrate(pg_pool, pg_schema, MIGRATIONS) == list(MIGRATIONS)
    assert await migrate(pg_pool, pg_schema, MIGRATIONS) == []

    rows = await pg_pool.fetch(f"SELECT component, version FROM {pg_schema}.schema_migrations")
    assert sorted(tuple(r) for r in rows) == [(m.component, m.version) for m in MIGRATIONS]


async def test_replicas_starting_at_once_migrate_exactly_once(pg_pool: Any, pg_schema: str) -> None:
    applied = await asyncio.gather(*(migrate(pg_pool, pg_schema, MIGRATIONS) for _ in range(6)))

    assert sorted(len(a) for a in applied) == [0, 0, 0, 0, 0, len(MIGRATIONS)]
    assert await pg_pool.fetchval(f"SELECT count(*) FROM {pg_schema}.events") == 0


async def test_a_migration_changed_after_it_ran_stops_the_start(
    pg_pool: Any, pg_schema: str
) -> None:
    await migrate(pg_pool, pg_schema, MIGRATIONS)
    edited = Migration("eventstore", 1, MIGRATIONS[0].name, MIGRATIONS[0].sql + "\n-- edited")

    with pytest.raises(MigrationError, match="changed after it ran"):
        await migrate(pg_pool, pg_schema, [edited])


async def test_later_migrations_run_in_order_after_earlier_ones(
    pg_pool: Any, pg_schema: str
) -> None:
    await migrate(pg_pool, pg_schema, MIGRATIONS)
    later = [*MIGRATIONS, Migration("match", 1, "views", "CREATE TABLE views (id int)")]

    assert await migrate(pg_pool, pg_schema, later) == later[len(MIGRATIONS) :]
    views = f"{pg_schema}.views"
    assert await pg_pool.fetchval("SELECT to_regclass($1)::text", views) == views


async def test_badly_numbered_migrations_are_refused_before_touching_the_database() -> None:
    gap = [Migration("eventstore", 2, "two", "SELECT 1")]
    with pytest.raises(MigrationError, match="expected version 1"):
        await migrate(None, "svc", gap)


def test_schema_names_must_need_no_quoting() -> None:
    assert quote_schema("match") == '"match"'
    for bad in ("Match", "match; DROP TABLE x", "", "1match", 'a"b'):
        with pytest.raises(ValueError, match="schema name"):
            quote_schema(bad)


async def test_each_schema_keeps_its_own_events(pg_pool: Any, pg_schema: str) -> None:
    match_schema, collection_schema = f"{pg_schema}_match", f"{pg_schema}_collection"
    for schema in (match_schema, collection_schema):
        await migrate(pg_pool, schema, MIGRATIONS)
    match = PostgresEventStore(pg_pool, match_schema)
    collection = PostgresEventStore(pg_pool, collection_schema)

    await match.append("s-1", 0, [event()])

    assert len(await match.read_stream("s-1")) == 1
    assert await collection.read_stream("s-1") == []
    assert await collection.read_all() == []


async def test_append_in_commits_and_rolls_back_with_the_callers_transaction(
    pg_pool: Any, pg_schema: str, pg_store: PostgresEventStore
) -> None:
    async with pg_pool.acquire() as conn:
        with pytest.raises(RuntimeError):
            async with conn.transaction():
                await pg_store.append_in(conn, "match-1", 0, [event()])
                raise RuntimeError("the outbox write failed")
        assert await pg_store.read_stream("match-1") == []

        async with conn.transaction():
            appended = await pg_store.append_in(conn, "match-1", 0, [event()])
            await conn.execute(f"CREATE TABLE {pg_schema}.outbox_stand_in (n int)")
        assert await pg_store.read_stream("match-1") == appended


async def test_a_transaction_older_than_the_streams_last_event_cannot_extend_it(
    pg_pool: Any, pg_store: PostgresEventStore
) -> None:
    """Else the stream's events would appear out of version order in read_all."""
    async with pg_pool.acquire() as old, pg_pool.acquire() as young:
        old_tx = old.transaction()
        await old_tx.start()
        await old.execute("SELECT pg_current_xact_id()")  # takes its id now, writes later
        async with young.transaction():
            await pg_store.append_in(young, "match-1", 0, [event()])

        with pytest.raises(WrongExpectedVersion, match="older than"):
            await pg_store.append_in(old, "match-1", 1, [event()])
        await old_tx.rollback()

        async with old.transaction():  # the retry, with a new transaction id
            await pg_store.append_in(old, "match-1", 1, [event()])

    streams = [(r.stream_id, r.version) for r in await pg_store.read_all()]
    assert streams == [("match-1", 1), ("match-1", 2)]


async def test_read_all_orders_transaction_ids_as_numbers_not_as_text(
    pg_pool: Any, pg_store: PostgresEventStore
) -> None:
    """Transaction ids cross the wire as text; "1000" must still come after "999"."""
    current = int(await pg_pool.fetchval("SELECT pg_current_xact_id()::text"))
    boundary = 10 ** len(str(current + 2))
    burn = boundary - current - 2  # leaves the next transaction id at boundary - 1
    if burn > 50_000:
        pytest.skip(f"transaction id {current} is too far below {boundary} to get there quickly")
    # Each iteration commits, so each takes a transaction id of its own.
    await pg_pool.execute(
        f"DO $$ BEGIN FOR i IN 1..{burn} LOOP PERFORM pg_current_xact_id(); COMMIT; "
        "END LOOP; END $$"
    )
    (before,) = await pg_store.append("match-1", 0, [event()])
    (after,) = await pg_store.append("match-2", 0, [event()])
    assert len(str(before.position.tx_id)) < len(str(after.position.tx_id)), "boundary missed"

    assert [r.event_id for r in await pg_store.read_all()] == [before.event_id, after.event_id]
    assert [r.event_id for r in await pg_store.read_all(before.position)] == [after.event_id]


async def test_an_append_is_announced_on_its_schema_channel_alone(
    pg_pool: Any, pg_schema: str, shared_database_url: str
) -> None:
    """Each schema's relay listens on its own channel: a placement's commit in the match
    log wakes no other service's relay. A name too long for a channel is cut as the
    trigger cuts it."""
    own, other = f"{pg_schema}_match", f"{pg_schema}_collection"
    long = (pg_schema + "_" + "x" * 63)[:63]
    assert len(appended_channel(long)) == 63
    for schema in (own, other, long):
        await migrate(pg_pool, schema, MIGRATIONS)
    heard: dict[str, list[str]] = {own: [], other: [], long: []}
    listener = await asyncpg.connect(shared_database_url)
    try:
        for schema, payloads in heard.items():
            await listener.add_listener(
                appended_channel(schema),
                lambda _c, _p, _ch, payload, into=payloads: into.append(payload),
            )
        await PostgresEventStore(pg_pool, own).append("match-1", 0, [event()])
        await PostgresEventStore(pg_pool, long).append("match-1", 0, [event()])
        for _ in range(50):  # notices arrive after the commit, on the listener's socket
            if heard[own] and heard[long]:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.1)
        assert heard == {own: [own], other: [], long: [long]}
    finally:
        await listener.close()
