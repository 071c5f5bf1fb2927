"""The matchmaker's repository, in PostgreSQL (``schema.py`` says where the concurrency
safety lives), each change committed with its events in one transaction:

- ``base``: what every part shares: idempotency keys, engaged players, the event log
  and notifications;
- ``tickets``: queue tickets and the pairing round that claims them;
- ``starts``: match starts with their leases, finished or failed;
- ``lobby``: the custom tables of the lobby.

The ports the handlers are given are ``Repository`` (tickets, starts, idempotency
keys, engaged players) and ``Lobby`` (custom tables). ``MatchmakerStore`` and
``LobbyStore`` are their PostgreSQL adapters; ``memory.MemoryStore`` is both in memory,
for handler tests that need no database. One contract test suite holds both adapters
to the same behaviour (``tests/test_store_contract.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol
from uuid import UUID

from services.matchmaker.domain import Card, Mode, StartPlan, Table, TableFilter, Ticket
from services.matchmaker.store.base import (
    NOTIFY_CHANNEL,
    Engaged,
    Engagement,
    Hold,
    LoggedEvent,
    Request,
    RequestReused,
    RequestSeen,
    StartRecord,
    StartState,
    TableQuery,
)
from services.matchmaker.store.lobby import LobbyStore
from services.matchmaker.store.starts import StartRepository
from services.matchmaker.store.tickets import QueueRound, TicketRepository

__all__ = [
    "NOTIFY_CHANNEL",
    "Engaged",
    "Engagement",
    "Hold",
    "Lobby",
    "LobbyStore",
    "LoggedEvent",
    "MatchmakerStore",
    "QueueRound",
    "Repository",
    "Request",
    "RequestReused",
    "RequestSeen",
    "Round",
    "StartRecord",
    "StartState",
    "TableQuery",
]


class Round(Protocol):
    """One pairing round of one queue: the oldest queued tickets, held for the round."""

    tickets: list[Ticket]

    async def claim(self, plan: StartPlan, lease_until: datetime, token: UUID) -> None:
        """Claim the plan's tickets for its start, recorded under ``token``'s lease."""
        ...


class Repository(Protocol):
    """Tickets, match starts, idempotency keys, engaged players and the event log.

    Every change commits with its events and its request key, or not at all;
    ``RequestSeen`` when the request id was recorded meanwhile, ``Engaged`` when the
    player is already held (a ticket, a table, a start)."""

    async def answered(self, request: Request) -> str | None:
        """The first result (a ticket, table or start id) of a request seen before;
        ``RequestReused`` if its id came with other content."""
        ...

    async def forget(self, request: Request) -> None:
        """Drop the key of a request refused as malformed after it was recorded, so that
        its id is free again (nothing else it wrote is undone)."""
        ...

    async def engagement(self, player_id: str) -> Engagement | None:
        """What holds the player, or None."""
        ...

    async def appended(self) -> list[LoggedEvent]:
        """Every event appended, in commit order."""
        ...

    async def enqueue(self, ticket: Ticket, request: Request) -> None: ...

    async def cancel(
        self, ticket_id: str, player_id: str, request: Request, now: datetime
    ) -> tuple[Ticket | None, bool]:
        """Cancel a queued ticket of the player: (the ticket, True), or (the ticket as
        it is, whoever's, False) with nothing changed."""
        ...

    async def ticket(self, ticket_id: str) -> Ticket | None: ...

    async def latest_ticket(self, player_id: str) -> Ticket | None: ...

    async def queue_lengths(self) -> dict[Mode, int]: ...

    async def queue_length(self, mode: Mode) -> int: ...

    async def overdue(self, mode: Mode, before: datetime, limit: int) -> list[str]: ...

    def queue_round(self, mode: Mode, limit: int) -> AbstractAsyncContextManager[Round | None]:
        """The oldest ``limit`` queued tickets of ``mode`` for one round; None while
        another round (another replica) pairs this queue."""
        ...

    async def open_start(
        self, start: StartRecord, lease_until: datetime, request: Request | None, now: datetime
    ) -> bool:
        """Record a practice, switch or join (its plan, pending under ``start.token``'s
        lease) holding what it needs; False (nothing written) when its ticket is no
        longer queued or its table no longer open."""
        ...

    async def paired_draft(self, draft_id: str) -> bool: ...

    async def start(self, start_id: str) -> StartRecord | None: ...

    async def claim_due_start(self, now: datetime, lease_until: datetime) -> StartRecord | None:
        """The most overdue pending start whose lease ran out, under a new lease."""
        ...

    async def next_due_start(self) -> datetime | None:
        """When the earliest pending start's lease runs out (None: no start is pending),
        whoever holds it: how long the take-over loop may sleep."""
        ...

    async def take_over(
        self, start_id: str, now: datetime, lease_until: datetime
    ) -> StartRecord | None: ...

    async def finish_start(
        self, start: StartRecord, bot_cards: Sequence[Card], now: datetime
    ) -> bool:
        """The match (or draft) exists; False if this lease no longer holds the start."""
        ...

    async def fail_start(
        self, start: StartRecord, culprits: Mapping[str, str], reason: str, now: datetime
    ) -> bool:
        """The start cannot happen because of ``culprits``; False if the lease is lost."""
        ...


class Lobby(Protocol):
    """The custom tables of the lobby (opening, joining, declining and expiring are
    atomic)."""

    async def create_table(self, table: Table, request: Request) -> None: ...

    async def table(self, table_id: str) -> Table | None: ...

    async def hosted_table(self, player_id: str) -> Table | None: ...

    async def close_table(
        self, table_id: str, host_id: str, request: Request
    ) -> tuple[Table | None, bool]: ...

    async def decline_table(
        self, table_id: str, player_id: str, request: Request
    ) -> tuple[Table | None, bool]:
        """Decline an open challenge to ``player_id`` (its host is free again): (the
        table, True), or (the table as it is, whoever's, False) with nothing changed."""
        ...

    async def expire_tables(self, now: datetime, limit: int = 100) -> list[Table]: ...

    async def next_due_table(self) -> datetime | None:
        """When the earliest open table expires (None: no table is open)."""
        ...

    async def oldest_table(
        self, viewer_id: str, filters: TableFilter, now: datetime, skip: Collection[str]
    ) -> Table | None:
        """Find Game's pick: the oldest open public table the viewer does not host that
        passes the rule filters, none of ``skip``; None when none fits."""
        ...

    async def open_tables(self) -> int: ...

    async def list_tables(self, query: TableQuery) -> list[Table]:
        """The open tables ``query`` asks for, newest first."""
        ...


class MatchmakerStore(TicketRepository, StartRepository):
    """Tickets and match starts on one pool and schema."""
