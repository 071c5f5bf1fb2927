"""What the matchmaker's repositories share: idempotency keys, engaged players, the
event log and notifications, in the schema described in ``schema.py``.

Times come from the caller (the handlers' clock), never from ``now()``, so tests can
move time by hand and every replica judges a lease or an expiry by the same rule.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, NamedTuple
from uuid import NAMESPACE_URL, UUID, uuid5

from google.protobuf.message import Message

from services.matchmaker import codec
from services.matchmaker.domain import Card, DeckChoice, StartKind, StartPlan, TableFilter
from services.matchmaker.store import plans
from services.platform import requests
from services.platform.eventstore import NewEvent, PostgresEventStore
from services.platform.migrations import quote_schema
from services.platform.requests import Request, RequestReused, RequestSeen

__all__ = [
    "NOTIFY_CHANNEL",
    "Base",
    "Engaged",
    "Engagement",
    "Hold",
    "LoggedEvent",
    "Request",
    "RequestReused",
    "RequestSeen",
    "StartRecord",
    "StartState",
    "TableQuery",
]

NOTIFY_CHANNEL = "triad_matchmaker"


class Hold(StrEnum):
    """What holds a player in the matchmaker (``engaged_players.kind``)."""

    TICKET = "ticket"
    """A queued (or claimed) ticket; ``ref_id`` is the ticket."""
    TABLE = "table"
    """An open table they host; ``ref_id`` is the table."""
    JOINING = "joining"
    """A table whose match they are starting as its guest; ``ref_id`` is the table."""
    PRACTICE = "practice"
    """A practice match being started; ``ref_id`` is the start."""


@dataclass(frozen=True, slots=True)
class Engagement:
    kind: Hold
    ref_id: str


class Engaged(Exception):
    """The player is already held by the matchmaker (a ticket, a table...); ``held`` is
    None if the hold ended between the refusal and reading it."""

    def __init__(self, held: Engagement | None) -> None:
        super().__init__(f"player engaged: {held}")
        self.held = held


class StartState(StrEnum):
    PENDING = "pending"
    """Recorded with a lease; its match (or draft) is being created."""
    STARTED = "started"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class StartRecord:
    """A match start as stored: its plan, how far it got, and the lease token of the
    replica that may record its outcome."""

    plan: StartPlan
    state: StartState
    token: UUID
    error: str = ""


@dataclass(frozen=True, slots=True)
class TableQuery:
    """What a lobby list asks for: the open tables ``viewer_id`` may join (a public
    table, or a challenge to them by id, or by ``viewer_name`` when it names no id)
    that pass ``filters`` at ``now``, newest first: at most ``limit`` of them after the
    keyset position ``after`` (created_at, table_id), from the first when None."""

    viewer_id: str
    viewer_name: str
    filters: TableFilter
    now: datetime
    limit: int
    after: tuple[datetime, str] | None


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """An event the matchmaker appended, as stored (``codec.decode`` reads it)."""

    stream_id: str
    version: int
    type: str
    schema_version: int
    data: bytes


def event_id(stream_id: str, version: int) -> UUID:
    """Deterministic: a retried append of the same version carries the same id."""
    return uuid5(NAMESPACE_URL, f"triad:matchmaker:{stream_id}:{version}")


def new_event(stream_id: str, expected: int, message: Message, correlation: str = "") -> NewEvent:
    """``message`` as the event both adapters append after version ``expected`` of
    ``stream_id``, tagged with the request that caused it (``correlation``), if any."""
    encoded = codec.encode(message)
    return NewEvent(
        type=encoded.type,
        data=encoded.data,
        schema_version=encoded.schema_version,
        metadata={"correlation_id": correlation} if correlation else {},
        event_id=event_id(stream_id, expected + 1),
    )


class Appended(NamedTuple):
    """An event to append: its stream, the version it follows, its payload."""

    stream_id: str
    expected: int
    message: Message


def started_event(plan: StartPlan, bot_cards: Sequence[Card]) -> Appended | None:
    """The event both adapters append once a start's match (or draft) exists; None for
    a draft's match, which appends none."""
    if plan.kind is StartKind.PAIRING:
        return Appended(f"pairing-{plan.start_id}", 0, codec.tickets_paired(plan, bot_cards))
    if plan.kind in (StartKind.PRACTICE, StartKind.SWITCH):
        message = codec.practice_started(plan, bot_cards, plan.humans[0].ticket_id)
        return Appended(f"practice-{plan.start_id}", 0, message)
    if plan.kind is StartKind.TABLE:
        return Appended(f"table-{plan.table_id}", 1, codec.table_joined(plan))
    return None


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
        row = await requests.answered(self._pool, f"{self._s}.requests", request, "ref_id")
        return None if row is None else str(row["ref_id"])

    async def forget(self, request: Request) -> None:
        await requests.forget(self._pool, f"{self._s}.requests", request)

    async def _remember(self, conn: Any, request: Request | None, ref_id: str) -> None:
        if request is not None:
            await requests.remember(conn, f"{self._s}.requests", request, ref_id=ref_id)

    async def appended(self) -> list[LoggedEvent]:
        """Every event this schema's log holds, in commit order (operators' and tests'
        view; the relay publishes the same log)."""
        rows = await self._pool.fetch(
            f"SELECT stream_id, version, type, schema_version, data FROM {self._s}.events "
            "ORDER BY tx_id, seq"
        )
        return [
            LoggedEvent(r["stream_id"], r["version"], r["type"], r["schema_version"], r["data"])
            for r in rows
        ]

    async def _engage(self, conn: Any, player_id: str, kind: Hold, ref_id: str) -> None:
        fresh = await conn.fetchval(
            f"INSERT INTO {self._s}.engaged_players (player_id, kind, ref_id) "
            "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING true",
            player_id,
            kind.value,
            ref_id,
        )
        if not fresh:
            row = await conn.fetchrow(
                f"SELECT kind, ref_id FROM {self._s}.engaged_players WHERE player_id = $1",
                player_id,
            )
            raise Engaged(Engagement(Hold(row["kind"]), row["ref_id"]) if row else None)

    async def engagement(self, player_id: str) -> Engagement | None:
        row = await self._pool.fetchrow(
            f"SELECT kind, ref_id FROM {self._s}.engaged_players WHERE player_id = $1", player_id
        )
        return None if row is None else Engagement(Hold(row["kind"]), row["ref_id"])

    async def _disengage(self, conn: Any, player_ids: Collection[str], ref_id: str) -> None:
        await conn.execute(
            f"DELETE FROM {self._s}.engaged_players WHERE player_id = ANY($1) AND ref_id = $2",
            list(player_ids),
            ref_id,
        )

    async def _append(
        self, conn: Any, stream_id: str, expected: int, message: Message, correlation: str = ""
    ) -> None:
        event = new_event(stream_id, expected, message, correlation)
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
