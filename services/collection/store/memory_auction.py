"""The Auction House's read side in memory: the same answers as ``reads_auction.py``
(held to it by ``tests/test_auction_listings.py`` and ``test_auction_purchases.py``,
which run on both adapters)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from services.collection.domain.auction import AuctionQuery, Listing, ListingStatus

if TYPE_CHECKING:
    from services.collection.store.memory_tables import Tables


class MemoryAuctionReads:
    tables: Tables

    async def listing(self, listing_id: str) -> Listing | None:
        return self.tables.listings.get(listing_id)

    async def browse(self, query: AuctionQuery, limit: int) -> list[Listing]:
        found = [x for x in self.tables.listings.values() if query.matches(x)]
        return query.sorted(found)[:limit]

    async def listings_of(
        self, seller_id: str, limit: int, before: tuple[datetime, str] | None = None
    ) -> list[Listing]:
        mine = [
            x
            for x in self.tables.listings.values()
            if x.seller_id == seller_id
            and (before is None or (x.created_at, x.listing_id) < before)
        ]
        mine.sort(key=lambda x: (x.created_at, x.listing_id), reverse=True)
        return mine[:limit]

    async def auction_violations(self) -> int:
        t, found = self.tables, 0
        for x in t.listings.values():
            if x.status is ListingStatus.OPEN:
                lock = t.locks.get(x.copy.copy_id)
                owner = t.copies[x.copy.copy_id][0].owner_id
                found += owner != x.seller_id or lock is None or lock[1].id != x.listing_id
            elif x.status is ListingStatus.SOLD:
                found += x.buyer_id in ("", x.seller_id)
        for _, holder, _ in t.locks.values():
            listing = t.listings.get(holder.id) if holder.kind.value == "listing" else None
            found += holder.kind.value == "listing" and (
                listing is None or listing.status is not ListingStatus.OPEN
            )
        return found

    async def next_due_listing(self) -> datetime | None:
        return min(
            (x.expires_at for x in self.tables.listings.values() if x.status is ListingStatus.OPEN),
            default=None,
        )
