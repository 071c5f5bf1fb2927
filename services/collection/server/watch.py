"""WatchPlayer, a stream of a player's balance, Trade One and open draft (the views the
NATS pushes of ``pushes.py`` publish; the gateway's sessions follow those now)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from google.protobuf.message import Message
from triad.v1 import collection_pb2 as c

from services.collection import handlers_drafts, handlers_trades
from services.collection.handlers import Context
from services.collection.server.pushes import balance_view, draft_view, trade_view
from services.platform.edge import require_bound
from services.platform.notifier import Notifier

WATCH_RECHECK_SECONDS = 5.0
"""A watcher looks again this often even if no notice came (one could be missed while
the listening connection reconnects)."""


class WatchRpcs:
    _ctx: Context
    _notifier: Notifier

    async def WatchPlayer(
        self, request: c.CollectionServiceWatchPlayerRequest, context: Any
    ) -> AsyncIterator[c.CollectionServiceWatchPlayerResponse]:
        """What changes for a player: balance, the pending trade (and its result once the
        copy moved), the open draft. Checked when the collection's tables announce a change
        for the player (``NOTIFY_CHANNEL``, by trigger, at commit), and every few seconds
        in case a notice was missed."""
        player = require_bound(request.player_id, "player_id")
        with self._notifier.watch(player) as noticed:
            async for message in self._watch_player(player, noticed):
                yield message

    async def _watch_player(
        self, player: str, noticed: asyncio.Event
    ) -> AsyncIterator[c.CollectionServiceWatchPlayerResponse]:
        sent: dict[str, bytes] = {}
        open_draft: str | None = None
        # Trades completed from now on are reported by their completion time, so a trade
        # that opened and completed between two checks still gets its result pushed.
        reported_until = self._ctx.clock()

        def changed(key: str, message: Message) -> bool:
            raw = message.SerializeToString(deterministic=True)
            if sent.get(key) == raw:
                return False
            sent[key] = raw
            return True

        while True:
            noticed.clear()
            balance = await balance_view(self._ctx, player)
            if changed("balance", balance):
                yield c.CollectionServiceWatchPlayerResponse(balance=balance)
            for completed in await handlers_trades.completed_since(
                self._ctx, player, reported_until
            ):
                done = await trade_view(self._ctx, completed.trade_id, player)
                yield c.CollectionServiceWatchPlayerResponse(trade_result=done)
                reported_until = max(reported_until, completed.completed_at)
            pending = await handlers_trades.pending_trade_id(self._ctx, player)
            if pending is not None:
                prompt = await trade_view(self._ctx, pending, player)
                if changed(f"trade:{pending}", prompt):
                    yield c.CollectionServiceWatchPlayerResponse(trade_prompt=prompt)
            draft_id = await handlers_drafts.open_draft_id(self._ctx, player)
            if open_draft is not None and draft_id != open_draft:
                closed = await draft_view(self._ctx, open_draft, player)
                yield c.CollectionServiceWatchPlayerResponse(draft=closed)
            open_draft = draft_id
            if draft_id is not None:
                view = await draft_view(self._ctx, draft_id, player)
                if changed(f"draft:{draft_id}", view):
                    yield c.CollectionServiceWatchPlayerResponse(draft=view)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(noticed.wait(), WATCH_RECHECK_SECONDS)
