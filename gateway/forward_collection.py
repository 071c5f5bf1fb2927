"""The public RPCs the collection service answers about what a player owns: catalog,
copies, decks, currency, boosters and the Auction House (drafts and Trade One are in
``forward_play.py``). Each names the token's player; another player's copy or deck is
NOT_FOUND because the service is asked as the caller."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.forwarding import Downstreams, forward
from services.platform.downstream import INTERNAL_DEADLINE, call

WHAT = "collection"


class CollectionRpcs(Downstreams):
    # ---- catalog and copies --------------------------------------------------------

    async def ListCatalog(
        self, request: g.ListCatalogRequest, context: Any
    ) -> g.ListCatalogResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListCatalog,
            c.CollectionServiceListCatalogRequest,
            request,
            g.ListCatalogResponse,
        )

    async def ListCollection(
        self, request: g.ListCollectionRequest, context: Any
    ) -> g.ListCollectionResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListCopies,
            c.CollectionServiceListCopiesRequest,
            request,
            g.ListCollectionResponse,
        )

    async def GetCopy(self, request: g.GetCopyRequest, context: Any) -> g.GetCopyResponse:
        return await forward(
            WHAT,
            self._collection_stub().GetCopy,
            c.CollectionServiceGetCopyRequest,
            request,
            g.GetCopyResponse,
        )

    # ---- decks ---------------------------------------------------------------------

    async def SaveDeck(self, request: g.SaveDeckRequest, context: Any) -> g.SaveDeckResponse:
        return await forward(
            WHAT,
            self._collection_stub().SaveDeck,
            c.CollectionServiceSaveDeckRequest,
            request,
            g.SaveDeckResponse,
        )

    async def ListDecks(self, request: g.ListDecksRequest, context: Any) -> g.ListDecksResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListDecks,
            c.CollectionServiceListDecksRequest,
            request,
            g.ListDecksResponse,
        )

    async def DeleteDeck(self, request: g.DeleteDeckRequest, context: Any) -> g.DeleteDeckResponse:
        return await forward(
            WHAT,
            self._collection_stub().DeleteDeck,
            c.CollectionServiceDeleteDeckRequest,
            request,
            g.DeleteDeckResponse,
        )

    async def ValidateDeck(
        self, request: g.ValidateDeckRequest, context: Any
    ) -> g.ValidateDeckResponse:
        # The chosen deck (id, copies or random) goes as it came; nothing chosen goes on
        # as is: the service names the choices in its refusal.
        return await forward(
            WHAT,
            self._collection_stub().ValidateDeck,
            c.CollectionServiceValidateDeckRequest,
            request,
            g.ValidateDeckResponse,
        )

    # ---- economy and boosters ------------------------------------------------------

    async def GetBalance(self, request: g.GetBalanceRequest, context: Any) -> g.GetBalanceResponse:
        return await forward(
            WHAT,
            self._collection_stub().GetBalance,
            c.CollectionServiceGetBalanceRequest,
            request,
            g.GetBalanceResponse,
        )

    async def GetBoosterOdds(
        self, request: g.GetBoosterOddsRequest, context: Any
    ) -> g.GetBoosterOddsResponse:
        # The player makes the reply carry their pity progress.
        return await forward(
            WHAT,
            self._collection_stub().GetBoosterOdds,
            c.CollectionServiceGetBoosterOddsRequest,
            request,
            g.GetBoosterOddsResponse,
        )

    async def GetSeedCommitment(
        self, request: g.GetSeedCommitmentRequest, context: Any
    ) -> g.GetSeedCommitmentResponse:
        return await forward(
            WHAT,
            self._collection_stub().GetSeedCommitment,
            c.CollectionServiceGetSeedCommitmentRequest,
            request,
            g.GetSeedCommitmentResponse,
        )

    async def SetClientSeed(
        self, request: g.SetClientSeedRequest, context: Any
    ) -> g.SetClientSeedResponse:
        return await forward(
            WHAT,
            self._collection_stub().SetClientSeed,
            c.CollectionServiceSetClientSeedRequest,
            request,
            g.SetClientSeedResponse,
            optional=("revealed_seed",),
        )

    async def OpenBooster(
        self, request: g.OpenBoosterRequest, context: Any
    ) -> g.OpenBoosterResponse:
        return await forward(
            WHAT,
            self._collection_stub().OpenBooster,
            c.CollectionServiceOpenBoosterRequest,
            request,
            g.OpenBoosterResponse,
        )

    async def ListBoosterDraws(
        self, request: g.ListBoosterDrawsRequest, context: Any
    ) -> g.ListBoosterDrawsResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListBoosterDraws,
            c.CollectionServiceListBoosterDrawsRequest,
            request,
            g.ListBoosterDrawsResponse,
        )

    async def ListServerSeeds(
        self, request: g.ListServerSeedsRequest, context: Any
    ) -> g.ListServerSeedsResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListServerSeeds,
            c.CollectionServiceListServerSeedsRequest,
            request,
            g.ListServerSeedsResponse,
        )

    # ---- Auction House (RULES.md 15) -----------------------------------------------

    async def CreateListing(
        self, request: g.CreateListingRequest, context: Any
    ) -> g.CreateListingResponse:
        return await forward(
            WHAT,
            self._collection_stub().CreateListing,
            c.CollectionServiceCreateListingRequest,
            request,
            g.CreateListingResponse,
        )

    async def CancelListing(
        self, request: g.CancelListingRequest, context: Any
    ) -> g.CancelListingResponse:
        return await forward(
            WHAT,
            self._collection_stub().CancelListing,
            c.CollectionServiceCancelListingRequest,
            request,
            g.CancelListingResponse,
        )

    async def BuyListing(self, request: g.BuyListingRequest, context: Any) -> g.BuyListingResponse:
        return await forward(
            WHAT,
            self._collection_stub().BuyListing,
            c.CollectionServiceBuyListingRequest,
            request,
            g.BuyListingResponse,
        )

    async def ListAuction(
        self, request: g.ListAuctionRequest, context: Any
    ) -> g.ListAuctionResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListAuction,
            c.CollectionServiceListAuctionRequest,
            request,
            g.ListAuctionResponse,
        )

    async def ListMyListings(
        self, request: g.ListMyListingsRequest, context: Any
    ) -> g.ListMyListingsResponse:
        return await forward(
            WHAT,
            self._collection_stub().ListMyListings,
            c.CollectionServiceListMyListingsRequest,
            request,
            g.ListMyListingsResponse,
        )

    async def _grant_starter(self, key: str, player: pb.PlayerRef) -> None:
        """The new player's starter collection. The service grants once per player and
        answers a repeat with the first grant, so a retried Register is safe."""
        if self._collection is None:
            return  # a deployment without collection has no collections to start
        await call(
            WHAT,
            self._collection.GrantStarterCollection(
                c.CollectionServiceGrantStarterCollectionRequest(request_id=key, player=player),
                timeout=INTERNAL_DEADLINE,
            ),
        )
