"""Use cases of the Auction House (RULES.md 15): list a copy, cancel, buy, the expiry at
the deadline, and browsing.

Every command locks the listing's row first (``claim_listing``; the expiry claims it
with ``SKIP LOCKED``), then the players' rows, so a sale, a cancel and the expiry of
one listing take turns and never deadlock; and each closes the listing by appending at
version 1 of its stream, so it closes once whatever races it. A purchase moves the
coins (the buyer's debit, the seller's credit of price - fee) and the copy (with its
holo bonus) in that one transaction; the fee is credited to nobody.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import structlog

from services.collection import metrics
from services.collection.domain import auction, decks, wealth
from services.collection.domain.auction import AuctionQuery, Listing
from services.collection.domain.events import (
    CopiesReleased,
    CurrencyReason,
    Holder,
    HolderKind,
)
from services.collection.domain.events_auction import ListingClose, ListingEvent
from services.collection.handlers import Context, fire_due
from services.collection.results import ListingChanged
from services.collection.store import Request, Unit, listing_stream

log = structlog.get_logger()


def holder(listing_id: str) -> Holder:
    return Holder(HolderKind.LISTING, listing_id)


async def load_listing(unit: Unit, listing_id: str) -> Listing:
    events = [
        (e, at)
        for e, at in await unit.stream(listing_stream(listing_id))
        if isinstance(e, ListingEvent)
    ]
    found = auction.fold(events)
    if found is None:
        raise auction.no_listing(listing_id)
    return found


async def _claim(unit: Unit, listing_id: str, *players: str) -> Listing:
    """The listing's row locked, then the players' rows (and the seller's), in this order."""
    seller = await unit.claim_listing(listing_id)
    if seller is None:
        raise auction.no_listing(listing_id)
    await unit.players(seller, *players)
    return await load_listing(unit, listing_id)


async def _close(unit: Unit, state: Listing, event: ListingClose) -> None:
    """Close the listing (once: at version 1) and free the copy's lock."""
    await unit.append(listing_stream(state.listing_id), state.version, [event])
    released = CopiesReleased(state.seller_id, (state.copy.copy_id,), holder(state.listing_id))
    await unit.append_player(state.seller_id, [released])


async def create_listing(
    ctx: Context,
    request: Request,
    seller_id: str,
    copy_id: str,
    price: int,
    lasting: timedelta | None = None,
) -> ListingChanged:
    """List an owned, unlocked copy for ``price`` coins for ``lasting`` (48 hours when
    None); the copy is locked."""
    auction.check_price(price)
    auction.check_duration(lasting)
    listing_id = auction.listing_id_for(seller_id, request.request_id)

    async def work(unit: Unit) -> ListingChanged:
        await unit.player(seller_id)
        owned = await unit.copies(seller_id, [copy_id], lock=True)
        locks = await unit.locks([copy_id])
        locked = decks.lock(seller_id, [copy_id], owned.keys(), locks, holder(listing_id))
        assert locked is not None  # a fresh listing holds nothing yet
        created = auction.create(listing_id, owned[copy_id], price, ctx.clock(), lasting)
        await unit.append(listing_stream(listing_id), 0, [created])
        await unit.append_player(seller_id, [locked])
        ctx.wakes.listings.due_at(created.expires_at)
        metrics.AUCTION_LISTINGS.labels(event="created").inc()
        log.info("listing created", listing_id=listing_id, copy_id=copy_id, price=price)
        return ListingChanged(listing_id=listing_id)

    return await ctx.store.run(work, request)


async def cancel_listing(
    ctx: Context, request: Request, seller_id: str, listing_id: str
) -> ListingChanged:
    async def work(unit: Unit) -> ListingChanged:
        state = await _claim(unit, listing_id)
        await _close(unit, state, auction.cancel(state, seller_id, ctx.clock()))
        metrics.AUCTION_LISTINGS.labels(event="cancelled").inc()
        log.info("listing cancelled", listing_id=listing_id)
        return ListingChanged(listing_id=listing_id)

    return await ctx.store.run(work, request)


async def buy_listing(
    ctx: Context, request: Request, buyer_id: str, listing_id: str
) -> ListingChanged:
    """Buy at the listed price: coins and copy move here, exactly once."""

    async def work(unit: Unit) -> ListingChanged:
        state = await _claim(unit, listing_id, buyer_id)
        now = ctx.clock()
        sold = auction.buy(state, buyer_id, now)
        paid = wealth.spend(
            buyer_id, unit.coins(buyer_id), sold.price, CurrencyReason.AUCTION_PURCHASE, listing_id
        )
        seller = state.seller_id
        proceeds = wealth.credit(
            seller, unit.coins(seller), sold.price - sold.fee, CurrencyReason.AUCTION_SALE,
            listing_id,
        )  # fmt: skip
        await _close(unit, state, sold)
        await unit.append_player(seller, [proceeds])
        await unit.append_player(buyer_id, [paid])
        metrics.AUCTION_LISTINGS.labels(event="sold").inc()
        metrics.AUCTION_SALES.inc()
        metrics.AUCTION_FEES_BURNED.inc(sold.fee)
        metrics.count_coins(paid, proceeds)
        log.info("listing sold", listing_id=listing_id, price=sold.price, fee=sold.fee)
        return ListingChanged(listing_id=listing_id, coins=unit.coins(buyer_id), at=now)

    return await ctx.store.run(work, request)


async def fire_due_listing(ctx: Context) -> bool:
    """Expire the most overdue open listing, if any; True if one was claimed."""
    return await fire_due(ctx, lambda unit, now: unit.due_listing(now), _expire)


async def _expire(unit: Unit, listing_id: str, now: datetime) -> None:
    state = await load_listing(unit, listing_id)
    await unit.player(state.seller_id)
    expired = auction.expire(state, now)
    if expired is not None:
        await _close(unit, state, expired)
        metrics.AUCTION_LISTINGS.labels(event="expired").inc()
        log.info("listing expired", listing_id=listing_id)


# --- queries ----------------------------------------------------------------------------------


async def listing(ctx: Context, listing_id: str) -> Listing:
    found = await ctx.store.listing(listing_id)
    if found is None:
        raise auction.no_listing(listing_id)
    return found


async def browse(ctx: Context, query: AuctionQuery, limit: int) -> list[Listing]:
    """Open listings matching ``query``: ``limit`` of them after its cursor, in its order;
    none past its expiry, even before the expiry loop closes it."""
    return await ctx.store.browse(replace(query, unexpired_at=ctx.clock()), limit)


async def listings_of(
    ctx: Context, seller_id: str, limit: int, before: tuple[datetime, str] | None = None
) -> list[Listing]:
    """The seller's listings, newest first, older than ``before`` if given."""
    return await ctx.store.listings_of(seller_id, limit, before)
