"""The CollectionService edge for drafts, Trade One, obligations and the player's pushes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from google.protobuf.message import Message
from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb

from services.collection import draft_handlers, presenter, trade_handlers
from services.collection.edge import bind, require
from services.collection.handlers import Context
from services.collection.mapping import player_ref_back
from services.collection.store import Request
from services.collection.trade import trade_id_for
from services.platform.errors import InvalidArgument
from services.platform.notifier import Notifier
from services.wire import LADDERS_BACK

WATCH_RECHECK_SECONDS = 5.0
"""A watcher looks again this often even if no notice came (one could be missed while
the listening connection reconnects)."""


class PlayRpcs:
    _ctx: Context
    _notifier: Notifier

    # --- drafts -----------------------------------------------------------------------------

    async def _draft_view(self, draft_id: str, player: str) -> pb.DraftView:
        state, _ = await draft_handlers.view(self._ctx, draft_id, player)
        return presenter.draft(state, player)

    async def CreateDraft(
        self, request: c.CollectionServiceCreateDraftRequest, context: Any
    ) -> c.CollectionServiceCreateDraftResponse:
        draft_id = require(request.draft_id, "draft_id")
        bind(draft_id=draft_id)
        if len(request.participants) != 2:
            raise InvalidArgument(f"a draft has two participants, got {len(request.participants)}")
        a, b = (player_ref_back(p) for p in request.participants)
        for p in (a, b):
            require(p.player_id, "participants.player_id")
        ladder = LADDERS_BACK.get(request.ladder.ladder) or "draft"
        key = Request.of("draft", require(request.request_id, "request_id"), draft_id, a, b, ladder)
        created = await draft_handlers.create_draft(
            self._ctx, key, draft_id, request.pairing_id, ladder, request.ladder.season, (a, b)
        )
        return c.CollectionServiceCreateDraftResponse(draft_id=draft_id, created=created)

    async def GetDraft(
        self, request: c.CollectionServiceGetDraftRequest, context: Any
    ) -> c.CollectionServiceGetDraftResponse:
        draft_id = require(request.draft_id, "draft_id")
        player = require(request.player_id, "player_id")
        bind(player, draft_id=draft_id)
        return c.CollectionServiceGetDraftResponse(draft=await self._draft_view(draft_id, player))

    async def RevealDraftCards(
        self, request: c.CollectionServiceRevealDraftCardsRequest, context: Any
    ) -> c.CollectionServiceRevealDraftCardsResponse:
        draft_id = require(request.draft_id, "draft_id")
        player = require(request.player_id, "player_id")
        bind(player, draft_id=draft_id)
        slots = list(request.card_indices)
        key = Request.of(
            player, require(request.request_id, "request_id"), draft_id, request.booster_index,
            *slots,
        )  # fmt: skip
        await draft_handlers.reveal(self._ctx, key, draft_id, player, request.booster_index, slots)
        return c.CollectionServiceRevealDraftCardsResponse(
            draft=await self._draft_view(draft_id, player)
        )

    async def PickDraftCard(
        self, request: c.CollectionServicePickDraftCardRequest, context: Any
    ) -> c.CollectionServicePickDraftCardResponse:
        draft_id = require(request.draft_id, "draft_id")
        player = require(request.player_id, "player_id")
        card = require(request.draft_card_id, "draft_card_id")
        bind(player, draft_id=draft_id)
        key = Request.of(player, require(request.request_id, "request_id"), draft_id, card)
        await draft_handlers.pick(self._ctx, key, draft_id, player, card)
        return c.CollectionServicePickDraftCardResponse(
            draft=await self._draft_view(draft_id, player)
        )

    # --- Trade One --------------------------------------------------------------------------

    async def GetPendingTrade(
        self, request: c.CollectionServiceGetPendingTradeRequest, context: Any
    ) -> c.CollectionServiceGetPendingTradeResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        found = await trade_handlers.pending_trade(self._ctx, player)
        if found is None:
            return c.CollectionServiceGetPendingTradeResponse()
        return c.CollectionServiceGetPendingTradeResponse(trade=presenter.trade(found, player))

    async def ChooseTradeCard(
        self, request: c.CollectionServiceChooseTradeCardRequest, context: Any
    ) -> c.CollectionServiceChooseTradeCardResponse:
        trade_id = require(request.trade_id, "trade_id")
        player = require(request.player_id, "player_id")
        copy_id = require(request.copy_id, "copy_id")
        bind(player, trade_id=trade_id)
        key = Request.of(player, require(request.request_id, "request_id"), trade_id, copy_id)
        await trade_handlers.choose_card(self._ctx, key, trade_id, player, copy_id)
        state = await trade_handlers.trade_for(self._ctx, trade_id, player)
        return c.CollectionServiceChooseTradeCardResponse(trade=presenter.trade(state, player))

    async def HasPendingObligations(
        self, request: c.CollectionServiceHasPendingObligationsRequest, context: Any
    ) -> c.CollectionServiceHasPendingObligationsResponse:
        player = require(request.player_id, "player_id")
        bind(player)
        found = []
        # The match's locks first: a settlement committing between the two reads has
        # opened the trade by the time the second one looks, so no moment goes unseen.
        settling = await self._ctx.store.settling_match_of(player, request.current_match_id)
        trade_id = await self._ctx.store.pending_trade_of(player)
        if trade_id is None and settling is not None:
            found.append(
                pb.Obligation(
                    kind=pb.OBLIGATION_KIND_PENDING_TRADE,
                    id=trade_id_for(settling),
                    message="the Trade One of your last match is being opened: a card "
                    "must change hands before your next match",
                )
            )
        if trade_id is not None:
            found.append(
                pb.Obligation(
                    kind=pb.OBLIGATION_KIND_PENDING_TRADE,
                    id=trade_id,
                    message="a Trade One card must change hands before your next match",
                )
            )
        draft_id = await self._ctx.store.open_draft_of(player)
        if draft_id is not None:
            found.append(
                pb.Obligation(
                    kind=pb.OBLIGATION_KIND_OPEN_DRAFT,
                    id=draft_id,
                    message="finish your draft before starting another match",
                )
            )
        return c.CollectionServiceHasPendingObligationsResponse(
            blocked=bool(found), obligations=found
        )

    # --- pushes -----------------------------------------------------------------------------

    async def WatchPlayer(
        self, request: c.CollectionServiceWatchPlayerRequest, context: Any
    ) -> AsyncIterator[c.CollectionServiceWatchPlayerResponse]:
        """What changes for a player: balance, the pending trade (and its result once the
        copy moved), the open draft. Checked when the collection's tables announce a change
        for the player (``NOTIFY_CHANNEL``, by trigger, at commit), and every few seconds
        in case a notice was missed."""
        player = require(request.player_id, "player_id")
        bind(player)
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
            coins, at = await self._ctx.store.balance(player)
            balance = presenter.balance(coins, at)
            if changed("balance", balance):
                yield c.CollectionServiceWatchPlayerResponse(balance=balance)
            for done_id, completed_at in await self._ctx.store.trades_completed_since(
                player, reported_until
            ):
                done = await trade_handlers.trade_for(self._ctx, done_id, player)
                yield c.CollectionServiceWatchPlayerResponse(
                    trade_result=presenter.trade(done, player)
                )
                reported_until = max(reported_until, completed_at)
            pending = await self._ctx.store.pending_trade_of(player)
            if pending is not None:
                state = await trade_handlers.trade_for(self._ctx, pending, player)
                prompt = presenter.trade(state, player)
                if changed(f"trade:{pending}", prompt):
                    yield c.CollectionServiceWatchPlayerResponse(trade_prompt=prompt)
            draft_id = await self._ctx.store.open_draft_of(player)
            if open_draft is not None and draft_id != open_draft:
                yield c.CollectionServiceWatchPlayerResponse(
                    draft=await self._draft_view(open_draft, player)
                )
            open_draft = draft_id
            if draft_id is not None:
                view = await self._draft_view(draft_id, player)
                if changed(f"draft:{draft_id}", view):
                    yield c.CollectionServiceWatchPlayerResponse(draft=view)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(noticed.wait(), WATCH_RECHECK_SECONDS)
