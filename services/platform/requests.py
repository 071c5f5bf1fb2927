"""Idempotent request keys: the one way a service answers a retried request.

A command carries a client-chosen ``request_id``. The service keeps, per *scope* (who
asked and what kind of call: ``"place:<match>"``, ``"register:ann"``), the id with a
fingerprint of the request's content and what its first run produced. A retry with the
same id and the same content gets that first result again and changes nothing; the same
id with other content is refused (``RequestReused``, INVALID_ARGUMENT); two runs racing
on one id both try to record it and the loser answers from the winner's result
(``RequestSeen``).

Use::

    from services.platform.requests import Request, RequestSeen, answered, remember, request_id

    key = Request.of("enqueue", request_id(request.request_id), player_id, mode)  # edge
    first = await answered(pool, "mm.requests", key, "ref_id")      # a retry?
    if first is not None:
        return first["ref_id"]
    async with pool.acquire() as conn, conn.transaction():
        ...                                                          # the effect
        await remember(conn, "mm.requests", key, ref_id=ticket_id)   # RequestSeen if raced

Each service's ``requests`` table has ``scope``, ``request_id`` and ``fingerprint``
columns (primary key ``(scope, request_id)``) and the columns of its own first result.
A service that records the key inside a stored procedure (the match service's batch
save) uses ``Request`` and ``answered`` alone, and raises ``RequestSeen`` itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.platform.errors import InvalidArgument

SCOPE_COLUMNS = ("scope", "request_id", "fingerprint")
"""The columns every ``requests`` table has."""

MAX_REQUEST_ID = 200
"""The longest request id a service accepts (the public API allows 64: the gateway)."""


class RequestReused(InvalidArgument):
    """A request id came back with different content."""


class RequestSeen(Exception):
    """The request id was recorded by a concurrent or earlier run: answer from its
    first result."""


def request_id(value: str, longest: int = MAX_REQUEST_ID) -> str:
    """``value`` if it is a request id of 1 to ``longest`` characters, else InvalidArgument."""
    if not value:
        raise InvalidArgument(f"request_id is required: 1 to {longest} characters")
    if len(value) > longest:
        # found from outside: a long id was told it was "required"
        raise InvalidArgument(f"request_id is too long: {len(value)} characters, at most {longest}")
    return value


def fingerprint(*content: object) -> str:
    """A digest of a request's content: equal content, equal fingerprint. Pass what the
    request decides with (ids, values, or ``message.SerializeToString(deterministic=True)``)."""
    return hashlib.sha256(repr(content).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Request:
    """An idempotent request: who (scope), its id, and a fingerprint of its content."""

    scope: str
    request_id: str
    fingerprint: str

    @staticmethod
    def of(scope: str, request_id: str, *content: object) -> Request:
        return Request(scope, request_id, fingerprint(*content))

    def check(self, recorded: str) -> None:
        """Refuse this request if its id was recorded with another fingerprint."""
        if recorded != self.fingerprint:
            raise self.reused()

    def reused(self) -> RequestReused:
        """The refusal of this request id, recorded for a different request."""
        return RequestReused(
            f"request id {self.request_id!r} was already used for a different request; "
            "use a new request id for a new action"
        )


async def answered(
    db: Any, table: str, request: Request, *columns: str
) -> Mapping[str, Any] | None:
    """The first result of ``request`` if its id was recorded (the row's ``columns``),
    None if it is new; ``RequestReused`` if the id came with other content.

    ``db`` is a pool or a connection (asyncpg), ``table`` the schema-qualified table."""
    wanted = ", ".join(("fingerprint", *columns))
    row = await db.fetchrow(
        f"SELECT {wanted} FROM {table} WHERE scope = $1 AND request_id = $2",
        request.scope,
        request.request_id,
    )
    if row is None:
        return None
    request.check(row["fingerprint"])
    return dict(row)


async def forget(db: Any, table: str, request: Request) -> None:
    """Drop ``request``'s key, recorded with this very content: a run that failed as a
    malformed request leaves its id free, as a request refused before anything was
    recorded does."""
    await db.execute(
        f"DELETE FROM {table} WHERE scope = $1 AND request_id = $2 AND fingerprint = $3",
        request.scope,
        request.request_id,
        request.fingerprint,
    )


async def remember(conn: Any, table: str, request: Request, **result: object) -> None:
    """Record ``request`` with its first ``result`` (column=value), in the caller's
    transaction so that it commits with the effect. ``RequestSeen`` if another run
    recorded the same id first: roll back and answer from its result."""
    columns = (*SCOPE_COLUMNS, *result)
    places = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
    fresh = await conn.fetchval(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({places}) "
        "ON CONFLICT DO NOTHING RETURNING true",
        request.scope,
        request.request_id,
        request.fingerprint,
        *result.values(),
    )
    if not fresh:
        raise RequestSeen(request.request_id)
