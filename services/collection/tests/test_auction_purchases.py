"""The Auction House (RULES.md 15) on both repository adapters: a purchase moves coins and
copy exactly once with the fee burned, bad purchases and lost races change nothing, the
seller is pushed the outcome, and browsing filters, orders and pages.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from triad.v1 import common_pb2 as pb

from services.collection import handlers_auction
from services.collection.domain import auction
from services.collection.domain.auction import AuctionOrder, AuctionQuery, ListingStatus
from services.collection.handlers import Context
from services.collection.schema import NOTIFY_CHANNEL
from services.collection.server.pushes import Change, Changed
from services.collection.store import Repository, Store
from services.collection.tests.auctions import coins, listed, total_coins
from services.collection.tests.builders import Clock
from services.collection.tests.helpers import (
    assert_copies_come_only_from_grants_and_boosters,
    key,
    owners,
    refused,
    starter,
)
from services.collection.tests.test_pushes import heard
from services.platform.errors import DomainError, FailedPrecondition


async def test_a_purchase_moves_coins_and_the_copy_once_and_burns_the_fee(ctx: Context) -> None:
    mine = await starter(ctx, "s")
    await starter(ctx, "b")
    before = await total_coins(ctx, "s", "b")
    sold_copy = (await ctx.store.copies("s"))[mine[3]]
    listing_id = await listed(ctx, "s", mine[3], 250)
    first = await handlers_auction.buy_listing(ctx, key("b", "buy"), "b", listing_id)
    assert first.balance.coins == 300 - 250
    # A retry answers the first result and pays nothing again.
    again = await handlers_auction.buy_listing(ctx, key("b", "buy"), "b", listing_id)
    assert again == first
    fee = 250 * 5 // 100
    assert (await coins(ctx, "b"), await coins(ctx, "s")) == (50, 300 + 250 - fee)
    assert before - await total_coins(ctx, "s", "b") == fee == 12
    bought = (await ctx.store.copies("b"))[mine[3]]
    assert (bought.holo, bought.holo_side, bought.character) == (
        sold_copy.holo,
        sold_copy.holo_side,
        sold_copy.character,
    )
    assert bought.source.value == "auction"
    assert await ctx.store.locks([mine[3]]) == {}
    found = await handlers_auction.listing(ctx, listing_id)
    assert (found.status, found.buyer_id) == (ListingStatus.SOLD, "b")
    # Sold a moment ago: a second buyer is refused and pays nothing.
    await starter(ctx, "c")
    await refused(
        ctx.store,
        handlers_auction.buy_listing(ctx, key("c", "buy"), "c", listing_id),
        FailedPrecondition,
        "sold",
    )
    await refused(
        ctx.store,
        handlers_auction.cancel_listing(ctx, key("s", "cancel"), "s", listing_id),
        FailedPrecondition,
        "sold",
    )
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)


async def test_own_listing_no_coins_and_a_stranger_cancelling_are_refused(ctx: Context) -> None:
    mine = await starter(ctx, "s")
    await starter(ctx, "b")
    listing_id = await listed(ctx, "s", mine[0], 301)
    await refused(
        ctx.store,
        handlers_auction.buy_listing(ctx, key("s", "own"), "s", listing_id),
        FailedPrecondition,
        "your own",
    )
    await refused(
        ctx.store,
        handlers_auction.buy_listing(ctx, key("b", "poor"), "b", listing_id),
        FailedPrecondition,
        "balance too low",
    )
    await refused(
        ctx.store,
        handlers_auction.cancel_listing(ctx, key("b", "c"), "b", listing_id),
        DomainError,
        "not yours",
    )
    await refused(
        ctx.store,
        handlers_auction.buy_listing(ctx, key("b", "none"), "b", "no-such"),
        DomainError,
        "no listing",
    )


async def test_a_cancel_and_a_purchase_racing_close_the_listing_once(ctx: Context) -> None:
    mine = await starter(ctx, "s")
    await starter(ctx, "b")
    listing_id = await listed(ctx, "s", mine[0], 100)
    results = await asyncio.gather(
        handlers_auction.buy_listing(ctx, key("b", "buy"), "b", listing_id),
        handlers_auction.cancel_listing(ctx, key("s", "c"), "s", listing_id),
        return_exceptions=True,
    )
    failed = [r for r in results if isinstance(r, BaseException)]
    assert len(failed) == 1 and isinstance(failed[0], FailedPrecondition), results
    found = await handlers_auction.listing(ctx, listing_id)
    owner = (await owners(ctx.store))[mine[0]]
    if found.status is ListingStatus.SOLD:
        assert owner == "b" and await total_coins(ctx, "s", "b") == 600 - 5
    else:
        assert owner == "s" and await total_coins(ctx, "s", "b") == 600
    assert await ctx.store.locks([mine[0]]) == {}


async def test_twenty_buyers_racing_for_one_listing_one_wins_and_nothing_is_made_or_lost(
    ctx: Context,
) -> None:
    mine = await starter(ctx, "s")
    buyers = [f"b{n:02}" for n in range(20)]
    for b in buyers:
        await starter(ctx, b)
    before_owners = await owners(ctx.store)
    listing_id = await listed(ctx, "s", mine[0], 100)
    results = await asyncio.gather(
        *(handlers_auction.buy_listing(ctx, key(b, "buy"), b, listing_id) for b in buyers),
        return_exceptions=True,
    )
    won = [b for b, r in zip(buyers, results, strict=True) if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1, results
    assert all(isinstance(r, FailedPrecondition) and "sold" in str(r) for r in lost), lost
    assert await total_coins(ctx, "s", *buyers) == 21 * 300 - 5
    assert await coins(ctx, won[0]) == 200 and await coins(ctx, "s") == 395
    after = await owners(ctx.store)
    assert after == {**before_owners, mine[0]: won[0]}
    await assert_copies_come_only_from_grants_and_boosters(ctx.store)
    assert await ctx.store.auction_violations() == 0


@contextlib.asynccontextmanager
async def notices(store: Repository) -> AsyncIterator[list[str]]:
    """The collection's notice lines heard meanwhile (none in memory: no triggers)."""
    lines: list[str] = []
    if not isinstance(store, Store):
        yield lines
        return

    def heard(*args: Any) -> None:
        lines.append(args[3])

    conn = await store.pool.acquire()
    await conn.add_listener(NOTIFY_CHANNEL, heard)
    try:
        yield lines
    finally:
        await conn.remove_listener(NOTIFY_CHANNEL, heard)
        await store.pool.release(conn)


