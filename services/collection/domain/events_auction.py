"""The facts of a ``listing-<id>`` stream (RULES.md 15, the Auction House).

A listing opens with ``ListingCreated`` and closes with exactly one of
``ListingCancelled``, ``ListingExpired`` or ``ListingSold``, each a ``ListingClose``
(version 2 of its stream: the expected version makes a second close impossible). The
seller's lock on the copy (``CopiesLocked`` / ``CopiesReleased``, holder ``listing``)
and the coins of a sale (``CurrencyDebited`` for the buyer, ``CurrencyCredited`` for
the seller) are on the players' streams, appended in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.collection.domain.copies import OwnedCopy


@dataclass(frozen=True, slots=True)
class ListingCreated:
    listing_id: str
    seller_id: str
    copy: OwnedCopy
    """The copy as listed: owner the seller, holo as owned."""
    price: int
    expires_at: datetime
    created_at: datetime
    """When it was recorded (not in the payload: the log's moment)."""


@dataclass(frozen=True, slots=True)
class ListingClose:
    """The one close of a listing: cancelled, expired or sold."""

    listing_id: str
    seller_id: str


@dataclass(frozen=True, slots=True)
class ListingCancelled(ListingClose):
    pass


@dataclass(frozen=True, slots=True)
class ListingExpired(ListingClose):
    pass


@dataclass(frozen=True, slots=True)
class ListingSold(ListingClose):
    buyer_id: str
    price: int
    fee: int
    copy: OwnedCopy
    """The copy as now owned: owner the buyer, source AUCTION, holo unchanged."""


ListingEvent = ListingCreated | ListingClose
