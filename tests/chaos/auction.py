"""Auction House traffic during the chaos run, and its invariants (issue 21).

``AuctionTraffic``: a few traders of their own (not the load generator's players) list
free copies at random prices, buy the cheapest listings they can afford from the
others, and cancel some of their own, through the TLS gateway while the faults happen.
A call refused for an outage (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED) is
retried with the same request id, as a resilient client does: the service answers a
repeat with its first result, never acting twice.

``coins_conserved``: from the collection's log alone, the coins the players hold are
exactly ``grants - spent - fees``: every coin credited other than a sale's proceeds,
minus every coin debited other than a purchase, minus the fees the sales burned; each
sale debited its buyer the price once and credited its seller price - fee once, the fee
5% of the price rounded down, and no listing sold twice.

``auction_consistent``: after the drain, every open listing's copy is locked by it and
still its seller's, and no listing lock outlives its listing.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from tests.chaos.invariants import Check, _t

PASSWORD = "auction-trader-password"
RETRY = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
FEE_PERCENT = 5


@dataclass
class Trader:
    stub: Any
    name: str
    rng: random.Random
    counts: Counter[str]
    player_id: str = ""
    token: str = ""

    async def call(self, rpc: str, request: Any, deadline: float) -> Any | None:
        """The answer, retrying an outage with the same request until ``deadline``;
        None for a refusal (counted by its status)."""
        pause = 0.1
        while True:
            try:
                meta = (("authorization", f"Bearer {self.token}"),)
                return await getattr(self.stub, rpc)(request, metadata=meta, timeout=5)
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if code not in RETRY or time.monotonic() > deadline:
                    self.counts[f"{rpc}:{code.name}"] += 1
                    return None
                self.counts["retried"] += 1
            await asyncio.sleep(pause * (0.5 + self.rng.random()))
            pause = min(pause * 2, 2.0)

    async def sign_up(self, deadline: float) -> None:
        request = g.RegisterRequest(
            request_id=uuid4().hex, player_name=self.name, password=PASSWORD
        )
        while not self.player_id and time.monotonic() < deadline:
            reply = await self.call("Register", request, deadline)
            if reply is not None:
                self.player_id, self.token = reply.player.player_id, reply.tokens.access_token
            else:  # refused (a repeat after the gateway lost the first answer): log in
                login = g.LoginRequest(player_name=self.name, password=PASSWORD)
                reply = await self.call("Login", login, deadline)
                if reply is not None:
                    self.player_id, self.token = reply.player.player_id, reply.tokens.access_token

    async def step(self, deadline: float) -> None:
        roll = self.rng.random()
        if roll < 0.4:
            await self.sell(deadline)
        elif roll < 0.85:
            await self.buy(deadline)
        else:
            await self.cancel(deadline)

    async def sell(self, deadline: float) -> None:
        mine = await self.call("ListCollection", g.ListCollectionRequest(page_size=200), deadline)
        free = [e.copy.copy_id for e in mine.entries if not e.HasField("lock")] if mine else []
        if not free:
            return
        request = g.CreateListingRequest(
            request_id=uuid4().hex, copy_id=self.rng.choice(free), price=self.rng.randint(1, 120)
        )
        if await self.call("CreateListing", request, deadline) is not None:
            self.counts["listed"] += 1

    async def buy(self, deadline: float) -> None:
        page = await self.call(
            "ListAuction",
            g.ListAuctionRequest(order=pb.AUCTION_ORDER_CHEAPEST, page_size=20),
            deadline,
        )
        offers = [x for x in page.listings if x.seller_player_id != self.player_id] if page else []
        if not offers:
            return
        choice = self.rng.choice(offers[:5])  # the cheap end, where buyers collide
        request = g.BuyListingRequest(request_id=uuid4().hex, listing_id=choice.listing_id)
        if await self.call("BuyListing", request, deadline) is not None:
            self.counts["bought"] += 1

    async def cancel(self, deadline: float) -> None:
        mine = await self.call("ListMyListings", g.ListMyListingsRequest(page_size=50), deadline)
        open_ = [x for x in mine.listings if x.status == pb.LISTING_STATUS_OPEN] if mine else []
        if not open_:
            return
        request = g.CancelListingRequest(
            request_id=uuid4().hex, listing_id=self.rng.choice(open_).listing_id
        )
        if await self.call("CancelListing", request, deadline) is not None:
            self.counts["cancelled"] += 1


@dataclass
class AuctionTraffic:
    gateway: str
    root_cert: bytes
    seconds: float
    traders: int = 6
    seed: int = 21
    counts: Counter[str] = field(default_factory=Counter)

    async def run(self) -> Counter[str]:
        credentials = grpc.ssl_channel_credentials(root_certificates=self.root_cert)
        options = (("grpc.max_reconnect_backoff_ms", 2000),)
        prefix = f"ah{uuid4().hex[:6]}"
        async with grpc.aio.secure_channel(self.gateway, credentials, options=options) as ch:
            stub = gateway_pb2_grpc.TriadGatewayStub(ch)
            traders = [
                Trader(stub, f"{prefix}{n:02d}", random.Random(self.seed + n), self.counts)
                for n in range(self.traders)
            ]
            end = time.monotonic() + self.seconds
            await asyncio.gather(*(self._trade(t, end) for t in traders))
        return self.counts

    async def _trade(self, trader: Trader, end: float) -> None:
        await trader.sign_up(end)
        while trader.player_id and time.monotonic() < end:
            with contextlib.suppress(Exception):  # keep trading whatever one call did
                await trader.step(end + 20)
            await asyncio.sleep(0.05 + 0.15 * trader.rng.random())


async def coins_conserved(conn: Any, schema: str) -> Check:
    """coins held = grants - spent - fees, from the collection's log (see the module)."""
    check = Check("coins held equal grants minus spent minus auction fees")
    credited: dict[tuple[str, str, str], int] = {}
    debited: dict[tuple[str, str, str], int] = {}
    grants = spent = fees = 0
    sales: dict[str, ev.ListingSold] = {}
    rows = await conn.fetch(
        f"SELECT type, data FROM {_t(schema, 'events')} WHERE type = ANY($1::text[]) "
        "ORDER BY tx_id, seq",
        ["triad.v1.CurrencyCredited", "triad.v1.CurrencyDebited", "triad.v1.ListingSold"],
    )
    sale_in, sale_out = pb.CURRENCY_REASON_AUCTION_SALE, pb.CURRENCY_REASON_AUCTION_PURCHASE
    for row in rows:
        if row["type"] == "triad.v1.ListingSold":
            sold = ev.ListingSold.FromString(row["data"])
            if sold.listing_id in sales:
                check.problem(f"listing {sold.listing_id} sold twice")
            sales[sold.listing_id] = sold
            fees += sold.fee
            if sold.fee != sold.price * FEE_PERCENT // 100:
                check.problem(f"listing {sold.listing_id}: fee {sold.fee} of price {sold.price}")
            continue
        kind = (
            ev.CurrencyCredited
            if row["type"] == "triad.v1.CurrencyCredited"
            else ev.CurrencyDebited
        )
        money = kind.FromString(row["data"])
        key = (money.player_id, str(money.reason), money.reference_id)
        book = credited if kind is ev.CurrencyCredited else debited
        if money.reason in (sale_in, sale_out) and key in book:
            check.problem(f"{key} paid twice")
        book[key] = book.get(key, 0) + money.amount
        if kind is ev.CurrencyCredited and money.reason != sale_in:
            grants += money.amount
        elif kind is ev.CurrencyDebited and money.reason != sale_out:
            spent += money.amount
    for listing_id, sold in sales.items():
        paid = debited.pop((sold.buyer_player_id, str(sale_out), listing_id), None)
        got = credited.pop((sold.seller_player_id, str(sale_in), listing_id), None)
        if paid != sold.price or got != sold.price - sold.fee:
            check.problem(
                f"listing {listing_id} sold for {sold.price} (fee {sold.fee}): buyer paid "
                f"{paid}, seller got {got}"
            )
    for (player, reason, ref), amount in {**credited, **debited}.items():
        if int(reason) in (sale_in, sale_out):
            check.problem(f"{player} moved {amount} coins for listing {ref}, never sold")
    held = int(await conn.fetchval(f"SELECT coalesce(sum(coins), 0) FROM {_t(schema, 'players')}"))
    check.counts = {
        "coins_held": held,
        "grants": grants,
        "spent": spent,
        "fees": fees,
        "sales": len(sales),
    }
    if held != grants - spent - fees:
        check.problem(f"{held} coins held, {grants} granted - {spent} spent - {fees} fees")
    return check


