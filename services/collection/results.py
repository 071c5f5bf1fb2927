"""What the collection's handlers hand back to the edge: small frozen values, never
dicts, tuples or database rows.

Command results are recorded with their request id (``Store.run``) and read back as
the same type when the request is retried, so each holds only plain fields (ids,
numbers, flags, moments); the edge reads anything larger (the copies of a grant, a
deck) through a query handler. Read models are what those queries return.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.collection.domain.events import Holder

# --- command results ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Balance:
    """A player's coins, and when they last changed (None: never)."""

    coins: int
    at: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Paid:
    """A command that leaves the player's balance as ``coins`` at ``at``."""

    coins: int = 0
    at: datetime | None = None

    @property
    def balance(self) -> Balance:
        return Balance(self.coins, self.at)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListingChanged(Paid):
    """A listing created, cancelled or bought; a purchase leaves the buyer's balance."""

    listing_id: str


@dataclass(frozen=True, slots=True)
class Granted(Paid):
    """Copies granted (starter or operator); the balance after a starter grant."""

    grant_id: str


@dataclass(frozen=True, slots=True)
class DeckChanged:
    deck_id: str


@dataclass(frozen=True, slots=True)
class DeckResolved:
    """The five copies a player brings to a match, in deck order."""

    copy_ids: tuple[str, ...]
    random: bool


@dataclass(frozen=True, slots=True)
class CopiesChanged:
    """The copies a lock or release concerned."""

    copy_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeedRotated:
    seed_id: str
    """The seed now in force."""
    revealed: str | None
    """The seed revealed by the rotation, if any booster was drawn from it."""


@dataclass(frozen=True, slots=True)
class BoosterBought(Paid):
    draw_id: str


@dataclass(frozen=True, slots=True)
class DraftStarted:
    created: bool
    """False when the draft existed already (a retry)."""


@dataclass(frozen=True, slots=True)
class DraftChanged:
    draft_id: str


@dataclass(frozen=True, slots=True)
class TradeChosen:
    trade_id: str


# --- read models -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CopyLock:
    holder: Holder
    locked_at: datetime


@dataclass(frozen=True, slots=True)
class DeckRecord:
    deck_id: str
    name: str
    copy_ids: tuple[str, ...]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SeedRecord:
    """A server seed as the player may see it: the secret only once revealed."""

    seed_id: str
    seed_hash: str
    server_seed: str
    """Empty until revealed."""
    client_seed: str
    draw_count: int
    committed_at: datetime
    revealed_at: datetime | None


@dataclass(frozen=True, slots=True)
class CompletedTrade:
    trade_id: str
    completed_at: datetime


class ObligationKind(StrEnum):
    PENDING_TRADE = "pending_trade"
    OPEN_DRAFT = "open_draft"


@dataclass(frozen=True, slots=True)
class Obligation:
    """Something a player must finish before a next match, and the words that say so."""

    kind: ObligationKind
    id: str
    message: str
