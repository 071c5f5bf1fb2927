"""The collection repository (``Repository``) over PostgreSQL: streams over the platform
event store, the tables that follow them (``projection.py``), idempotent request keys,
and the transactions around them.

- ``Store.run``: one command, one transaction. The request key is recorded first
  (``services.platform.requests``), so a retried or concurrent duplicate waits for the
  first run and then answers with its result, read back as the same type; the player
  rows the command touches are locked (``FOR UPDATE``, in id order, so two commands
  never deadlock), events are appended with the expected version of their stream and
  projected on the same connection. A conflict rolls everything back and the command
  runs again on fresh state.
- ``unit.py``: what a command does inside its transaction (``PostgresUnit``).
- ``memory.py``: the same port in memory (``MemoryStore``), for handler tests, held to
  the same contract (``tests/test_store_contract.py``).
- ``reads.py``: the queries of the read side, as typed read models.
- ``projection.py``: the tables kept in step with the log.

Streams: ``player-<id>``, ``trade-<id>``, ``draft-<id>``, ``listing-<id>``. Event ids are
derived from the stream and version (``uuid5``), so a retried append carries the same ids.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import fields, is_dataclass
from datetime import datetime
from typing import Any, TypeVar, get_type_hints

import asyncpg
import structlog

from services.collection.domain.catalog import Catalog
from services.collection.schema import Tables
from services.collection.store.errors import InsufficientBalance
from services.collection.store.memory import MemoryStore, MemoryUnit
from services.collection.store.reads import Reads
from services.collection.store.reads_auction import AuctionReads
from services.collection.store.unit import (
    PostgresUnit,
    draft_stream,
    event_id,
    listing_stream,
    player_stream,
    trade_stream,
)
from services.platform.errors import Conflict
from services.platform.eventstore import PostgresEventStore, WrongExpectedVersion
from services.platform.requests import Request, RequestSeen, answered, remember

__all__ = [
    "InsufficientBalance",
    "MemoryStore",
    "Repository",
    "Request",
    "Store",
    "Unit",
    "draft_stream",
    "event_id",
    "listing_stream",
    "player_stream",
    "trade_stream",
]

log = structlog.get_logger()

T = TypeVar("T")


Unit = PostgresUnit | MemoryUnit
"""One command's transaction, in either adapter."""


def dump(result: Any) -> str:
    """A command's result as recorded with its request id (a frozen dataclass)."""
    return json.dumps({f.name: getattr(result, f.name) for f in fields(result)}, default=str)


def load(kind: type[T], text: str) -> T:
    """A recorded result read back as ``kind``: moments and tuples as they were."""
    data = json.loads(text)
    hints = get_type_hints(kind)
    values: dict[str, Any] = {}
    for name, recorded in data.items():
        hint = str(hints.get(name, ""))
        if isinstance(recorded, str) and "datetime" in hint:
            values[name] = datetime.fromisoformat(recorded)
        elif isinstance(recorded, list):
            values[name] = tuple(recorded)
        else:
            values[name] = recorded
    return kind(**values)


class Store(Reads, AuctionReads):
    def __init__(self, pool: Any, schema: str, catalog: Catalog) -> None:
        self.pool = pool
        self.schema = schema
        self.catalog = catalog
        self.tables = Tables(schema)
        self.events = PostgresEventStore(pool, schema)

    async def run(
        self,
        work: Callable[[PostgresUnit], Awaitable[T]],
        request: Request | None = None,
        attempts: int = 8,
    ) -> T:
        """Run ``work`` in a transaction of its own until it commits; with ``request``,
        once per request id (a repeat returns the first result without running). A
        result recorded with a request is a frozen dataclass of plain fields."""
        for _ in range(attempts):
            try:
                async with self.pool.acquire() as conn, conn.transaction():
                    if request is None:
                        return await work(PostgresUnit(conn, self))
                    try:
                        await remember(conn, self.tables.requests, request)
                    except RequestSeen:
                        return await self._first(conn, request, work)
                    result = await work(PostgresUnit(conn, self))
                    assert is_dataclass(result), "a recorded result is a dataclass"
                    await conn.execute(
                        f"UPDATE {self.tables.requests} SET result = $3::jsonb "
                        "WHERE scope = $1 AND request_id = $2",
                        request.scope,
                        request.request_id,
                        dump(result),
                    )
                    return result
            except (
                WrongExpectedVersion,
                asyncpg.DeadlockDetectedError,
                asyncpg.SerializationError,
            ) as error:
                log.info("collection command retried", error=str(error))
            except asyncpg.CheckViolationError as error:
                if error.constraint_name == "balance_never_negative":
                    raise InsufficientBalance(
                        "balance too low: a concurrent spend came first (a balance never "
                        "goes negative)"
                    ) from None
                raise
        raise Conflict("the collection is changing too fast; try again")

    async def _first(
        self, conn: Any, request: Request, work: Callable[[PostgresUnit], Awaitable[T]]
    ) -> T:
        """The first run's result of a request id seen before (it committed: the insert
        that found it waited for that), read back as the type ``work`` returns."""
        row = await answered(conn, self.tables.requests, request, "result")
        assert row is not None and row["result"] is not None
        kind = get_type_hints(work)["return"]
        try:
            found: T = load(kind, row["result"])
        except TypeError:
            # The id answered another kind of call whose content fingerprints alike (a
            # CreateListing's copy and price, a ChooseTradeCard's trade and copy): its
            # result does not fit this one (found from outside: UNAVAILABLE, "retry").
            raise request.reused() from None
        return found

    async def read(self, work: Callable[[PostgresUnit], Awaitable[T]]) -> T:
        """Run ``work`` on a connection of its own, outside any transaction (a query)."""
        async with self.pool.acquire() as conn:
            return await work(PostgresUnit(conn, self))

    async def run_in(self, conn: Any, work: Callable[[PostgresUnit], Awaitable[T]]) -> T:
        """Run ``work`` in the caller's open transaction (an idempotent consumer's)."""
        return await work(PostgresUnit(conn, self))


Repository = Store | MemoryStore
"""The collection repository port: PostgreSQL in production, memory in handler tests."""
