"""The Auction House (RULES.md 15) as a small aggregate: a listing is the fold of its
``listing-<id>`` stream, and its decisions return events or raise a typed error that
names the rule (STYLE 1).

- A player lists an owned, unlocked copy for a fixed price of ``MIN_PRICE`` ..
  ``MAX_PRICE`` coins for up to ``LONGEST`` (48 hours, and 48 hours when the seller
  names no duration). **Decision:** the shortest listing is ``SHORTEST`` (a minute),
  any length in between may be asked, to the second. The copy is locked for the listing
  (holder ``listing``), so it cannot enter a deck, a match, a trade or a second listing.
- Another player buys it at that price. **Decision (RULES.md 15):** the fee is
  ``FEE_PERCENT`` % of the price **rounded down** (``fee``: ``price * 5 // 100``), so a
  price under 20 coins pays no fee; the seller receives ``price - fee`` and the fee
  leaves the economy (it is credited to nobody). The copy keeps its holo bonus.
- The seller may cancel while it is unsold; at ``expires_at`` the server expires it.
  Either frees the copy. A listing closes once: sold, cancelled or expired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from uuid import NAMESPACE_URL, uuid5

from services.collection.domain.events import CopySource, OwnedCopy
from services.collection.domain.events_auction import (
    ListingCancelled,
    ListingClose,
    ListingCreated,
    ListingEvent,
    ListingExpired,
    ListingSold,
)
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    short_id,
)
from services.rules.deck import card_label

MIN_PRICE = 1
MAX_PRICE = 1_000_000
LONGEST = timedelta(hours=48)
SHORTEST = timedelta(minutes=1)
FEE_PERCENT = 5


class ListingStatus(StrEnum):
    OPEN = "open"
    SOLD = "sold"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class ListingNotFound(NotFound):
    pass


class NotTheSeller(PermissionDenied):
    pass


class ListingClosed(FailedPrecondition):
    """Sold, cancelled or expired already (a buyer a moment late gets this)."""


class OwnListing(FailedPrecondition):
    pass


def no_listing(listing_id: str) -> ListingNotFound:
    return ListingNotFound(f"there is no listing {short_id(listing_id)}")


def fee(price: int) -> int:
    """The fee a sale at ``price`` burns: 5% rounded down."""
    return price * FEE_PERCENT // 100


def listing_id_for(seller_id: str, request_id: str) -> str:
    """The listing a request creates: a retry of it names the same listing."""
    return str(uuid5(NAMESPACE_URL, f"triad:listing:{seller_id}:{request_id}"))


def check_duration(lasting: timedelta | None) -> timedelta:
    """How long a listing lasts: ``lasting`` if it is from a minute to 48 hours,
    48 hours if the seller named none."""
    if lasting is None:
        return LONGEST
    check_nanoseconds(_nanoseconds(lasting))
    return lasting


def check_nanoseconds(asked: int) -> int:
    """A duration asked in nanoseconds (as a protobuf Duration carries it), checked to
    the nanosecond: a timedelta keeps microseconds, so 48 hours and 1 ns would pass as 48
    hours, and the refusal names the value asked, not a rounded one (found from outside:
    59.9999999 s was refused as "not 60 seconds")."""
    if not _nanoseconds(SHORTEST) <= asked <= _nanoseconds(LONGEST):
        seconds = format(Decimal(asked).scaleb(-9).normalize(), "f")
        raise InvalidArgument(
            f"a listing lasts from 1 minute to 48 hours (or 48 hours when no duration "
            f"is given), not {seconds} seconds"
        )
    return asked


def _nanoseconds(span: timedelta) -> int:
    return span // timedelta(microseconds=1) * 1_000


def check_price(price: int) -> int:
    if not MIN_PRICE <= price <= MAX_PRICE:
        raise InvalidArgument(f"price must be {MIN_PRICE:,} to {MAX_PRICE:,} coins, not {price:,}")
    return price


@dataclass(frozen=True, slots=True)
class Listing:
    """A listing as its stream leaves it (and as the read side shows it)."""

    listing_id: str
    seller_id: str
    copy: OwnedCopy
    price: int
    created_at: datetime
    expires_at: datetime
    status: ListingStatus = ListingStatus.OPEN
    closed_at: datetime | None = None
    buyer_id: str = ""
    version: int = 1

    @property
    def fee(self) -> int:
        return fee(self.price)

    @property
    def label(self) -> str:
        card = card_label(self.copy.copy_id, self.copy.character.name)
        return f"listing {short_id(self.listing_id)} ({card})"


CLOSES: dict[type[ListingClose], ListingStatus] = {
    ListingCancelled: ListingStatus.CANCELLED,
    ListingExpired: ListingStatus.EXPIRED,
    ListingSold: ListingStatus.SOLD,
}


def fold(events: Sequence[tuple[ListingEvent, datetime]]) -> Listing | None:
    state: Listing | None = None
    for event, at in events:
        if isinstance(event, ListingCreated):
            state = Listing(
                event.listing_id,
                event.seller_id,
                event.copy,
                event.price,
                event.created_at,
                event.expires_at,
            )
        elif state is not None:
            state = closed(state, event, at)
    return state


def closed(state: Listing, event: ListingClose, at: datetime) -> Listing:
    """The listing ``state`` as its close ``event``, recorded at ``at``, leaves it."""
    return replace(
        state,
        status=CLOSES[type(event)],
        closed_at=at,
        buyer_id=event.buyer_id if isinstance(event, ListingSold) else "",
        version=state.version + 1,
    )


def create(
    listing_id: str,
    copy: OwnedCopy,
    price: int,
    now: datetime,
    lasting: timedelta | None = None,
) -> ListingCreated:
    check_price(price)
    expires_at = now + check_duration(lasting)
    return ListingCreated(listing_id, copy.owner_id, copy, price, expires_at, now)


def _open(state: Listing, now: datetime) -> None:
    if state.status is not ListingStatus.OPEN:
        raise ListingClosed(f"{state.label} is {state.status.value}: it is no longer on sale")
    if now >= state.expires_at:
        raise ListingClosed(f"{state.label} expired at {state.expires_at.isoformat()}")


def cancel(state: Listing, player_id: str, now: datetime) -> ListingCancelled:
    if state.seller_id != player_id:
        raise NotTheSeller(f"{state.label} is not yours to cancel")
    if state.status is not ListingStatus.OPEN:
        raise ListingClosed(f"{state.label} is {state.status.value}: nothing to cancel")
    if now >= state.expires_at:
        # Expired, though the expiry loop may not have closed it yet: no buyer can take it
        # now, and the loop frees the copy (found from outside: cancelled after its end).
        raise ListingClosed(
            f"{state.label} expired at {state.expires_at.isoformat()}: nothing to cancel; "
            "the copy comes back to you"
        )
    return ListingCancelled(state.listing_id, state.seller_id)


def buy(state: Listing, buyer_id: str, now: datetime) -> ListingSold:
    """The sale, if ``buyer_id`` may buy now (the coins: ``wealth.spend``)."""
    if state.seller_id == buyer_id:
        raise OwnListing(f"{state.label} is your own: cancel it instead of buying it")
    _open(state, now)
    owned = replace(state.copy, owner_id=buyer_id, source=CopySource.AUCTION, acquired_at=now)
    return ListingSold(state.listing_id, state.seller_id, buyer_id, state.price, state.fee, owned)


def expire(state: Listing, now: datetime) -> ListingExpired | None:
    """Expiry at the deadline; None if it closed meanwhile or is not due."""
    if state.status is not ListingStatus.OPEN or now < state.expires_at:
        return None
    return ListingExpired(state.listing_id, state.seller_id)


# --- browsing ---------------------------------------------------------------------------------


class AuctionOrder(StrEnum):
    NEWEST = "newest"
    CHEAPEST = "cheapest"


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page ended: the last listing's sort key (keyset paging)."""

    price: int
    created_at: datetime
    listing_id: str


