"""The Auction House's read side over PostgreSQL (RULES.md 15): one listing, a browse
page, a seller's listings, the next expiry.

A browse page is a keyset page (``WHERE (sort key) beyond the cursor ORDER BY sort key
LIMIT n``) over the partial indexes of ``schema.py`` (migration 5): each order has one,
alone and after an equality filter on the character, the stars, the element or holo,
so a page reads about ``n`` index entries whatever the number of open listings.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from services.collection.domain.auction import (
    AuctionOrder,
    AuctionQuery,
    Listing,
    ListingStatus,
)
from services.collection.domain.catalog import Catalog
from services.collection.domain.events import CopySource, OwnedCopy
from services.collection.schema import Tables
from services.platform.claims import DueWork, next_due
from services.rules import Side


def listing_deadlines(tables: Tables) -> DueWork:
    """Open listings waiting for their expiry (a closed one's is cleared)."""
    return DueWork(tables.listings, "listing_id")


def keyset(position: tuple[datetime, str] | None) -> tuple[datetime | None, str]:
    """The two arguments of a keyset position (an instant, then an id) in a page query,
    which reads a NULL instant as the first page."""
    return (None, "") if position is None else position


def copy_of(catalog: Catalog, row: Mapping[str, Any], owner: str, key: str) -> OwnedCopy:
    """The copy a row of ``copies`` or of ``listings`` holds, owned by its ``owner``
    column; ``key`` names the row (its id column) should its character be unknown."""
    character = catalog.get(row["character_id"])
    if character is None:
        raise LookupError(f"{key.removesuffix('_id')} {row[key]} is of an unknown character")
    side = row["holo_side"]
    return OwnedCopy(
        row["copy_id"],
        row[owner],
        character,
        row["holo"],
        None if side is None else Side(side),
        CopySource(row["source"]),
        row["acquired_at"],
    )


def listing_of(catalog: Catalog, row: Mapping[str, Any]) -> Listing:
    return Listing(
        row["listing_id"],
        row["seller_id"],
        copy_of(catalog, row, "seller_id", "listing_id"),
        row["price"],
        row["created_at"],
        row["expires_at"],
        ListingStatus(row["status"]),
        row["closed_at"],
        row["buyer_id"] or "",
        1 if row["status"] == "open" else 2,
    )


def browse_sql(table: str, query: AuctionQuery, limit: int) -> tuple[str, list[Any]]:
    """The SQL of one browse page and its arguments."""
    where = ["status = 'open'"]
    args: list[Any] = []

    def arg(value: Any) -> str:
        args.append(value)
        return f"${len(args)}"

    if query.character_id:
        where.append(f"character_id = {arg(query.character_id)}")
    if len(query.stars) == 1:
        where.append(f"stars = {arg(query.stars[0])}")
    elif query.stars:
        where.append(f"stars = ANY({arg(list(query.stars))}::smallint[])")
    if len(query.elements) == 1:
        where.append(f"element = {arg(query.elements[0])}")
    elif query.elements:
        where.append(f"element = ANY({arg(list(query.elements))}::text[])")
    if query.holo is not None:
        where.append(f"holo = {arg(query.holo)}")
    if query.min_price:
        where.append(f"price >= {arg(query.min_price)}")
    if query.max_price:
        where.append(f"price <= {arg(query.max_price)}")
    if query.unexpired_at is not None:
        where.append(f"expires_at > {arg(query.unexpired_at)}")
    after = query.after
    if query.order is AuctionOrder.CHEAPEST:
        order = "price, created_at, listing_id"
        if after is not None:
            key = f"({arg(after.price)}::bigint, {arg(after.created_at)}::timestamptz, "
            where.append(f"(price, created_at, listing_id) > {key}{arg(after.listing_id)})")
    else:
        order = "created_at DESC, listing_id DESC"
        if after is not None:
            key = f"({arg(after.created_at)}::timestamptz, {arg(after.listing_id)})"
            where.append(f"(created_at, listing_id) < {key}")
    sql = f"SELECT * FROM {table} WHERE {' AND '.join(where)} ORDER BY {order} LIMIT {int(limit)}"
    return sql, args


class AuctionReads:
    pool: Any
    catalog: Catalog
    tables: Tables

    async def listing(self, listing_id: str, conn: Any = None) -> Listing | None:
        row = await (conn or self.pool).fetchrow(
            f"SELECT * FROM {self.tables.listings} WHERE listing_id = $1", listing_id
        )
        return None if row is None else listing_of(self.catalog, row)

    async def browse(self, query: AuctionQuery, limit: int) -> list[Listing]:
        """Open listings matching ``query``, in its order, after its cursor."""
        sql, args = browse_sql(self.tables.listings, query, limit)
        return [listing_of(self.catalog, r) for r in await self.pool.fetch(sql, *args)]

    async def listings_of(
        self, seller_id: str, limit: int, before: tuple[datetime, str] | None = None
    ) -> list[Listing]:
        """The seller's listings, open or closed, newest first; only those older than
        ``before`` (a keyset position: created_at, listing_id) if given."""
        rows = await self.pool.fetch(
            f"SELECT * FROM {self.tables.listings} WHERE seller_id = $1 "
            "AND ($3::timestamptz IS NULL OR (created_at, listing_id) < ($3, $4)) "
            "ORDER BY created_at DESC, listing_id DESC LIMIT $2",
            seller_id,
            limit,
            *keyset(before),
        )
        return [listing_of(self.catalog, r) for r in rows]

    async def next_due_listing(self) -> datetime | None:
        """When the earliest open listing expires (None: no listing is open)."""
        return await next_due(self.pool, listing_deadlines(self.tables))

    async def auction_violations(self) -> int:
        """Rows breaking the Auction House's conservation, read in one snapshot (0 when
        all is well): an open listing whose copy is not locked by it or not the seller's,
        a listing's lock without its open listing, a sale without a buyer or to its
        seller. The collection exports it (``triad_auction_conservation_violations``)."""
        t = self.tables
        found = await self.pool.fetchval(
            f"""
            SELECT
              (SELECT count(*) FROM {t.listings} l JOIN {t.copies} c USING (copy_id)
                WHERE l.status = 'open' AND (c.owner_id <> l.seller_id OR NOT EXISTS (
                  SELECT 1 FROM {t.locks} k WHERE k.copy_id = l.copy_id
                    AND k.holder_kind = 'listing' AND k.holder_id = l.listing_id)))
              + (SELECT count(*) FROM {t.locks} k WHERE k.holder_kind = 'listing'
                  AND NOT EXISTS (SELECT 1 FROM {t.listings} l
                    WHERE l.listing_id = k.holder_id AND l.status = 'open'))
              + (SELECT count(*) FROM {t.listings} WHERE status = 'sold'
                  AND (buyer_id IS NULL OR buyer_id = seller_id))
            """
        )
        return int(found)
