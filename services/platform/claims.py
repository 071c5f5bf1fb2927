"""Claiming due work: timers, deadlines, expiries and leases, safely from every replica.

Work that falls due (a turn timer, a Trade One choice, a draft pick, a table's expiry,
a match start whose lease ran out) is a row with a due time. Any replica may take it;
``FOR UPDATE SKIP LOCKED`` hands each row to one of them, the most overdue first, and
the row stays locked until the claiming transaction ends, so a command on the same
thing arriving meanwhile waits and then sees the result.

Describe the work once, then pick the way that fits::

    from services.platform.claims import DueWork, claim_one, claimed, take_due

    TIMERS = DueWork(table=f"{schema}.match_timers", key="match_id", due="due_at")

    # 1. in a transaction you already hold: the key of the most overdue row, or None
    match_id = await claim_one(conn, TIMERS, now)

    # 2. a transaction of its own, held while you act on the claim
    async with claimed(pool, TIMERS, now) as claim:
        if claim.key is None:
            return False
        ...  # work on claim.key with claim.conn; commit at the end of the block

    # 3. claim and change the rows in one statement (expiries, lease take-overs)
    rows = await take_due(pool, TABLES, now, change="state = 'expired'", returning="*",
                          limit=100)

Drive it from a background loop whose step returns whether it claimed something
(``services.platform.background.every``): the loop pauses only when nothing was due.
Times come from the caller's clock, never from ``now()``, so tests move time by hand.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

_NAME = re.compile(r'("?[a-z_][a-z0-9_]*"?\.)?[a-z_][a-z0-9_]*')
"""A column, or a table with its (quoted or plain) schema: names go into SQL text."""


@dataclass(frozen=True, slots=True)
class DueWork:
    """Rows of ``table`` whose ``due`` column is at or before now, keyed by ``key``;
    ``where`` narrows them (SQL, e.g. ``"state = 'pending'"``)."""

    table: str
    key: str
    due: str = "due_at"
    where: str = ""

    def __post_init__(self) -> None:
        for name in (self.table, self.key, self.due):
            if not _NAME.fullmatch(name):
                raise ValueError(f"not a plain SQL name: {name!r}")

    def oldest(self, limit: int = 1) -> str:
        """The query locking the ``limit`` most overdue rows' keys; ``$1`` is now."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        where = f" AND ({self.where})" if self.where else ""
        return (
            f"SELECT {self.key} FROM {self.table} WHERE {self.due} <= $1{where} "
            f"ORDER BY {self.due} LIMIT {int(limit)} FOR UPDATE SKIP LOCKED"
        )

    def earliest(self) -> str:
        """The query of the earliest due time (NULL when no row waits)."""
        where = f" WHERE {self.where}" if self.where else ""
        return f"SELECT min({self.due}) FROM {self.table}{where}"


async def next_due(db: Any, work: DueWork) -> datetime | None:
    """When the earliest row falls due, whether or not another replica holds it (for a
    loop's sleep: ``services.platform.background.every``'s ``next_due``)."""
    value = await db.fetchval(work.earliest())
    return value if isinstance(value, datetime) else None


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim held for the length of a transaction on ``conn``: the key of the due row,
    or None if nothing was due."""

    conn: Any
    key: str | None


async def claim_one(conn: Any, work: DueWork, now: datetime) -> str | None:
    """The most overdue row's key, locked for the caller's transaction; None if none
    is due (or every due one is held by another replica)."""
    value = await conn.fetchval(work.oldest(), now)
    return None if value is None else str(value)


@asynccontextmanager
async def claimed(pool: Any, work: DueWork, now: datetime) -> AsyncIterator[Claim]:
    """A transaction of its own holding the most overdue row (``Claim.key``) until the
    block ends: committed if it ends normally, rolled back if it raises."""
    async with pool.acquire() as conn, conn.transaction():
        yield Claim(conn, await claim_one(conn, work, now))


async def take_due(
    db: Any,
    work: DueWork,
    now: datetime,
    *,
    change: str,
    returning: str,
    args: Sequence[object] = (),
    limit: int = 1,
) -> list[Any]:
    """Claim up to ``limit`` due rows and ``change`` them (a SET clause) in one
    statement; the changed rows (``returning``), in no particular order.
    ``args`` are ``$2``, ``$3``... of ``change`` (``$1`` is now). Run it in the
    transaction of any other writes that must commit with it."""
    rows = await db.fetch(
        f"UPDATE {work.table} SET {change} WHERE {work.key} IN ({work.oldest(limit)}) "
        f"RETURNING {returning}",
        now,
        *args,
    )
    return list(rows)
