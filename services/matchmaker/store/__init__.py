"""The matchmaker's repository: tickets, match starts and idempotency keys in PostgreSQL
(``schema.py`` says where the concurrency safety lives), each change committed with its
events in one transaction. The custom tables are in ``lobby_store.py``."""

from __future__ import annotations

from services.matchmaker.repository import (
    NOTIFY_CHANNEL,
    Engaged,
    Request,
    RequestReused,
    RequestSeen,
    StartRecord,
)
from services.matchmaker.start_store import StartRepository
from services.matchmaker.ticket_store import QueueRound, TicketRepository

__all__ = [
    "NOTIFY_CHANNEL",
    "Engaged",
    "MatchmakerStore",
    "QueueRound",
    "Request",
    "RequestReused",
    "RequestSeen",
    "StartRecord",
]


class MatchmakerStore(TicketRepository, StartRepository):
    """Tickets and match starts on one pool and schema."""
