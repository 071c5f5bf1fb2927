"""The public RPCs of drafts and Trade One, which the collection service runs. Each names
the token's player; a draft or trade the caller is not part of is NOT_FOUND, and the
opponent's draft cards never come back, because the service is asked as the caller."""

from __future__ import annotations

from triad.v1 import gateway_pb2 as g

from gateway.forwarding import Downstreams, forwarded

WHAT = "collection"


class PlayRpcs(Downstreams):
    # ---- drafts ----------------------------------------------------------------------

    GetDraft = forwarded(WHAT, "GetDraft", g.GetDraftResponse)
    RevealDraftCards = forwarded(WHAT, "RevealDraftCards", g.RevealDraftCardsResponse)
    PickDraftCard = forwarded(WHAT, "PickDraftCard", g.PickDraftCardResponse)

    # ---- Trade One -----------------------------------------------------------------

    GetPendingTrade = forwarded(
        WHAT, "GetPendingTrade", g.GetPendingTradeResponse, optional=("trade",)
    )

    # copy_ids: Difference, every copy at once
    ChooseTradeCard = forwarded(WHAT, "ChooseTradeCard", g.ChooseTradeCardResponse)
