"""An owned copy of a character, the value that most collection events carry (and where
it came from). Apart from ``events.py``, which re-exports both, so that the Auction
House's events (``events_auction.py``) carry it without importing every other event."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.collection.domain.catalog import Character
from services.rules import Side, Sides, with_holo


class CopySource(StrEnum):
    STARTER = "starter"
    BOOSTER = "booster"
    TRADE = "trade"
    GRANT = "grant"
    AUCTION = "auction"


@dataclass(frozen=True, slots=True)
class OwnedCopy:
    """One owned instance of a character; its id survives trades (RULES.md 1)."""

    copy_id: str
    owner_id: str
    character: Character
    holo: bool
    holo_side: Side | None
    source: CopySource
    acquired_at: datetime

    @property
    def sides(self) -> Sides:
        """Printed values: the character's sides plus the holo bonus."""
        return with_holo(self.character.sides, self.holo_side)
