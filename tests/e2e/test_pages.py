"""The public list RPCs page and filter as their contract says, through the TLS gateway
on real PostgreSQL and NATS: a walk of small pages is the brute-force filter of the whole
list, in the documented order, also across ties (one price on many listings) and while
items come and go between pages (no item twice, none that stayed missed); a page is at
most 200; a negative size or a forged page token is INVALID_ARGUMENT naming the field,
never INTERNAL (which the gateway passes on as UNAVAILABLE, "retry", for a request that
can never succeed)."""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from services.collection.tests.process import ADMIN
from tests.e2e.races.race_players import code_of
from tests.e2e.sessions import Player, join

pytestmark = pytest.mark.integration


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


LADDER = pb.LadderKey(ladder=pb.LADDER_RANKED)
LISTS: dict[str, Callable[[str], Message]] = {
    "ListCatalog": lambda t: g.ListCatalogRequest(page_token=t),
    "ListCollection": lambda t: g.ListCollectionRequest(page_token=t),
    "ListDecks": lambda t: g.ListDecksRequest(page_token=t),
    "ListBoosterDraws": lambda t: g.ListBoosterDrawsRequest(page_token=t),
    "ListServerSeeds": lambda t: g.ListServerSeedsRequest(page_token=t),
    "ListMyListings": lambda t: g.ListMyListingsRequest(page_token=t),
    "ListRatingHistory": lambda t: g.ListRatingHistoryRequest(ladder=LADDER, page_token=t),
}
FORGED = [
    "not-a-token",
    "-1",
    "²",  # a digit to str.isdigit, not to int()
]


@pytest.mark.parametrize("rpc", sorted(LISTS))
async def test_a_forged_page_token_is_invalid_argument_on_every_list(api: Any, rpc: str) -> None:
    me = await join(api)
    wrong = []
    for token in FORGED:
        code, details = await code_of(me.call(rpc, LISTS[rpc](token)))
        # OK: a token that happens to be well formed for this list
        if code != grpc.StatusCode.OK and (
            code != grpc.StatusCode.INVALID_ARGUMENT or "page_token" not in details
        ):
            wrong.append((token, code.name, details))
    assert not wrong, wrong


