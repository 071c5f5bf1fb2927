"""A player's pushes over NATS (``services/platform/pushes.py``): the collection tells a
player their balance, their Trade One (the prompt while it waits, the result once it
completed), their draft, and their Auction House listing when it sells or expires.

Driven by the collection's notices (``schema.NOTIFY_CHANNEL``: a trigger announces, at
commit, each player whose row, trade or draft changed, and which trade or draft), so
whatever commits a change (a request, the settling of a match, a deadline fired by any
replica) is published without the handlers knowing. Every replica hears every notice
and publishes it; the gateway drops the identical copies. A trade's result is announced
by the one change that completed it, so a replica publishes it once.

Nothing is kept per player: a notice is published from what the database says when it
is read, and forgotten. Notices heard while others wait are published one at a time, in
the order heard, a repeated one once. A notice missed while the listener reconnected is
not made up for: sessions read the whole state again when they reconnect.
"""

from __future__ import annotations

import asyncio
import enum
from dataclasses import dataclass

import structlog
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb

from services.collection import (
    handlers_auction,
    handlers_drafts,
    handlers_economy,
    handlers_trades,
    presenter,
)
from services.collection.handlers import Context
from services.collection.server.auction import listing
from services.platform.pushes import PlayerPushes

log = structlog.get_logger()


async def balance_view(ctx: Context, player: str) -> pb.Balance:
    return presenter.balance(await handlers_economy.balance(ctx, player))


async def trade_view(ctx: Context, trade_id: str, player: str) -> pb.Trade:
    """The trade as ``player`` sees it: to the winner the prompt, to the loser the notice."""
    return presenter.trade(await handlers_trades.trade_for(ctx, trade_id, player), player)


async def draft_view(ctx: Context, draft_id: str, player: str) -> pb.DraftView:
    return presenter.draft(await handlers_drafts.view(ctx, draft_id, player), player)


class Changed(enum.Enum):
    PLAYER = "player"  # their row: coins, locks
    TRADE = "trade"  # a trade they are party to
    TRADE_COMPLETED = "completed"  # the change that completed that trade
    DRAFT = "draft"  # a draft they sit in
    LISTING = "listing"  # their listing sold or expired


@dataclass(frozen=True, slots=True)
class Change:
    """What one notice line says changed for one player."""

    player_id: str
    changed: Changed
    id: str = ""  # the trade or draft

    @classmethod
    def of(cls, key: str, rest: str) -> Change | None:
        """The change a notice line ``<key>:<rest>`` names; None for one it does not."""
        if not key:
            return None
        if not rest:
            return cls(key, Changed.PLAYER)
        kind, _, rest = rest.partition(":")
        if kind == "draft" and rest:
            return cls(key, Changed.DRAFT, rest)
        if kind == "listing" and rest:
            return cls(key, Changed.LISTING, rest)
        if kind == "trade" and rest:
            trade_id, _, completed = rest.partition(":")
            return cls(key, Changed.TRADE_COMPLETED if completed else Changed.TRADE, trade_id)
        return None


async def pushes_for(ctx: Context, change: Change) -> list[tuple[str, Message]]:
    """What to push to ``change.player_id`` for it: (push field, message)."""
    player = change.player_id
    match change.changed:
        case Changed.PLAYER:
            held = await handlers_economy.balance(ctx, player)
            if held.at is None:
                # Never changed: nothing to tell, and no row at all for a player of
                # another schema whose notice this database's channel carried.
                return []
            return [("balance", presenter.balance(held))]
        case Changed.TRADE_COMPLETED:
            return [("trade_result", await trade_view(ctx, change.id, player))]
        case Changed.TRADE:
            view = await trade_view(ctx, change.id, player)
            if view.status == pb.TRADE_STATUS_COMPLETED:
                return []  # completed since: its completion's notice pushes the result
            return [("trade_prompt", view)]
        case Changed.DRAFT:
            return [("draft", await draft_view(ctx, change.id, player))]
        case Changed.LISTING:
            return [("listing", listing(await handlers_auction.listing(ctx, change.id)))]


class Publisher:
    """Publishes what each notice heard (``hear``, given to the notifier) announces."""

    def __init__(self, ctx: Context, pushes: PlayerPushes) -> None:
        self._ctx = ctx
        self._pushes = pushes
        self._waiting: dict[Change, None] = {}  # in the order heard, each once
        self._heard = asyncio.Event()

    def hear(self, key: str, rest: str) -> None:
        change = Change.of(key, rest)
        if change is not None:
            self._waiting.setdefault(change, None)
            self._heard.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Publish what is heard until ``stop``."""
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                if not self._waiting:
                    self._heard.clear()
                    heard = asyncio.ensure_future(self._heard.wait())
                    await asyncio.wait({heard, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    heard.cancel()
                    continue
                change = next(iter(self._waiting))
                del self._waiting[change]
                await self.publish(change)
        finally:
            stopping.cancel()

    async def publish(self, change: Change) -> None:
        try:
            pushes = await pushes_for(self._ctx, change)
        except Exception as error:  # a push is a hint: the next change or a reconnect repairs
            log.warning(
                "collection push not read",
                player_id=change.player_id,
                changed=change.changed.value,
                id=change.id,
                error=repr(error),
            )
            return
        for push, message in pushes:
            await self._pushes.send(change.player_id, push, message)
