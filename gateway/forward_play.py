"""The public RPCs of drafts and Trade One, which the collection service runs. Each names
the token's player; a draft or trade the caller is not part of is NOT_FOUND, and the
opponent's draft cards never come back, because the service is asked as the caller."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c
from triad.v1 import gateway_pb2 as g

from gateway.forwarding import Downstreams, forward

WHAT = "collection"


class PlayRpcs(Downstreams):
    # ---- drafts ----------------------------------------------------------------------

    async def GetDraft(self, request: g.GetDraftRequest, context: Any) -> g.GetDraftResponse:
        return await forward(
            WHAT,
            self._collection_stub().GetDraft,
            c.CollectionServiceGetDraftRequest,
            request,
            g.GetDraftResponse,
        )

    async def RevealDraftCards(
        self, request: g.RevealDraftCardsRequest, context: Any
    ) -> g.RevealDraftCardsResponse:
        return await forward(
            WHAT,
            self._collection_stub().RevealDraftCards,
            c.CollectionServiceRevealDraftCardsRequest,
            request,
            g.RevealDraftCardsResponse,
        )

    async def PickDraftCard(
        self, request: g.PickDraftCardRequest, context: Any
    ) -> g.PickDraftCardResponse:
        return await forward(
            WHAT,
            self._collection_stub().PickDraftCard,
            c.CollectionServicePickDraftCardRequest,
            request,
            g.PickDraftCardResponse,
        )

    # ---- Trade One -----------------------------------------------------------------

    async def GetPendingTrade(
        self, request: g.GetPendingTradeRequest, context: Any
    ) -> g.GetPendingTradeResponse:
        return await forward(
            WHAT,
            self._collection_stub().GetPendingTrade,
            c.CollectionServiceGetPendingTradeRequest,
            request,
            g.GetPendingTradeResponse,
            optional=("trade",),
        )

    async def ChooseTradeCard(
        self, request: g.ChooseTradeCardRequest, context: Any
    ) -> g.ChooseTradeCardResponse:
        # copy_ids: Difference, every copy at once
        return await forward(
            WHAT,
            self._collection_stub().ChooseTradeCard,
            c.CollectionServiceChooseTradeCardRequest,
            request,
            g.ChooseTradeCardResponse,
        )