@dataclass(frozen=True, slots=True)
class AuctionQuery:
    """Which open listings to browse, in which order, from where. Every filter that is
    set must hold."""

    order: AuctionOrder = AuctionOrder.NEWEST
    character_id: str = ""
    stars: tuple[int, ...] = ()
    elements: tuple[str, ...] = ()
    """Element values; "" is a character without an element."""
    holo: bool | None = None
    min_price: int = 0
    max_price: int = 0
    after: Cursor | None = None
    unexpired_at: datetime | None = None
    """Only listings still open at this moment: one past its expiry is no longer
    shown, though the expiry loop may not have closed it yet (nor can it be bought)."""

    def __post_init__(self) -> None:
        if any(not 1 <= s <= 5 for s in self.stars):
            raise InvalidArgument(f"stars are 1..5, not {list(self.stars)}")
        if self.min_price < 0 or self.max_price < 0:
            raise InvalidArgument("min_price and max_price are 0 (no bound) or more")
        if self.max_price and self.min_price > self.max_price:
            raise InvalidArgument(
                f"min_price {self.min_price:,} is above max_price {self.max_price:,}"
            )

    def matches(self, listing: Listing) -> bool:
        """The filters, for the in-memory adapter (PostgreSQL says the same in SQL)."""
        c = listing.copy.character
        element = "" if c.element is None else c.element.value
        return (
            listing.status is ListingStatus.OPEN
            and (not self.character_id or c.id == self.character_id)
            and (not self.stars or c.stars in self.stars)
            and (not self.elements or element in self.elements)
            and (self.holo is None or listing.copy.holo == self.holo)
            and listing.price >= self.min_price
            and (not self.max_price or listing.price <= self.max_price)
            and (self.after is None or self.beyond(listing, self.after))
            and (self.unexpired_at is None or listing.expires_at > self.unexpired_at)
        )

    def beyond(self, listing: Listing, cursor: Cursor) -> bool:
        if self.order is AuctionOrder.CHEAPEST:
            return (listing.price, listing.created_at, listing.listing_id) > (
                cursor.price,
                cursor.created_at,
                cursor.listing_id,
            )
        return (listing.created_at, listing.listing_id) < (cursor.created_at, cursor.listing_id)

    def sorted(self, found: Sequence[Listing]) -> list[Listing]:
        if self.order is AuctionOrder.CHEAPEST:
            return sorted(found, key=lambda x: (x.price, x.created_at, x.listing_id))
        return sorted(found, key=lambda x: (x.created_at, x.listing_id), reverse=True)


def cursor_of(listing: Listing) -> Cursor:
    return Cursor(listing.price, listing.created_at, listing.listing_id)