async def auction_consistent(conn: Any, schema: str) -> Check:
    """Every open listing locked by itself and its seller's; no lock without its listing."""
    check = Check("open listings hold their copies, and only they")
    listings, copies, locks = (_t(schema, n) for n in ("listings", "copies", "locks"))
    rows = await conn.fetch(
        f"SELECT l.listing_id FROM {listings} l JOIN {copies} c USING (copy_id) "
        "WHERE l.status = 'open' AND (c.owner_id <> l.seller_id OR NOT EXISTS ("
        f"SELECT 1 FROM {locks} k WHERE k.holder_kind = 'listing' "
        "AND k.holder_id = l.listing_id AND k.copy_id = l.copy_id))"
    )
    for row in rows:
        check.problem(f"open listing {row['listing_id']} does not hold its seller's copy")
    rows = await conn.fetch(
        f"SELECT k.holder_id FROM {locks} k WHERE k.holder_kind = 'listing' AND NOT EXISTS "
        f"(SELECT 1 FROM {listings} l WHERE l.listing_id = k.holder_id AND l.status = 'open')"
    )
    for row in rows:
        check.problem(f"a lock of listing {row['holder_id']}, which is not open")
    counts = await conn.fetch(f"SELECT status, count(*) AS n FROM {listings} GROUP BY status")
    check.counts = {r["status"]: int(r["n"]) for r in counts}
    return check