async def heard_line(store: Repository, lines: list[str], line: str) -> None:
    if isinstance(store, Store):
        for _ in range(200):
            if line in lines:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"no notice {line!r}: {lines}")


async def test_the_seller_is_pushed_the_listing_when_it_sells_or_expires(
    ctx: Context, clock: Clock
) -> None:
    mine = await starter(ctx, "s")
    await starter(ctx, "b")
    listing_id = await listed(ctx, "s", mine[0], 40)
    unsold = await listed(ctx, "s", mine[1], 40, "unsold")
    async with notices(ctx.store) as lines:
        await handlers_auction.buy_listing(ctx, key("b", "buy"), "b", listing_id)
        await heard_line(ctx.store, lines, f"s:listing:{listing_id}")
        clock.advance(48 * 3600)
        assert await handlers_auction.fire_due_listing(ctx)
        await heard_line(ctx.store, lines, f"s:listing:{unsold}")
    sent = await heard(ctx, f"s:listing:{listing_id}", f"s:listing:{unsold}")
    sold, expired = sent.of("s", "listing")
    assert isinstance(sold, pb.Listing) and isinstance(expired, pb.Listing)
    assert (sold.status, sold.buyer_player_id, sold.price, sold.fee) == (
        pb.LISTING_STATUS_SOLD,
        "b",
        40,
        2,
    )
    assert (expired.listing_id, expired.status) == (unsold, pb.LISTING_STATUS_EXPIRED)
    assert Change.of("s", f"listing:{listing_id}") == Change("s", Changed.LISTING, listing_id)


