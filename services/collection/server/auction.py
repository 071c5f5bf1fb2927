"""The CollectionService edge for the Auction House (RULES.md 15): listing, cancelling,
buying, browsing; the ``Listing`` message and the browse cursor (``page_token``)."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import timedelta
from functools import partial
from typing import Any

from google.protobuf.duration_pb2 import Duration
from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb

from services.collection import handlers_auction, presenter
from services.collection.domain.auction import (
    MAX_PRICE,
    AuctionOrder,
    AuctionQuery,
    Cursor,
    Listing,
    ListingStatus,
    check_nanoseconds,
    cursor_of,
)
from services.collection.handlers import Context
from services.collection.mapping import elements, keyed, owned_copy, page
from services.platform.edge import bind, require, require_bound, require_enum
from services.platform.enums import by_name
from services.platform.errors import InvalidArgument
from services.platform.pages import forged, key_token, key_token_back, moment_back
from services.platform.requests import Request
from services.wire import ELEMENTS_BACK, span, timestamp

STATUSES = by_name(ListingStatus, pb.ListingStatus)
ORDERS = {
    pb.AUCTION_ORDER_UNSPECIFIED: AuctionOrder.NEWEST,
    pb.AUCTION_ORDER_NEWEST: AuctionOrder.NEWEST,
    pb.AUCTION_ORDER_CHEAPEST: AuctionOrder.CHEAPEST,
}
HOLO = {pb.HOLO_FILTER_UNSPECIFIED: None, pb.HOLO_FILTER_HOLO: True, pb.HOLO_FILTER_PLAIN: False}
PAGE_CAP = 200


def listing(value: Listing) -> pb.Listing:
    message = pb.Listing(
        listing_id=value.listing_id,
        seller_player_id=value.seller_id,
        copy=owned_copy(value.copy),
        price=value.price,
        fee=value.fee,
        status=STATUSES[value.status],
        create_time=timestamp(value.created_at),
        expire_time=timestamp(value.expires_at),
        buyer_player_id=value.buyer_id,
        close_time=timestamp(value.closed_at),
    )
    return message


def cursor_token(value: Cursor, order: AuctionOrder) -> str:
    """Where a browse page ended, in the order it was listed in."""
    data = [order.value, value.price, value.created_at.isoformat(), value.listing_id]
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode()


def cursor_back(token: str, order: AuctionOrder) -> Cursor | None:
    """The position ``cursor_token`` wrote (None: the first page); INVALID_ARGUMENT if it
    is not one of ours, or was made for the other order (its position means nothing
    there: pages would skip or repeat listings)."""
    if not token:
        return None
    try:
        made_for, price, created_at, listing_id = json.loads(
            base64.urlsafe_b64decode(token.encode())
        )
        found = Cursor(int(price), moment_back(created_at), str(listing_id))
    except (ValueError, TypeError, OverflowError, binascii.Error):  # Overflow: 1e999
        raise forged() from None
    if made_for != order.value:
        raise InvalidArgument(
            f"page_token continues the {made_for} order, not {order.value}: "
            "ask for the first page of this order (no page_token)"
        )
    if not 0 <= found.price <= MAX_PRICE or len(found.listing_id) > 200:
        raise forged()
    if "\x00" in found.listing_id:  # PostgreSQL refuses a NUL in a text
        raise forged()
    return found


def auction_query(
    f: pb.AuctionFilter, order: pb.AuctionOrder.ValueType, token: str
) -> AuctionQuery:
    """The browse a request asks for; INVALID_ARGUMENT naming the field that is wrong."""
    require_enum(order, pb.AuctionOrder.DESCRIPTOR, "order", unspecified_ok=True)
    require_enum(f.element, pb.Element.DESCRIPTOR, "filter.element", unspecified_ok=True)
    require_enum(f.holo, pb.HoloFilter.DESCRIPTOR, "filter.holo", unspecified_ok=True)
    if f.element and f.elements:
        raise InvalidArgument("set filter.elements or filter.element, not both")
    wanted = elements(f.elements) if f.elements else {ELEMENTS_BACK[f.element]} - {None}
    sort = ORDERS[order]
    return AuctionQuery(
        order=sort,
        character_id=require(f.character_id, "filter.character_id") if f.character_id else "",
        stars=tuple(sorted(set(f.stars))),
        elements=tuple(sorted("" if e is None else e.value for e in wanted)),
        holo=HOLO[f.holo],
        min_price=f.min_price,
        max_price=f.max_price,
        after=cursor_back(token, sort),
    )


def _lasting(message: Duration) -> timedelta:
    """The duration a seller asked for, checked to the nanosecond before it becomes a
    timedelta (which keeps microseconds)."""
    lasting = span(message, "duration")
    check_nanoseconds(message.seconds * 1_000_000_000 + message.nanos)
    return lasting


def _on_listing(
    request: c.CollectionServiceCancelListingRequest | c.CollectionServiceBuyListingRequest,
    verb: str,
) -> tuple[str, str, Request]:
    """The player, the listing and the request key of a command on a listing (``verb``:
    cancel, buy), checked and logged."""
    player = require(request.player_id, "player_id")
    listing_id = require(request.listing_id, "listing_id")
    bind(player_id=player, listing_id=listing_id)
    return (
        player,
        listing_id,
        Request.of(player, require(request.request_id, "request_id"), verb, listing_id),
    )


class AuctionRpcs:
    _ctx: Context

    async def CreateListing(
        self, request: c.CollectionServiceCreateListingRequest, context: Any
    ) -> c.CollectionServiceCreateListingResponse:
        player = require(request.player_id, "player_id")
        copy_id = require(request.copy_id, "copy_id")
        bind(player_id=player, copy_id=copy_id)
        lasting = _lasting(request.duration) if request.HasField("duration") else None
        # A duration joins the fingerprint only when asked: requests recorded before
        # listings had one keep theirs.
        asked = () if lasting is None else (str(lasting),)
        key = Request.of(
            player, require(request.request_id, "request_id"), copy_id, str(request.price), *asked
        )
        done = await handlers_auction.create_listing(
            self._ctx, key, player, copy_id, request.price, lasting
        )
        found = await handlers_auction.listing(self._ctx, done.listing_id)
        return c.CollectionServiceCreateListingResponse(listing=listing(found))

    async def CancelListing(
        self, request: c.CollectionServiceCancelListingRequest, context: Any
    ) -> c.CollectionServiceCancelListingResponse:
        player, listing_id, key = _on_listing(request, "cancel")
        await handlers_auction.cancel_listing(self._ctx, key, player, listing_id)
        found = await handlers_auction.listing(self._ctx, listing_id)
        return c.CollectionServiceCancelListingResponse(listing=listing(found))

    async def BuyListing(
        self, request: c.CollectionServiceBuyListingRequest, context: Any
    ) -> c.CollectionServiceBuyListingResponse:
        player, listing_id, key = _on_listing(request, "buy")
        done = await handlers_auction.buy_listing(self._ctx, key, player, listing_id)
        found = await handlers_auction.listing(self._ctx, listing_id)
        return c.CollectionServiceBuyListingResponse(
            listing=listing(found), balance=presenter.balance(done.balance)
        )

    async def ListAuction(
        self, request: c.CollectionServiceListAuctionRequest, context: Any
    ) -> c.CollectionServiceListAuctionResponse:
        limit, _ = page(request.page_size, "", PAGE_CAP)
        query = auction_query(request.filter, request.order, request.page_token)
        found = await handlers_auction.browse(self._ctx, query, limit + 1)
        more = len(found) > limit
        return c.CollectionServiceListAuctionResponse(
            listings=[listing(x) for x in found[:limit]],
            next_page_token=cursor_token(cursor_of(found[limit - 1]), query.order) if more else "",
        )

    async def ListMyListings(
        self, request: c.CollectionServiceListMyListingsRequest, context: Any
    ) -> c.CollectionServiceListMyListingsResponse:
        player = require_bound(request.player_id, "player_id")
        # A keyset token: a listing made between two pages pushes none onto the next.
        found, token = await keyed(
            request,
            PAGE_CAP,
            key_token_back,
            partial(handlers_auction.listings_of, self._ctx, player),
            lambda x: key_token(x.created_at, x.listing_id),
        )
        return c.CollectionServiceListMyListingsResponse(
            listings=[listing(x) for x in found], next_page_token=token
        )
