"""The matchmaker's repository, in PostgreSQL (``schema.py`` says where the concurrency
safety lives), each change committed with its events in one transaction:

- ``base``: what every part shares: idempotency keys, engaged players, the event log
  and notifications;
- ``tickets``: queue tickets and the pairing round that claims them;
- ``starts``: match starts with their leases, finished or failed;
- ``lobby``: the custom tables of the lobby.

``memory`` holds the same ports in memory, for the handler tests; both are held to one
contract (``tests/test_store_contract.py``).
"""

from __future__ import annotations

from services.matchmaker.store.base import (
    NOTIFY_CHANNEL,
    Engaged,
    Request,
    RequestReused,
    RequestSeen,
    StartRecord,
)
from services.matchmaker.store.lobby import LobbyStore
from services.matchmaker.store.starts import StartRepository
from services.matchmaker.store.tickets import QueueRound, TicketRepository

__all__ = [
    "NOTIFY_CHANNEL",
    "Engaged",
    "LobbyStore",
    "MatchmakerStore",
    "QueueRound",
    "Request",
    "RequestReused",
    "RequestSeen",
    "StartRecord",
]


class MatchmakerStore(TicketRepository, StartRepository):
    """Tickets and match starts on one pool and schema."""