async def test_browse_filters_orders_and_pages_the_open_listings(
    ctx: Context, clock: Clock
) -> None:
    mine = await starter(ctx, "s")
    copies = await ctx.store.copies("s")
    prices = [50, 10, 30, 10, 70, 20]
    ids = []
    for n, price in enumerate(prices):
        ids.append(await listed(ctx, "s", mine[n], price, f"l{n}"))
        clock.advance(1)
    await handlers_auction.cancel_listing(ctx, key("s", "c"), "s", ids[5])
    newest = await handlers_auction.browse(ctx, AuctionQuery(), 10)
    assert [x.listing_id for x in newest] == ids[4::-1]
    cheapest = await handlers_auction.browse(ctx, AuctionQuery(AuctionOrder.CHEAPEST), 10)
    assert [x.price for x in cheapest] == [10, 10, 30, 50, 70]
    assert [x.listing_id for x in cheapest[:2]] == [ids[1], ids[3]]  # ties: oldest first
    pages: list[str] = []
    after = None
    while True:
        query = AuctionQuery(AuctionOrder.CHEAPEST, after=after)
        page = await handlers_auction.browse(ctx, query, 2)
        if not page:
            break
        pages += [x.listing_id for x in page]
        after = auction.cursor_of(page[-1])
    assert pages == [x.listing_id for x in cheapest]
    ranged = await handlers_auction.browse(
        ctx, AuctionQuery(AuctionOrder.CHEAPEST, min_price=20, max_price=50), 10
    )
    assert [x.price for x in ranged] == [30, 50]
    first = copies[mine[0]].character
    by_character = await handlers_auction.browse(ctx, AuctionQuery(character_id=first.id), 10)
    assert ids[0] in [x.listing_id for x in by_character]
    assert all(x.copy.character.id == first.id for x in by_character)
    by_stars = await handlers_auction.browse(ctx, AuctionQuery(stars=(first.stars,)), 10)
    assert by_stars and all(x.copy.character.stars == first.stars for x in by_stars)
    ranks = {x.copy.character.stars for x in newest}
    by_ranks = await handlers_auction.browse(ctx, AuctionQuery(stars=tuple(sorted(ranks))), 10)
    assert [x.listing_id for x in by_ranks] == [x.listing_id for x in newest]
    holo = await handlers_auction.browse(ctx, AuctionQuery(holo=True), 10)
    assert all(x.copy.holo for x in holo)
    plain = await handlers_auction.browse(ctx, AuctionQuery(holo=False), 10)
    assert len(holo) + len(plain) == 5

    def element(x: auction.Listing) -> str:
        return "" if x.copy.character.element is None else x.copy.character.element.value

    for wanted in ({element(newest[0])}, {""}, {"", element(newest[-1])}, {"fire", "ice"}):
        by_element = await handlers_auction.browse(ctx, AuctionQuery(elements=(*wanted,)), 10)
        assert [x.listing_id for x in by_element] == [
            x.listing_id for x in newest if element(x) in wanted
        ], wanted
    mine_listed = await handlers_auction.listings_of(ctx, "s", 10)
    assert [x.listing_id for x in mine_listed] == ids[::-1]
    assert mine_listed[0].status is ListingStatus.CANCELLED


async def test_the_fee_is_five_percent_rounded_down_at_the_price_bounds(ctx: Context) -> None:
    """RULES.md 15: 5% rounded down: 19 coins pay none, 20 pay one; 1 and 1,000,000 sell."""
    assert [auction.fee(p) for p in (1, 19, 20, 39, 40, 1_000_000)] == [0, 0, 1, 1, 2, 50_000]
    mine = await starter(ctx, "s")
    await starter(ctx, "b")
    for n, price in enumerate((1, 19, 20)):
        listing_id = await listed(ctx, "s", mine[n], price, f"l{n}")
        await handlers_auction.buy_listing(ctx, key("b", f"buy{n}"), "b", listing_id)
    assert (await coins(ctx, "s"), await coins(ctx, "b")) == (300 + 1 + 19 + 19, 300 - 40)
