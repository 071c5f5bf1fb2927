"""The CollectionService edge for draft sessions (RULES.md 8)."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c

from services.collection import handlers_drafts
from services.collection.handlers import Context
from services.collection.mapping import player_ref_back
from services.collection.server.pushes import draft_view
from services.platform.edge import bind, require, require_bound
from services.platform.errors import InvalidArgument
from services.platform.requests import Request
from services.wire import LADDERS_BACK


def _seat(
    request: c.CollectionServiceGetDraftRequest
    | c.CollectionServiceRevealDraftCardsRequest
    | c.CollectionServicePickDraftCardRequest,
) -> tuple[str, str]:
    """The draft and the player a request names, checked and logged."""
    draft_id = require(request.draft_id, "draft_id")
    player = require(request.player_id, "player_id")
    bind(player_id=player, draft_id=draft_id)
    return draft_id, player


class DraftRpcs:
    _ctx: Context

    async def CreateDraft(
        self, request: c.CollectionServiceCreateDraftRequest, context: Any
    ) -> c.CollectionServiceCreateDraftResponse:
        draft_id = require_bound(request.draft_id, "draft_id")
        if len(request.participants) != 2:
            raise InvalidArgument(f"a draft has two participants, got {len(request.participants)}")
        a, b = (player_ref_back(p) for p in request.participants)
        for p in (a, b):
            require(p.player_id, "participants.player_id")
        ladder = LADDERS_BACK.get(request.ladder.ladder) or "draft"
        key = Request.of("draft", require(request.request_id, "request_id"), draft_id, a, b, ladder)
        created = await handlers_drafts.create_draft(
            self._ctx, key, draft_id, request.pairing_id, ladder, request.ladder.season, (a, b)
        )
        return c.CollectionServiceCreateDraftResponse(draft_id=draft_id, created=created)

    async def GetDraft(
        self, request: c.CollectionServiceGetDraftRequest, context: Any
    ) -> c.CollectionServiceGetDraftResponse:
        draft_id, player = _seat(request)
        return c.CollectionServiceGetDraftResponse(
            draft=await draft_view(self._ctx, draft_id, player)
        )

    async def RevealDraftCards(
        self, request: c.CollectionServiceRevealDraftCardsRequest, context: Any
    ) -> c.CollectionServiceRevealDraftCardsResponse:
        draft_id, player = _seat(request)
        slots = list(request.card_indices)
        key = Request.of(
            player, require(request.request_id, "request_id"), draft_id, request.booster_index,
            *slots,
        )  # fmt: skip
        await handlers_drafts.reveal(self._ctx, key, draft_id, player, request.booster_index, slots)
        return c.CollectionServiceRevealDraftCardsResponse(
            draft=await draft_view(self._ctx, draft_id, player)
        )

    async def PickDraftCard(
        self, request: c.CollectionServicePickDraftCardRequest, context: Any
    ) -> c.CollectionServicePickDraftCardResponse:
        draft_id, player = _seat(request)
        card = require(request.draft_card_id, "draft_card_id")
        key = Request.of(player, require(request.request_id, "request_id"), draft_id, card)
        await handlers_drafts.pick(self._ctx, key, draft_id, player, card)
        return c.CollectionServicePickDraftCardResponse(
            draft=await draft_view(self._ctx, draft_id, player)
        )
