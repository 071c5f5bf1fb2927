"""The CollectionService edge for trades (RULES.md 7, 13) and a player's obligations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from triad.v1 import collection_pb2 as c

from services.collection import handlers_trades, presenter
from services.collection.handlers import Context
from services.platform.edge import bind, require, require_bound
from services.platform.errors import InvalidArgument
from services.platform.requests import Request

MAX_CHOSEN = 13
"""The largest deck (RULES.md 11): no trade moves more copies than that."""


def chosen_copies(copy_id: str, copy_ids: Sequence[str]) -> tuple[str, ...]:
    """The copies a ChooseTradeCard names: ``copy_id`` (Trade One) or ``copy_ids``
    (Difference; Trade One's one copy too), not both."""
    if copy_id and copy_ids:
        raise InvalidArgument("name the copy in copy_id or the copies in copy_ids, not both")
    chosen = tuple(copy_ids) if copy_ids else (copy_id,)
    if not all(chosen):
        raise InvalidArgument("copy_id (or copy_ids for a Difference trade) is required")
    if len(chosen) > MAX_CHOSEN or any(len(i) > 200 for i in chosen):
        raise InvalidArgument(f"copy_ids: at most {MAX_CHOSEN} ids of up to 200 characters")
    return chosen


class TradeRpcs:
    _ctx: Context

    async def GetPendingTrade(
        self, request: c.CollectionServiceGetPendingTradeRequest, context: Any
    ) -> c.CollectionServiceGetPendingTradeResponse:
        player = require_bound(request.player_id, "player_id")
        found = await handlers_trades.pending_trade(self._ctx, player)
        if found is None:
            return c.CollectionServiceGetPendingTradeResponse()
        return c.CollectionServiceGetPendingTradeResponse(trade=presenter.trade(found, player))

    async def ChooseTradeCard(
        self, request: c.CollectionServiceChooseTradeCardRequest, context: Any
    ) -> c.CollectionServiceChooseTradeCardResponse:
        trade_id = require(request.trade_id, "trade_id")
        player = require(request.player_id, "player_id")
        copy_ids = chosen_copies(request.copy_id, request.copy_ids)
        bind(player_id=player, trade_id=trade_id)
        key = Request.of(player, require(request.request_id, "request_id"), trade_id, *copy_ids)
        await handlers_trades.choose_cards(self._ctx, key, trade_id, player, copy_ids)
        state = await handlers_trades.trade_for(self._ctx, trade_id, player)
        return c.CollectionServiceChooseTradeCardResponse(trade=presenter.trade(state, player))

    async def HasPendingObligations(
        self, request: c.CollectionServiceHasPendingObligationsRequest, context: Any
    ) -> c.CollectionServiceHasPendingObligationsResponse:
        player = require_bound(request.player_id, "player_id")
        found = await handlers_trades.obligations(self._ctx, player, request.current_match_id)
        return c.CollectionServiceHasPendingObligationsResponse(
            blocked=bool(found), obligations=[presenter.obligation(o) for o in found]
        )
