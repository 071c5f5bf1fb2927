"""Coin counts and open listings for the Auction House tests (test_auction_*.py)."""

from __future__ import annotations

from services.collection import handlers_auction, handlers_economy
from services.collection.handlers import Context
from services.collection.tests.helpers import key


async def coins(ctx: Context, player: str) -> int:
    return (await handlers_economy.balance(ctx, player)).coins


async def total_coins(ctx: Context, *players: str) -> int:
    return sum([await coins(ctx, p) for p in players])


async def listed(ctx: Context, player: str, copy_id: str, price: int, name: str = "l") -> str:
    done = await handlers_auction.create_listing(ctx, key(player, name), player, copy_id, price)
    return done.listing_id
