"""What the matchmaker's repositories share: idempotency keys, engaged players, the
event log and notifications, in the schema described in ``schema.py``.

Times come from the caller (the handlers' clock), never from ``now()``, so tests can
move time by hand and every replica judges a lease or an expiry by the same rule.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from google.protobuf.message import Message

from services.matchmaker import codec
from services.matchmaker.domain import DeckChoice, StartPlan
from services.matchmaker.store import plans
from services.platform.errors import InvalidArgument
from services.platform.eventstore import NewEvent, PostgresEventStore
from services.platform.migrations import quote_schema

NOTIFY_CHANNEL = "triad_matchmaker"


class RequestReused(InvalidArgument):
    """A request id came back with different content."""


class RequestSeen(Exception):
    """The request id was recorded by a concurrent run: answer from its first result."""


class Engaged(Exception):
    """The player is already held by the matchmaker (a ticket, a table...)."""

    def __init__(self, kind: str, ref_id: str) -> None:
        super().__init__(f"player engaged: {kind} {ref_id}")
        self.kind = kind
        self.ref_id = ref_id


@dataclass(frozen=True, slots=True)
class Request:
    """An idempotent request: who (scope), its id, and a fingerprint of its content."""

    scope: str
    request_id: str
    fingerprint: str

    @staticmethod
    def of(scope: str, request_id: str, *content: object) -> Request:
        return Request(scope, request_id, hashlib.sha256(repr(content).encode()).hexdigest())


@dataclass(frozen=True, slots=True)
class StartRecord:
    plan: StartPlan
    state: str  # pending, started, failed
    token: UUID
    error: str = ""


def event_id(stream_id: str, version: int) -> UUID:
    """Deterministic: a retried append of the same version carries the same id."""
    return uuid5(NAMESPACE_URL, f"triad:matchmaker:{stream_id}:{version}")


def encode_deck(deck: DeckChoice | None) -> str:
    if deck is None:
        return ""
    return "random" if deck.random else f"deck:{deck.deck_id}"


def decode_deck(text: str) -> DeckChoice | None:
    if not text:
        return None
    return DeckChoice(random=True) if text == "random" else DeckChoice(deck_id=text[5:])


class Base:
    """What the ticket and lobby repositories share: the pool, the schema, the event
    log, idempotency keys, engaged players and notifications."""

    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        self._schema = schema
        self._s = quote_schema(schema)
        self._events = PostgresEventStore(pool, schema)

    @property
    def pool(self) -> Any:
        return self._pool

    @property
    def schema(self) -> str:
        return self._schema

    @property
    def schema_sql(self) -> str:
        """The schema as a quoted identifier, for SQL text."""
        return self._s

    async def answered(self, request: Request) -> str | None:
        """The first result (a ticket, table or start id) of a request seen before."""
        row = await self._pool.fetchrow(
            f"SELECT fingerprint, ref_id FROM {self._s}.requests "
            "WHERE scope = $1 AND request_id = $2",
            request.scope,
            request.request_id,
        )
        if row is None:
            return None
        if row["fingerprint"] != request.fingerprint:
            raise RequestReused(
                f"request id {request.request_id!r} was already used for a different request; "
                "use a new request id for a new action"
            )
        return str(row["ref_id"])

    async def _remember(self, conn: Any, request: Request | None, ref_id: str) -> None:
        if request is None:
            return
        fresh = await conn.fetchval(
            f"INSERT INTO {self._s}.requests (scope, request_id, fingerprint, ref_id) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING true",
            request.scope,
            request.request_id,
            request.fingerprint,
            ref_id,
        )
        if not fresh:
            raise RequestSeen(request.request_id)

    async def _engage(self, conn: Any, player_id: str, kind: str, ref_id: str) -> None:
        fresh = await conn.fetchval(
            f"INSERT INTO {self._s}.engaged_players (player_id, kind, ref_id) "
            "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING true",
            player_id,
            kind,
            ref_id,
        )
        if not fresh:
            row = await conn.fetchrow(
                f"SELECT kind, ref_id FROM {self._s}.engaged_players WHERE player_id = $1",
                player_id,
            )
            raise Engaged(row["kind"], row["ref_id"]) if row else Engaged("unknown", "")

    async def engagement(self, player_id: str) -> tuple[str, str] | None:
        row = await self._pool.fetchrow(
            f"SELECT kind, ref_id FROM {self._s}.engaged_players WHERE player_id = $1", player_id
        )
        return None if row is None else (row["kind"], row["ref_id"])

    async def _disengage(self, conn: Any, player_ids: Collection[str], ref_id: str) -> None:
        await conn.execute(
            f"DELETE FROM {self._s}.engaged_players WHERE player_id = ANY($1) AND ref_id = $2",
            list(player_ids),
            ref_id,
        )

    async def _append(
        self, conn: Any, stream_id: str, expected: int, message: Message, correlation: str = ""
    ) -> None:
        encoded = codec.encode(message)
        event = NewEvent(
            type=encoded.type,
            data=encoded.data,
            schema_version=encoded.schema_version,
            metadata={"correlation_id": correlation} if correlation else {},
            event_id=event_id(stream_id, expected + 1),
        )
        await self._events.append_in(conn, stream_id, expected, [event])

    async def _notify(self, conn: Any, player_ids: Collection[str]) -> None:
        """Wake the queue watchers of these players, on every replica, at commit."""
        await conn.execute(
            "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p",
            NOTIFY_CHANNEL,
            sorted(set(player_ids)),
        )

    async def insert_start(
        self, conn: Any, plan: StartPlan, lease_until: datetime, token: UUID
    ) -> None:
        await conn.execute(
            f"INSERT INTO {self._s}.match_starts (start_id, kind, plan, state, lease_token, "
            "lease_until) VALUES ($1, $2, $3::jsonb, 'pending', $4, $5)",
            plan.start_id,
            plan.kind.value,
            plans.plan_json(plan),
            token,
            lease_until,
        )
