"""Queue tickets: queued, claimed by a pairing, paired or cancelled (and why)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.matchmaker.domain.modes import Mode
from services.matchmaker.domain.pairing import Waiting
from services.matchmaker.domain.seats import DeckChoice


class TicketState(StrEnum):
    QUEUED = "queued"
    CLAIMED = "claimed"
    """Paired, its match being created: no longer cancellable; back to queued only if
    the match cannot start because of the other player."""
    PAIRED = "paired"
    CANCELLED = "cancelled"


class CancelReason(StrEnum):
    PLAYER = "player"
    SWITCHED_TO_PRACTICE = "switched_to_practice"
    PAIRING_FAILED = "pairing_failed"


@dataclass(frozen=True, slots=True)
class Ticket:
    ticket_id: str
    player_id: str
    player_name: str
    mode: Mode
    rating: int
    enqueued_at: datetime
    deck: DeckChoice | None = None
    state: TicketState = TicketState.QUEUED
    match_id: str = ""
    draft_id: str = ""
    ended_at: datetime | None = None
    cancel_reason: CancelReason | None = None
    cancel_message: str = ""
    """Why the server cancelled it (its match could not start because of the player)."""
    start_id: str = ""
    """The start that claimed it (a pairing, or the player's switch to practice)."""

    @property
    def waiting(self) -> bool:
        return self.state in (TicketState.QUEUED, TicketState.CLAIMED)

    def waited(self, now: datetime) -> float:
        end = self.ended_at if self.ended_at is not None else now
        return max((end - self.enqueued_at).total_seconds(), 0.0)

    def as_waiting(self) -> Waiting:
        return Waiting(self.ticket_id, self.player_id, self.rating, self.enqueued_at.timestamp())
