"""Versioned schema migrations, applied when a service starts.

Each service owns one PostgreSQL schema and never touches another's. Several parts
contribute tables to it (the event store, later the outbox and the deadlines, then the
service's own), so a migration is named by ``(component, version)``: versions count
1, 2, 3... within a component, and the components are applied in the order given.

``migrate`` is idempotent and safe when several replicas start at once: everything
happens in one transaction that first takes an advisory lock derived from the schema
name, so the second replica waits, then finds every migration already recorded. DDL
is transactional in PostgreSQL, so a failing migration leaves nothing half-done.

A migration is immutable once released: its checksum is recorded, and a changed
migration stops the start with an error instead of silently diverging. Migrations the
code does not know (a newer release already ran them) are left alone, so an older
replica can still start during a rolling upgrade.

Migration SQL is written without a schema: it runs with ``search_path`` set to the
service's schema, so the same migration serves every service and every test schema.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg

_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


class MigrationError(RuntimeError):
    """The migrations in code and in the database disagree, or are badly numbered."""


@dataclass(frozen=True, slots=True)
class Migration:
    component: str
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def quote_schema(schema: str) -> str:
    """The schema as a quoted identifier, after checking it is a plain lower-case name.

    Schema names end up inside SQL text (identifiers cannot be bound parameters), so
    only names that need no escaping are accepted.
    """
    if not _SCHEMA_NAME.fullmatch(schema):
        raise ValueError(f"schema name must match {_SCHEMA_NAME.pattern}, got {schema!r}")
    return f'"{schema}"'


async def migrate(target: Any, schema: str, migrations: Sequence[Migration]) -> list[Migration]:
    """Bring ``schema`` up to date; return the migrations applied by this call.

    ``target`` is an asyncpg pool or connection.
    """
    _check_numbering(migrations)
    quoted = quote_schema(schema)
    async with _connection(target) as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _lock_key(schema))
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
        await conn.execute(
            f"""CREATE TABLE IF NOT EXISTS {quoted}.schema_migrations (
                component  text        NOT NULL,
                version    integer     NOT NULL,
                name       text        NOT NULL,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (component, version)
            )"""
        )
        rows = await conn.fetch(
            f"SELECT component, version, checksum FROM {quoted}.schema_migrations"
        )
        applied = {(r["component"], r["version"]): r["checksum"] for r in rows}
        pending = []
        for migration in migrations:
            recorded = applied.get((migration.component, migration.version))
            if recorded is None:
                pending.append(migration)
            elif recorded != migration.checksum:
                raise MigrationError(
                    f"migration {migration.component} {migration.version} ({migration.name}) "
                    f"was changed after it ran in schema {schema}; add a new migration instead"
                )
        await conn.execute(f"SET LOCAL search_path TO {quoted}")
        for migration in pending:
            await conn.execute(migration.sql)
            await conn.execute(
                f"INSERT INTO {quoted}.schema_migrations (component, version, name, checksum) "
                "VALUES ($1, $2, $3, $4)",
                migration.component,
                migration.version,
                migration.name,
                migration.checksum,
            )
    return pending


def _check_numbering(migrations: Sequence[Migration]) -> None:
    last: dict[str, int] = {}
    for migration in migrations:
        expected = last.get(migration.component, 0) + 1
        if migration.version != expected:
            raise MigrationError(
                f"{migration.component} migrations must be numbered 1, 2, 3... in order; "
                f"expected version {expected}, found {migration.version} ({migration.name})"
            )
        last[migration.component] = migration.version


def _lock_key(schema: str) -> int:
    """A stable 64-bit advisory-lock key per schema (Python's hash() is salted per run)."""
    digest = hashlib.sha256(f"triad.migrate:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@asynccontextmanager
async def _connection(target: Any) -> AsyncIterator[Any]:
    if isinstance(target, asyncpg.Pool):
        async with target.acquire() as conn:
            yield conn
    else:
        yield target