def b64(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode()


UTC_OUT = ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"]
"""Times whose offset moves them out of years 1 to 9999 in UTC, as PostgreSQL compares."""
DRAW_KEYS = ["d", "x|d", "-1|d", "²|d", "01|d", "2147483648|d", "1|", "1|a\x00b"]
"""A draw cursor's (counter|draw_id): none, not a number, not as written, past a PostgreSQL
integer, no id, a NUL. "2" (an offset, as tokens were before) is no cursor either."""
KEYED = [b64("2024-01-01T00:00:00+00:00|a\x00b"), b64("2024-01-01T00:00:00|a")]
KEYED += [b64(f"{u}|a") for u in UTC_OUT]
"""A (time|key) cursor with a NUL in its key, a time without its zone, a time out of range."""
CURSORS: dict[str, tuple[Callable[[str], Message], list[str]]] = {
    "ListAuction": (
        lambda t: g.ListAuctionRequest(page_token=t, order=pb.AUCTION_ORDER_CHEAPEST),
        [
            b64('[1e999, "2024-01-01T00:00:00+00:00", "x"]'),  # a price of infinity
            b64('[1, "2024-01-01T00:00:00+00:00", "a\\u0000b"]'),  # NUL: PostgreSQL fails
            *(b64(f'[1, "{u}", "x"]') for u in UTC_OUT),
        ],
    ),
    "ListTables": (lambda t: g.ListTablesRequest(page_token=t), KEYED),
    "ListDecks": (lambda t: g.ListDecksRequest(page_token=t), KEYED),
    "ListServerSeeds": (lambda t: g.ListServerSeedsRequest(page_token=t), ["2", *KEYED]),
    "ListBoosterDraws": (
        lambda t: g.ListBoosterDrawsRequest(page_token=t),
        [
            "2",
            *(b64(f"2024-01-01T00:00:00+00:00|{k}") for k in DRAW_KEYS),
            b64(f"{UTC_OUT[1]}|1|d"),
        ],
    ),
}


@pytest.mark.parametrize("rpc", sorted(CURSORS))
async def test_a_forged_keyset_cursor_is_invalid_argument(api: Any, rpc: str) -> None:
    me = await join(api)
    request, forged = CURSORS[rpc]
    for token in forged:
        code, details = await code_of(me.call(rpc, request(token)))
        assert (code, "page_token" in str(details)) == (grpc.StatusCode.INVALID_ARGUMENT, True), (
            token,
            details,
        )


# ---- walks of small pages against the brute force ------------------------------------


async def grant(backend: Stack, player: Player, characters: list[str]) -> list[pb.OwnedCopy]:
    """Copies of these characters an operator granted the player (GrantCopies)."""
    async with grpc.aio.insecure_channel(backend.backend.address("collection")) as channel:
        reply = await collection_pb2_grpc.CollectionServiceStub(channel).GrantCopies(
            c.CollectionServiceGrantCopiesRequest(
                request_id=uuid4().hex, player_id=player.id, character_ids=characters
            ),
            metadata=(("authorization", f"Bearer {ADMIN}"),),
            timeout=20,
        )
    return list(reply.copies)


async def walk(
    player: Player, rpc: str, request: Any, field: str, between: Any = None
) -> list[Any]:
    """Every item of every page, in order; ``between(n)`` runs after the n-th page."""
    found: list[Any] = []
    token, n = "", 0
    while True:
        request.page_token = token
        reply = await player.call(rpc, request)
        found.extend(getattr(reply, field))
        token, n = reply.next_page_token, n + 1
        if not token:
            return found
        if between is not None:
            await between(n)


async def create(p: Player, copy_id: str, price: int) -> pb.Listing:
    request = g.CreateListingRequest(request_id=uuid4().hex, copy_id=copy_id, price=price)
    return (await p.call("CreateListing", request)).listing  # type: ignore[no-any-return]


async def buy(p: Player, listing_id: str) -> None:
    await p.call("BuyListing", g.BuyListingRequest(request_id=uuid4().hex, listing_id=listing_id))


def when(x: pb.Listing) -> float:
    return x.create_time.ToMicroseconds() / 1e6


def holds(f: pb.AuctionFilter, x: pb.Listing) -> bool:
    """The filter by brute force, as common.proto words it."""
    holo = {pb.HOLO_FILTER_HOLO: True, pb.HOLO_FILTER_PLAIN: False}.get(f.holo)
    ch = x.copy.character
    return (
        (not f.character_id or ch.character_id == f.character_id)
        and (not f.stars or ch.stars in f.stars)
        and (not f.element or ch.element == f.element)
        and (not f.elements or ch.element in f.elements)
        and (holo is None or x.copy.holo == holo)
        and (not f.min_price or x.price >= f.min_price)
        and (not f.max_price or x.price <= f.max_price)
    )


def in_order(order: pb.AuctionOrder.ValueType, found: list[pb.Listing]) -> bool:
    """Newest first, or cheapest first and the oldest of a price first."""
    if order == pb.AUCTION_ORDER_CHEAPEST:
        keys: list[Any] = [(x.price, when(x)) for x in found]
    else:
        keys = [-when(x) for x in found]
    return keys == sorted(keys)


PRICES = [3, 7, 7, 7, 12]  # ties on a price on every page of three


async def test_every_auction_filter_and_order_pages_as_the_brute_force_does(
    api: Any, backend: Stack
) -> None:
    viewer = await join(api)
    catalog = (await viewer.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    chosen = [x.character_id for x in catalog if x.stars <= 3][::4][:12]
    sellers = [await join(api), await join(api)]
    for seller in sellers:
        for i, copy in enumerate(await grant(backend, seller, chosen)):
            await create(seller, copy.copy_id, PRICES[i % len(PRICES)])
    everything = await walk(viewer, "ListAuction", g.ListAuctionRequest(page_size=200), "listings")
    assert len(everything) >= 24
    some = everything[0].copy.character
    filters = [
        pb.AuctionFilter(),
        pb.AuctionFilter(character_id=some.character_id),
        pb.AuctionFilter(stars=[1]),
        pb.AuctionFilter(stars=[2, 3]),
        pb.AuctionFilter(element=some.element or pb.ELEMENT_FIRE),
        pb.AuctionFilter(elements=[pb.ELEMENT_UNSPECIFIED]),
        pb.AuctionFilter(elements=[pb.ELEMENT_UNSPECIFIED, some.element or pb.ELEMENT_FIRE]),
        pb.AuctionFilter(holo=pb.HOLO_FILTER_HOLO),
        pb.AuctionFilter(holo=pb.HOLO_FILTER_PLAIN),
        pb.AuctionFilter(min_price=7, max_price=7),
        pb.AuctionFilter(min_price=4),
        pb.AuctionFilter(max_price=7),
        pb.AuctionFilter(min_price=4, max_price=11, stars=[1, 2], holo=pb.HOLO_FILTER_PLAIN),
    ]
    for f, order in itertools.product(
        filters, [pb.AUCTION_ORDER_NEWEST, pb.AUCTION_ORDER_CHEAPEST]
    ):
        request = g.ListAuctionRequest(filter=f, order=order, page_size=3)
        found = await walk(viewer, "ListAuction", request, "listings")
        ids = [x.listing_id for x in found]
        assert len(ids) == len(set(ids)), (f, order)
        assert set(ids) == {x.listing_id for x in everything if holds(f, x)}, (f, order)
        assert in_order(order, found), (f, order)


async def test_an_auction_walk_sees_every_survivor_once_while_listings_come_and_go(
    api: Any, backend: Stack
) -> None:
    seller, buyer, viewer = await join(api), await join(api), await join(api)
    catalog = (await viewer.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    copies = await grant(backend, seller, [x.character_id for x in catalog if x.stars == 1][:24])
    for order in (pb.AUCTION_ORDER_NEWEST, pb.AUCTION_ORDER_CHEAPEST):
        batch, copies = copies[:10], copies[10:]
        listed = {
            (await create(seller, x.copy_id, PRICES[i % 5])).listing_id for i, x in enumerate(batch)
        }
        seen: list[str] = []
        gone: set[str] = set()
        token = ""
        while True:
            request = g.ListAuctionRequest(order=order, page_size=2, page_token=token)
            reply = await viewer.call("ListAuction", request)
            seen.extend(x.listing_id for x in reply.listings)
            token = reply.next_page_token
            if not token:
                break
            if not gone and listed & set(seen):  # sell one ahead, cancel one behind, add one
                ahead = sorted(listed - set(seen))[0]
                await buy(buyer, ahead)
                behind = next(i for i in seen if i in listed)
                cancel = g.CancelListingRequest(request_id=uuid4().hex, listing_id=behind)
                await seller.call("CancelListing", cancel)
                gone |= {ahead, behind}
                await create(seller, copies.pop().copy_id, 7)
        assert len(seen) == len(set(seen)), order
        assert listed - gone <= set(seen), (order, listed - gone - set(seen))


async def test_a_collection_walk_sees_every_copy_kept_once_while_copies_are_sold(
    api: Any, backend: Stack
) -> None:
    seller, buyer = await join(api), await join(api)
    catalog = (await seller.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    await grant(backend, seller, [x.character_id for x in catalog if x.stars == 1][:12])
    first = (await seller.call("ListCollection", g.ListCollectionRequest(page_size=4))).entries
    listings = [(await create(seller, x.copy.copy_id, 5)).listing_id for x in first[:2]]
    before = {
        x.copy.copy_id
        for x in await walk(
            seller, "ListCollection", g.ListCollectionRequest(page_size=200), "entries"
        )
    }

    async def sell(n: int) -> None:  # a copy of the first page leaves the collection
        if n == 1:
            await buy(buyer, listings.pop())

    found = await walk(
        seller, "ListCollection", g.ListCollectionRequest(page_size=4), "entries", sell
    )
    ids = [x.copy.copy_id for x in found]
    kept = before - {first[1].copy.copy_id}
    assert len(ids) == len(set(ids))
    assert kept <= set(ids), kept - set(ids)


async def test_my_listings_walk_sees_each_listing_once_while_one_is_added(
    api: Any, backend: Stack
) -> None:
    seller = await join(api)
    catalog = (await seller.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    copies = await grant(backend, seller, [x.character_id for x in catalog if x.stars == 1][:8])
    listed = {(await create(seller, x.copy_id, 5)).listing_id for x in copies[:6]}

    async def add(n: int) -> None:
        if n == 1:
            await create(seller, copies[-1].copy_id, 5)

    found = await walk(
        seller, "ListMyListings", g.ListMyListingsRequest(page_size=2), "listings", add
    )
    ids = [x.listing_id for x in found]
    assert len(ids) == len(set(ids)), ids
    assert listed <= set(ids)


async def test_a_deck_walk_sees_every_deck_kept_once_while_one_is_deleted(
    api: Any, backend: Stack
) -> None:
    me = await join(api)
    catalog = (await me.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    copies = await grant(backend, me, [x.character_id for x in catalog if x.stars == 1][:5])
    decks = []
    for n in range(5):
        save = g.SaveDeckRequest(
            request_id=uuid4().hex, name=f"d{n}", copy_ids=[x.copy_id for x in copies]
        )
        decks.append((await me.call("SaveDeck", save)).deck.deck_id)

    async def delete(n: int) -> None:  # the newest deck, read on the first page, goes
        if n == 1:
            await me.call(
                "DeleteDeck", g.DeleteDeckRequest(request_id=uuid4().hex, deck_id=decks[-1])
            )

    found = await walk(me, "ListDecks", g.ListDecksRequest(page_size=2), "decks", delete)
    ids = [x.deck_id for x in found]
    assert len(ids) == len(set(ids)), ids
    assert set(decks[:-1]) <= set(ids), set(decks[:-1]) - set(ids)


async def open_booster(p: Player) -> pb.BoosterDraw:
    reply = await p.call("OpenBooster", g.OpenBoosterRequest(request_id=uuid4().hex))
    return reply.draw  # type: ignore[no-any-return]


async def test_a_booster_draw_walk_sees_each_draw_once_while_one_is_opened(
    api: Any, backend: Stack
) -> None:
    me = await join(api)  # the starter's coins buy three boosters
    opened = [(await open_booster(me)).draw_id for _ in range(2)]

    async def open_one(n: int) -> None:  # a new draw goes ahead of the first page
        if n == 1:
            opened.append((await open_booster(me)).draw_id)

    found = await walk(
        me, "ListBoosterDraws", g.ListBoosterDrawsRequest(page_size=1), "draws", open_one
    )
    assert [x.draw_id for x in found] == opened[1::-1]  # the new one behind the cursor
    seed = found[0].seed_id  # all three from the seed in force, newest first
    found = await walk(
        me, "ListBoosterDraws", g.ListBoosterDrawsRequest(seed_id=seed, page_size=2), "draws"
    )
    assert [x.draw_id for x in found] == opened[::-1]


async def test_a_server_seed_walk_sees_each_seed_once_while_the_seed_rotates(
    api: Any, backend: Stack
) -> None:
    me = await join(api)

    async def rotate() -> str:
        request = g.SetClientSeedRequest(request_id=uuid4().hex, client_seed=uuid4().hex)
        return (await me.call("SetClientSeed", request)).commitment.seed_id  # type: ignore[no-any-return]

    committed = [await rotate() for _ in range(3)]

    async def rotate_once(n: int) -> None:  # a new seed goes ahead of the first page
        if n == 1:
            committed.append(await rotate())

    found = await walk(
        me, "ListServerSeeds", g.ListServerSeedsRequest(page_size=1), "seeds", rotate_once
    )
    ids = [x.seed_id for x in found]
    assert len(ids) == len(set(ids)), ids
    assert set(committed[:3]) <= set(ids), set(committed[:3]) - set(ids)
    assert committed[3] not in ids  # committed behind the cursor: the next walk shows it


async def test_a_page_is_at_most_200_and_a_negative_size_is_refused(
    api: Any, backend: Stack
) -> None:
    me = await join(api)
    catalog = (await me.call("ListCatalog", g.ListCatalogRequest(page_size=200))).characters
    await grant(backend, me, [catalog[i % len(catalog)].character_id for i in range(230)])
    page = await me.call("ListCollection", g.ListCollectionRequest(page_size=1000))
    assert (len(page.entries), bool(page.next_page_token)) == (200, True)
    assert page.total_size >= 230
    for rpc, request in LISTS.items():
        request_ = request("")
        request_.page_size = -1  # type: ignore[attr-defined]
        code, details = await code_of(me.call(rpc, request_))
        assert (code, "page_size" in str(details)) == (grpc.StatusCode.INVALID_ARGUMENT, True), rpc
