"""The collection's use cases: one short function each (STYLE 7): open a unit of work,
load what the decision needs, decide (``domain``), append. No protobuf, SQL or NATS here.

- ``handlers.py``: the context every handler takes, grants and the player's copies.
- ``handlers_decks.py``: decks, the deck a match is played with, locks.
- ``handlers_economy.py``: coins, what a match pays, server seeds and boosters.
- ``handlers_trades.py``: settling a finished match and Trade One.
- ``handlers_drafts.py``: draft sessions and their deadlines.
- ``handlers_auction.py``: the Auction House (listing, buying, cancelling, expiry).

A command returns a typed result (``results.py``) that ``Store.run`` records with the
request id, so a retried request answers from the first run's record. Queries return
domain values or read models; the edge calls these, never the store.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from random import Random
from uuid import NAMESPACE_URL, UUID, uuid5

import structlog

from services.collection import metrics
from services.collection.domain import boosters, wealth
from services.collection.domain.catalog import Catalog, Character
from services.collection.domain.events import (
    CopySource,
    CurrencyReason,
    OwnedCopy,
    PlayerRef,
)
from services.collection.results import CopyLock, Granted
from services.collection.store import Repository, Request, Unit
from services.platform.background import DueSoon
from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound

log = structlog.get_logger()


def new_server_seed() -> str:
    """32 bytes from the operating system's CSPRNG: a seed nobody can predict."""
    return secrets.token_hex(boosters.SEED_BYTES)


@dataclass(frozen=True, slots=True)
class Wakes:
    """This process's deadline loops sleep until their earliest deadline (at most the
    poll ceiling): a command here that writes a deadline due sooner wakes its loop. Once
    the deadline has committed: a loop woken before would not see it yet."""

    trades: DueSoon = field(default_factory=DueSoon)
    drafts: DueSoon = field(default_factory=DueSoon)
    listings: DueSoon = field(default_factory=DueSoon)


@dataclass(frozen=True, slots=True)
class Context:
    store: Repository
    catalog: Catalog
    clock: Callable[[], datetime]
    rng: Random
    server_seed: Callable[[], str] = new_server_seed
    choice_seconds: float = 120.0
    pick_seconds: float = 180.0
    inactivity_seconds: float = 120.0
    pair_rewards_per_day: int = wealth.PAIR_REWARDED_MATCHES_PER_DAY
    wakes: Wakes = field(default_factory=Wakes)

    def new_id(self) -> str:
        return str(UUID(int=self.rng.getrandbits(128), version=4))


class PendingObligation(FailedPrecondition):
    """A player owes a trade or sits in a draft: no new match until it completes."""


async def fire_due(
    ctx: Context,
    due: Callable[[Unit, datetime], Awaitable[str | None]],
    fire: Callable[[Unit, str, datetime], Awaitable[None]],
) -> bool:
    """Claim the most overdue of a kind of deadline (``due``: its id, None if nothing
    is due now) and apply it (``fire``), in one transaction; True if one was claimed.
    The deadline loops (``main.py``) run this until nothing is due."""
    now = ctx.clock()

    async def work(unit: Unit) -> bool:
        found = await due(unit, now)
        if found is None:
            return False
        await fire(unit, found, now)
        return True

    return await ctx.store.run(work)


# --- grants ---------------------------------------------------------------------------------


async def grant_starter(ctx: Context, request: Request, player: PlayerRef) -> Granted:
    """The starter collection and coins, once per player, however often asked."""
    grant_id = str(uuid5(NAMESPACE_URL, f"triad:starter:{player.player_id}"))

    async def work(unit: Unit) -> Granted:
        row = await unit.player(player.player_id)
        now = ctx.clock()
        if row.starter_grant_id is None:
            characters = wealth.starter_characters(ctx.catalog, ctx.rng)
            holos = [wealth.draw_holo(c, ctx.rng) for c in characters]
            granted = wealth.grant(
                player.player_id, grant_id, characters, holos, CopySource.STARTER, now
            )
            coins = wealth.credit(
                player.player_id, row.coins, wealth.STARTER_COINS, CurrencyReason.STARTER, grant_id
            )
            await unit.append_player(player.player_id, [*granted, coins])
            await unit.mark_starter(player.player_id, grant_id)
            metrics.count_coins(coins)
            log.info("starter granted", player_id=player.player_id, copies=len(granted))
        return Granted(grant_id, coins=unit.coins(player.player_id), at=now)

    return await ctx.store.run(work, request)


async def grant_copies(
    ctx: Context, request: Request, player_id: str, character_ids: Sequence[str], reason: str
) -> Granted:
    """An operator's grant (compensation, events); the reason goes to the audit log."""
    unknown = ctx.catalog.unknown(character_ids)
    if unknown:
        raise NotFound(f"no characters {', '.join(unknown)} in the catalog")
    if not character_ids:
        raise InvalidArgument("name at least one character to grant")
    characters: list[Character] = []
    for i in character_ids:
        found = ctx.catalog.get(i)
        assert found is not None
        characters.append(found)
    grant_id = ctx.new_id()

    async def work(unit: Unit) -> Granted:
        holos = [wealth.draw_holo(c, ctx.rng) for c in characters]
        granted = wealth.grant(
            player_id, grant_id, characters, holos, CopySource.GRANT, ctx.clock()
        )
        await unit.append_player(player_id, granted)
        log.info("copies granted", player_id=player_id, grant_id=grant_id, reason=reason)
        return Granted(grant_id)

    return await ctx.store.run(work, request)


# --- the player's copies (queries) ----------------------------------------------------------


async def copies(
    ctx: Context, player_id: str, copy_ids: Sequence[str] | None = None
) -> dict[str, OwnedCopy]:
    """The player's copies (all, or those of ``copy_ids`` the player owns)."""
    return await ctx.store.copies(player_id, copy_ids)


async def copies_by_id(ctx: Context, copy_ids: Sequence[str]) -> dict[str, OwnedCopy]:
    return await ctx.store.copies_by_id(copy_ids)


async def copies_granted(ctx: Context, grant_id: str) -> list[OwnedCopy]:
    """The copies a grant (or a booster draw) created."""
    return await ctx.store.copies_from(grant_id)


async def copy_locks(ctx: Context, copy_ids: Sequence[str]) -> dict[str, CopyLock]:
    """Who holds each of these copies locked, and since when."""
    return await ctx.store.lock_times(copy_ids)
