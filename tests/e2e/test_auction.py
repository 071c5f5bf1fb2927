"""The Auction House through the TLS gateway as two clients use it (RULES.md 15, issue
21): the seller lists, the buyer browses and buys, the seller cancels another listing;
both collections and balances are checked to the coin, and the seller's session is
told of the sale; and ``triad-client auction`` run as a process does the same. Every
service a process on real PostgreSQL and NATS."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.duration_pb2 import Duration
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import Overrides, Stack
from services.collection.domain.wealth import STARTER_COINS as START
from tests.e2e.client_runs import signed_in
from tests.e2e.races.race_players import code_of
from tests.e2e.sessions import Player, Session, join

pytestmark = pytest.mark.integration


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


async def coins(p: Player) -> int:
    return int((await p.call("GetBalance", g.GetBalanceRequest())).balance.coins)


async def collection(p: Player) -> dict[str, pb.CollectionEntry]:
    reply = await p.call("ListCollection", g.ListCollectionRequest(page_size=200))
    return {e.copy.copy_id: e for e in reply.entries}


async def create(p: Player, copy_id: str, price: int, lasting: timedelta | None = None) -> Any:
    request = g.CreateListingRequest(request_id=uuid4().hex, copy_id=copy_id, price=price)
    if lasting is not None:
        request.duration.FromTimedelta(lasting)
    return await p.call("CreateListing", request)


def on_sale_for(listing: pb.Listing) -> timedelta:
    return listing.expire_time.ToDatetime() - listing.create_time.ToDatetime()


async def test_two_clients_list_browse_buy_and_cancel_to_the_coin(api: Any) -> None:
    seller, buyer = await join(api), await join(api)
    session, buyer_session = await Session.open(seller), await Session.open(buyer)
    try:
        assert (await coins(seller), await coins(buyer)) == (START, START)
        mine = await collection(seller)
        first, second, third = list(mine)[:3]
        sold_copy = mine[first].copy

        # Bad input and a locked copy: a clear status each, nothing created.
        for price in (0, 1_000_001):
            code, details = await code_of(create(seller, first, price))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and "price" in details
        code, _ = await code_of(create(buyer, first, 10))
        assert code == grpc.StatusCode.NOT_FOUND
        # On sale for a minute to 48 hours (RULES.md 15: "up to 48 hours").
        for lasting in (timedelta(seconds=59), timedelta(hours=48, seconds=1), timedelta(0)):
            code, details = await code_of(create(seller, first, 120, lasting))
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            assert "from 1 minute to 48 hours" in details
        malformed = g.CreateListingRequest(
            request_id=uuid4().hex,
            copy_id=first,
            price=120,
            duration=Duration(seconds=60, nanos=-1),
        )
        code, details = await code_of(seller.call("CreateListing", malformed))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "not a valid duration" in details
        assert not (await collection(seller))[first].HasField("lock")

        listed = (await create(seller, first, 120)).listing
        assert (listed.status, listed.price, listed.fee) == (pb.LISTING_STATUS_OPEN, 120, 6)
        assert on_sale_for(listed) == timedelta(hours=48)
        code, details = await code_of(create(seller, first, 50))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "locked" in details
        assert (await collection(seller))[first].lock.holder.listing_id == listed.listing_id
        # A deck with the listed copy names the listing and what frees the card (found
        # from outside: it said "an active trading match or a pending trade").
        code, details = await code_of(
            seller.call(
                "SaveDeck",
                g.SaveDeckRequest(request_id=uuid4().hex, name="Listed", copy_ids=list(mine)[:5]),
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION, details
        assert f"Auction House listing {listed.listing_id[:8]}" in details, details
        assert "cancel the listing to use it" in details, details

        # Browse: the buyer finds it by character, cheapest first.
        page = await buyer.call(
            "ListAuction",
            g.ListAuctionRequest(
                filter=pb.AuctionFilter(
                    character_id=sold_copy.character.character_id, max_price=120
                ),
                order=pb.AUCTION_ORDER_CHEAPEST,
            ),
        )
        assert listed.listing_id in [x.listing_id for x in page.listings]
        code, _ = await code_of(
            buyer.call("ListAuction", g.ListAuctionRequest(page_token="not-a-token"))
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        both = pb.AuctionFilter(element=pb.ELEMENT_FIRE, elements=[pb.ELEMENT_ICE])
        code, details = await code_of(buyer.call("ListAuction", g.ListAuctionRequest(filter=both)))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "not both" in details

        # The seller cannot buy their own listing; the buyer buys it, a retry is the same.
        code, details = await code_of(
            seller.call(
                "BuyListing", g.BuyListingRequest(request_id="own", listing_id=listed.listing_id)
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "own" in details
        buy = g.BuyListingRequest(request_id=uuid4().hex, listing_id=listed.listing_id)
        bought = await buyer.call("BuyListing", buy)
        assert bought.listing.status == pb.LISTING_STATUS_SOLD
        assert bought.balance.coins == START - 120
        assert await buyer.call("BuyListing", buy) == bought
        code, details = await code_of(
            buyer.call(
                "BuyListing",
                g.BuyListingRequest(request_id=uuid4().hex, listing_id=listed.listing_id),
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "sold" in details

        pushed = await session.wait_for(
            lambda p: p.HasField("listing") and p.listing.listing_id == listed.listing_id
        )
        assert pushed.listing.status == pb.LISTING_STATUS_SOLD
        assert pushed.listing.buyer_player_id == buyer.id
        # Both sessions are told their new balance (found from outside: "the buyer
        # appears to get no balance push").
        await session.wait_for(lambda p: p.HasField("balance") and p.balance.coins == START + 114)
        await buyer_session.wait_for(
            lambda p: p.HasField("balance") and p.balance.coins == START - 120
        )

        # Cancel: another listing withdrawn; a buyer after it is refused.
        other = (await create(seller, second, 40, timedelta(hours=2, minutes=30))).listing
        assert on_sale_for(other) == timedelta(hours=2, minutes=30)
        cancelled = await seller.call(
            "CancelListing",
            g.CancelListingRequest(request_id=uuid4().hex, listing_id=other.listing_id),
        )
        assert cancelled.listing.status == pb.LISTING_STATUS_CANCELLED
        code, _ = await code_of(
            buyer.call(
                "CancelListing",
                g.CancelListingRequest(request_id=uuid4().hex, listing_id=other.listing_id),
            )
        )
        assert code == grpc.StatusCode.PERMISSION_DENIED
        code, _ = await code_of(
            buyer.call(
                "BuyListing",
                g.BuyListingRequest(request_id=uuid4().hex, listing_id=other.listing_id),
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        # More than the buyer holds: refused, nothing paid.
        dear = (await create(seller, third, START)).listing
        code, details = await code_of(
            buyer.call(
                "BuyListing",
                g.BuyListingRequest(request_id=uuid4().hex, listing_id=dear.listing_id),
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "balance" in details

        # Both collections and balances, to the coin.
        assert await coins(buyer) == START - 120
        assert await coins(seller) == START + 120 - 6
        after_seller, after_buyer = await collection(seller), await collection(buyer)
        assert first not in after_seller and first in after_buyer
        moved = after_buyer[first].copy
        assert (moved.holo, moved.holo_side, moved.printed_sides) == (
            sold_copy.holo,
            sold_copy.holo_side,
            sold_copy.printed_sides,
        )
        assert moved.source == pb.COPY_SOURCE_AUCTION and not after_buyer[first].HasField("lock")
        assert not after_seller[second].HasField("lock")
        assert after_seller[third].lock.holder.listing_id == dear.listing_id
        assert len(after_seller) + len(after_buyer) == len(mine) * 2
        my = await seller.call("ListMyListings", g.ListMyListingsRequest())
        assert [x.status for x in my.listings] == [
            pb.LISTING_STATUS_OPEN,
            pb.LISTING_STATUS_CANCELLED,
            pb.LISTING_STATUS_SOLD,
        ]
    finally:
        await session.close()
        await buyer_session.close()


async def test_a_page_token_continues_only_the_order_it_was_made_in(api: Any) -> None:
    """Found from outside: a cheapest-first page's token was taken for a newest-first
    browse (its position means nothing there: pages skip or repeat listings)."""
    seller, buyer = await join(api), await join(api)
    first, second = list(await collection(seller))[:2]
    listed = [(await create(seller, c, 1_000 + i)).listing for i, c in enumerate((first, second))]
    mine = pb.AuctionFilter(min_price=1_000, max_price=1_001)
    cheapest = g.ListAuctionRequest(filter=mine, order=pb.AUCTION_ORDER_CHEAPEST, page_size=1)
    page = await buyer.call("ListAuction", cheapest)
    assert page.next_page_token
    newest = g.ListAuctionRequest(
        filter=mine, order=pb.AUCTION_ORDER_NEWEST, page_size=1, page_token=page.next_page_token
    )
    code, details = await code_of(buyer.call("ListAuction", newest))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "first page" in details, details
    cheapest.page_token = page.next_page_token
    after = await buyer.call("ListAuction", cheapest)
    assert [x.listing_id for x in (*page.listings, *after.listings)] == [
        x.listing_id for x in listed
    ]
    for x in listed:
        cancel = g.CancelListingRequest(request_id=uuid4().hex, listing_id=x.listing_id)
        await seller.call("CancelListing", cancel)


def register(api: Any) -> Any:
    return api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"n{uuid4().hex[:12]}", password=PASSWORD
        )
    )


async def test_triad_client_auction_lists_browses_buys_and_cancels(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    me, other = await register(api), await register(api)
    seller = signed_in(backend, tmp_path / "seller.json", me)
    buyer = signed_in(backend, tmp_path / "buyer.json", other)
    entries = seller.json("collection")["entries"]
    first, second = entries[0]["copy"], entries[1]["copy"]
    listed = seller.json("auction", "list", first["copyId"][:8], "1,000")["listing"]
    assert (listed["price"], listed["fee"], listed["status"]) == (
        "1000",
        "50",
        "LISTING_STATUS_OPEN",
    )
    assert "1 to 1,000,000" in seller.fails("auction", "list", first["copyId"], "0", code=2)
    assert "locked" in seller.fails("auction", "list", first["copyId"], "5")

    found = buyer.json(
        "auction", "browse", "--character", first["character"]["characterId"], "--order",
        "cheapest",
    )["listings"]  # fmt: skip
    assert listed["listingId"] in [x["listingId"] for x in found]
    assert "balance too low" in buyer.fails("auction", "buy", listed["listingId"])
    assert "your own" in seller.fails("auction", "buy", listed["listingId"])

    cheap = seller.json("auction", "list", second["copyId"], "100", "--hours", "6")["listing"]
    times = [datetime.fromisoformat(cheap[k]) for k in ("createTime", "expireTime")]
    assert times[1] - times[0] == timedelta(hours=6)
    assert "--hours is 1/60 (a minute) to 48: not 49" in seller.fails(
        "auction", "list", second["copyId"], "100", "--hours", "49", code=2
    )  # refused before any call, in hours as typed
    bought = buyer.json("auction", "buy", cheap["listingId"][:8])
    assert bought["listing"]["status"] == "LISTING_STATUS_SOLD"
    assert int(bought["balance"]["coins"]) == START - 100
    cancelled = seller.json("auction", "cancel", listed["listingId"][:8])["listing"]
    assert cancelled["status"] == "LISTING_STATUS_CANCELLED"
    mine = seller.json("auction", "mine")["listings"]
    assert [x["status"] for x in mine] == ["LISTING_STATUS_SOLD", "LISTING_STATUS_CANCELLED"]
    assert int(seller.json("balance")["coins"]) == START + 95
    assert int(buyer.json("balance")["coins"]) == START - 100
    owned = {e["copy"]["copyId"] for e in buyer.json("collection")["entries"]}
    assert second["copyId"] in owned and first["copyId"] not in owned


async def test_a_listing_lasts_up_to_48_hours_to_the_nanosecond(api: Any) -> None:
    """Found from outside: 48 h and 1 ns was listed (read as 48 h), and a refusal named a
    rounded value: 59.9999999 s was "not 60 seconds", 48 h and 1 us "not 172800"."""
    seller = await join(api)
    first = next(iter(await collection(seller)))
    for seconds, nanos, named in (
        (48 * 3600, 1, "172800.000000001"),
        (48 * 3600, 1_000, "172800.000001"),
        (59, 999_999_900, "59.9999999"),
    ):
        asked = g.CreateListingRequest(
            request_id=uuid4().hex,
            copy_id=first,
            price=120,
            duration=Duration(seconds=seconds, nanos=nanos),
        )
        code, details = await code_of(seller.call("CreateListing", asked))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        assert f"not {named} seconds" in details, details
    assert not (await collection(seller))[first].HasField("lock")
    exact = Duration(seconds=48 * 3600)
    listed = await seller.call(
        "CreateListing",
        g.CreateListingRequest(request_id=uuid4().hex, copy_id=first, price=120, duration=exact),
    )
    assert on_sale_for(listed.listing) == timedelta(hours=48)


async def test_a_request_id_reused_for_a_call_fingerprinted_alike_is_invalid_argument(
    api: Any,
) -> None:
    """Found from outside: a CreateListing (copy X, price 5) and, under the same request
    id, a ChooseTradeCard (trade X, copy "5") or a PickDraftCard (draft X, card "5")
    fingerprint alike: the second read the listing's result as its own and answered
    UNAVAILABLE ("retry"), which no retry ever cures."""
    seller = await join(api)
    first = next(iter(await collection(seller)))
    used = uuid4().hex
    listed = await seller.call(
        "CreateListing", g.CreateListingRequest(request_id=used, copy_id=first, price=5)
    )
    for method, request in (
        (
            "ChooseTradeCard",
            g.ChooseTradeCardRequest(request_id=used, trade_id=first, copy_ids=["5"]),
        ),
        (
            "PickDraftCard",
            g.PickDraftCardRequest(request_id=used, draft_id=first, draft_card_id="5"),
        ),
    ):
        code, details = await code_of(seller.call(method, request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (method, code, details)
        assert "already used for a different request" in details, details
    mine = await seller.call("ListMyListings", g.ListMyListingsRequest())
    assert [x.listing_id for x in mine.listings] == [listed.listing.listing_id]


async def test_a_saved_deck_names_a_card_sold_since_by_its_character(api: Any) -> None:
    """Found from outside: a deck that lost two cards to a trade listed "copy 4124db6a,
    copy ef468272 are not in your collection" and refused Practice in the same words,
    ids no screen shows. Sold on the Auction House, the card is named by its character."""
    seller, buyer = await join(api), await join(api)
    mine = await collection(seller)
    five = list(mine)[:5]
    saved = await seller.call(
        "SaveDeck", g.SaveDeckRequest(request_id=uuid4().hex, name="Sold", copy_ids=five)
    )
    listing = (await create(seller, five[0], 10)).listing
    await buyer.call(
        "BuyListing", g.BuyListingRequest(request_id=uuid4().hex, listing_id=listing.listing_id)
    )
    said = f"{mine[five[0]].copy.character.name} ({five[0][:8]}) is not in your collection"
    decks = (await seller.call("ListDecks", g.ListDecksRequest())).decks
    (deck,) = [d for d in decks if d.deck_id == saved.deck.deck_id]
    assert [v.message for v in deck.violations] == [said], deck
    code, details = await code_of(
        seller.call(
            "StartPractice",
            g.StartPracticeRequest(
                request_id=uuid4().hex,
                origin_mode=pb.MODE_UNRANKED,
                bot_level=pb.BOT_LEVEL_EASY,
                deck=pb.DeckChoice(deck_id=deck.deck_id),
            ),
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and said in details, details
