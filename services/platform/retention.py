"""Pruning the bookkeeping that serves only for a while, so that no table but the event
logs grows for ever.

Found from outside (a soak run of 24 minutes): request keys, finished match starts,
tickets, tables, deck resolutions, consumers' processed marks, used refresh tokens and
expired revocations were never deleted: about 6.5 GB a week at that load, besides the
event logs, which are kept by design (DESIGN.md: the log is the truth).

Each service names its transient rows once (``Transient``: a table, the time after
which a row may go, which rows) and runs ``pruning`` in the background. What may go:

- a **request key** after ``TRIAD_RETENTION_DAYS`` (7 by default): a request retried
  later than that is a new request;
- finished **starts, tickets, tables, deck resolutions** after the same days: they
  answer retries and show a player their last ticket or table, nothing more;
- a consumer's **processed mark** once its event can no longer be delivered again: a
  day after the event stream's own retention (``TRIAD_NATS_STREAM_MAX_AGE_SECONDS``),
  never when the stream keeps events for ever;
- an **expired token's** row (a refresh token, a revoked access token) at its expiry.

Each round deletes at most ``BATCH`` rows of a table (the oldest first, through an index
on the time), so a backlog goes a batch at a time without holding locks long.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import structlog

log = structlog.get_logger()

BATCH = 1_000
"""The most rows one round deletes from one table."""
PAUSE_SECONDS = 600.0
"""How long the pruning rests when a round found nothing more to delete."""
PROCESSED_MARGIN = timedelta(days=1)
"""How much longer than the event stream a consumer's processed mark is kept."""

_NAME = re.compile(r'("?[a-z_][a-z0-9_]*"?\.)?[a-z_][a-z0-9_]*')


@dataclass(frozen=True, slots=True)
class Transient:
    """Rows of ``table`` (schema-qualified) that may go once ``column`` (a timestamptz)
    is older than ``kept`` (None: the service's retention); ``where`` narrows them
    (SQL, e.g. ``"state <> 'pending'"``)."""

    table: str
    column: str
    kept: timedelta | None = None
    where: str = ""

    def __post_init__(self) -> None:
        for name in (self.table, self.column):
            if not _NAME.fullmatch(name):
                raise ValueError(f"not a plain SQL name: {name!r}")


def processed_marks(table: str, stream_max_age: float) -> list[Transient]:
    """A consumer's processed marks (``services.platform.consumer``), kept a day past
    the event stream's retention; none pruned when the stream keeps events for ever (0)."""
    if stream_max_age <= 0:
        return []
    kept = timedelta(seconds=stream_max_age) + PROCESSED_MARGIN
    return [Transient(table, "processed_at", kept)]


async def prune(pool: Any, rows: Transient, before: datetime, batch: int = BATCH) -> int:
    """Delete at most ``batch`` of the rows older than ``before``, the oldest first; how
    many went."""
    narrowed = f" AND ({rows.where})" if rows.where else ""
    status = await pool.execute(
        f"DELETE FROM {rows.table} WHERE ctid = ANY(ARRAY("
        f"SELECT ctid FROM {rows.table} WHERE {rows.column} < $1{narrowed} "
        f"ORDER BY {rows.column} LIMIT {int(batch)}))",
        before,
    )
    return int(str(status).rsplit(" ", 1)[-1])


def pruning(
    pool: Any,
    tables: Sequence[Transient],
    retention: timedelta,
    clock: Callable[[], datetime],
    batch: int = BATCH,
) -> Callable[[], Awaitable[bool]]:
    """The background step (``Background.every(PAUSE_SECONDS, ...)``): one round over
    ``tables``; True while a table had a full batch to delete (the loop goes on at
    once), False when every table is pruned (it rests)."""

    async def step() -> bool:
        now, more = clock(), False
        for rows in tables:
            kept = retention if rows.kept is None else rows.kept
            gone = await prune(pool, rows, now - kept, batch)
            if gone:
                log.info("retention.pruned", table=rows.table, rows=gone)
            more = more or gone >= batch
        return more

    return step
