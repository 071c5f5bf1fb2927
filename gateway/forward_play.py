"""The public RPCs of drafts and Trade One, which the collection service runs. Each names
the token's player; a draft or trade the caller is not part of is NOT_FOUND, and the
opponent's draft cards never come back, because the service is asked as the caller."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c
from triad.v1 import gateway_pb2 as g

from gateway.auth import caller
from gateway.forwarding import Downstreams, present, request_id
from services.platform.downstream import INTERNAL_DEADLINE, call

WHAT = "collection"


class PlayRpcs(Downstreams):
    # ---- drafts ----------------------------------------------------------------------

    async def GetDraft(self, request: g.GetDraftRequest, context: Any) -> g.GetDraftResponse:
        reply = await call(
            WHAT,
            self._collection_stub().GetDraft(
                c.CollectionServiceGetDraftRequest(
                    draft_id=request.draft_id, player_id=caller().player_id
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetDraftResponse(draft=reply.draft)

    async def RevealDraftCards(
        self, request: g.RevealDraftCardsRequest, context: Any
    ) -> g.RevealDraftCardsResponse:
        reply = await call(
            WHAT,
            self._collection_stub().RevealDraftCards(
                c.CollectionServiceRevealDraftCardsRequest(
                    request_id=request_id(request.request_id),
                    draft_id=request.draft_id,
                    player_id=caller().player_id,
                    booster_index=request.booster_index,
                    card_indices=request.card_indices,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.RevealDraftCardsResponse(draft=reply.draft)

    async def PickDraftCard(
        self, request: g.PickDraftCardRequest, context: Any
    ) -> g.PickDraftCardResponse:
        reply = await call(
            WHAT,
            self._collection_stub().PickDraftCard(
                c.CollectionServicePickDraftCardRequest(
                    request_id=request_id(request.request_id),
                    draft_id=request.draft_id,
                    player_id=caller().player_id,
                    draft_card_id=request.draft_card_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.PickDraftCardResponse(draft=reply.draft)

    # ---- Trade One -----------------------------------------------------------------

    async def GetPendingTrade(
        self, request: g.GetPendingTradeRequest, context: Any
    ) -> g.GetPendingTradeResponse:
        reply = await call(
            WHAT,
            self._collection_stub().GetPendingTrade(
                c.CollectionServiceGetPendingTradeRequest(player_id=caller().player_id),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetPendingTradeResponse(trade=present(reply, "trade", reply.trade))

    async def ChooseTradeCard(
        self, request: g.ChooseTradeCardRequest, context: Any
    ) -> g.ChooseTradeCardResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ChooseTradeCard(
                c.CollectionServiceChooseTradeCardRequest(
                    request_id=request_id(request.request_id),
                    trade_id=request.trade_id,
                    player_id=caller().player_id,
                    copy_id=request.copy_id,
                    copy_ids=request.copy_ids,  # Difference: every copy at once
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ChooseTradeCardResponse(trade=reply.trade)
