"""The CollectionService edge for Trade One (RULES.md 7) and a player's obligations."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c

from services.collection import handlers_trades, views
from services.collection.handlers import Context
from services.platform.edge import bind, require
from services.platform.requests import Request


class TradeRpcs:
    _ctx: Context

    async def GetPendingTrade(
        self, request: c.CollectionServiceGetPendingTradeRequest, context: Any
    ) -> c.CollectionServiceGetPendingTradeResponse:
        player = require(request.player_id, "player_id")
        bind(player_id=player)
        found = await handlers_trades.pending_trade(self._ctx, player)
        if found is None:
            return c.CollectionServiceGetPendingTradeResponse()
        return c.CollectionServiceGetPendingTradeResponse(trade=views.trade(found, player))

    async def ChooseTradeCard(
        self, request: c.CollectionServiceChooseTradeCardRequest, context: Any
    ) -> c.CollectionServiceChooseTradeCardResponse:
        trade_id = require(request.trade_id, "trade_id")
        player = require(request.player_id, "player_id")
        copy_id = require(request.copy_id, "copy_id")
        bind(player_id=player, trade_id=trade_id)
        key = Request.of(player, require(request.request_id, "request_id"), trade_id, copy_id)
        await handlers_trades.choose_card(self._ctx, key, trade_id, player, copy_id)
        state = await handlers_trades.trade_for(self._ctx, trade_id, player)
        return c.CollectionServiceChooseTradeCardResponse(trade=views.trade(state, player))

    async def HasPendingObligations(
        self, request: c.CollectionServiceHasPendingObligationsRequest, context: Any
    ) -> c.CollectionServiceHasPendingObligationsResponse:
        player = require(request.player_id, "player_id")
        bind(player_id=player)
        found = await handlers_trades.obligations(self._ctx, player, request.current_match_id)
        return c.CollectionServiceHasPendingObligationsResponse(
            blocked=bool(found), obligations=[views.obligation(o) for o in found]
        )
