"""The public RPCs the collection service answers about what a player owns: catalog,
copies, decks, currency, boosters and the Auction House (drafts and Trade One are in
``forward_play.py``). Each names the token's player; another player's copy or deck is
NOT_FOUND because the service is asked as the caller."""

from __future__ import annotations

from typing import Any

from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.auth import caller
from gateway.forwarding import Downstreams, page_size, present, request_id
from services.platform.downstream import INTERNAL_DEADLINE, call

WHAT = "collection"


class CollectionRpcs(Downstreams):
    # ---- catalog and copies --------------------------------------------------------

    async def ListCatalog(
        self, request: g.ListCatalogRequest, context: Any
    ) -> g.ListCatalogResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListCatalog(
                c.CollectionServiceListCatalogRequest(
                    filter=present(request, "filter", request.filter),
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListCatalogResponse(
            characters=reply.characters,
            next_page_token=reply.next_page_token,
            total_size=reply.total_size,
        )

    async def ListCollection(
        self, request: g.ListCollectionRequest, context: Any
    ) -> g.ListCollectionResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListCopies(
                c.CollectionServiceListCopiesRequest(
                    player_id=caller().player_id,
                    filter=present(request, "filter", request.filter),
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListCollectionResponse(
            entries=reply.entries,
            next_page_token=reply.next_page_token,
            total_size=reply.total_size,
        )

    async def GetCopy(self, request: g.GetCopyRequest, context: Any) -> g.GetCopyResponse:
        reply = await call(
            WHAT,
            self._collection_stub().GetCopy(
                c.CollectionServiceGetCopyRequest(
                    player_id=caller().player_id, copy_id=request.copy_id
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetCopyResponse(entry=reply.entry)

    # ---- decks ---------------------------------------------------------------------

    async def SaveDeck(self, request: g.SaveDeckRequest, context: Any) -> g.SaveDeckResponse:
        reply = await call(
            WHAT,
            self._collection_stub().SaveDeck(
                c.CollectionServiceSaveDeckRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    deck_id=request.deck_id,
                    name=request.name,
                    copy_ids=request.copy_ids,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.SaveDeckResponse(deck=reply.deck)

    async def ListDecks(self, request: g.ListDecksRequest, context: Any) -> g.ListDecksResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListDecks(
                c.CollectionServiceListDecksRequest(
                    player_id=caller().player_id,
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListDecksResponse(decks=reply.decks, next_page_token=reply.next_page_token)

    async def DeleteDeck(self, request: g.DeleteDeckRequest, context: Any) -> g.DeleteDeckResponse:
        await call(
            WHAT,
            self._collection_stub().DeleteDeck(
                c.CollectionServiceDeleteDeckRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    deck_id=request.deck_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.DeleteDeckResponse()

    async def ValidateDeck(
        self, request: g.ValidateDeckRequest, context: Any
    ) -> g.ValidateDeckResponse:
        internal = c.CollectionServiceValidateDeckRequest(
            player_id=caller().player_id, hand_size=request.hand_size
        )
        which = request.WhichOneof("deck")
        if which == "deck_id":
            internal.deck_id = request.deck_id
        elif which == "copies":
            internal.copies.CopyFrom(request.copies)
        elif which == "random":
            internal.random.SetInParent()
        # Nothing chosen goes on as is: the service names the choices in its refusal.
        reply = await call(
            WHAT, self._collection_stub().ValidateDeck(internal, timeout=INTERNAL_DEADLINE)
        )
        return g.ValidateDeckResponse(valid=reply.valid, violations=reply.violations)

    # ---- economy and boosters ------------------------------------------------------

    async def GetBalance(self, request: g.GetBalanceRequest, context: Any) -> g.GetBalanceResponse:
        reply = await call(
            WHAT,
            self._collection_stub().GetBalance(
                c.CollectionServiceGetBalanceRequest(player_id=caller().player_id),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetBalanceResponse(balance=reply.balance)

    async def GetBoosterOdds(
        self, request: g.GetBoosterOddsRequest, context: Any
    ) -> g.GetBoosterOddsResponse:
        reply = await call(
            WHAT,
            self._collection_stub().GetBoosterOdds(
                # The player makes the reply carry their pity progress.
                c.CollectionServiceGetBoosterOddsRequest(player_id=caller().player_id),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetBoosterOddsResponse(
            odds=reply.odds, boosters_since_pity=reply.boosters_since_pity
        )

    async def GetSeedCommitment(
        self, request: g.GetSeedCommitmentRequest, context: Any
    ) -> g.GetSeedCommitmentResponse:
        reply = await call(
            WHAT,
            self._collection_stub().GetSeedCommitment(
                c.CollectionServiceGetSeedCommitmentRequest(player_id=caller().player_id),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.GetSeedCommitmentResponse(commitment=reply.commitment)

    async def SetClientSeed(
        self, request: g.SetClientSeedRequest, context: Any
    ) -> g.SetClientSeedResponse:
        reply = await call(
            WHAT,
            self._collection_stub().SetClientSeed(
                c.CollectionServiceSetClientSeedRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    client_seed=request.client_seed,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.SetClientSeedResponse(
            commitment=reply.commitment,
            revealed_seed=present(reply, "revealed_seed", reply.revealed_seed),
        )

    async def OpenBooster(
        self, request: g.OpenBoosterRequest, context: Any
    ) -> g.OpenBoosterResponse:
        reply = await call(
            WHAT,
            self._collection_stub().OpenBooster(
                c.CollectionServiceOpenBoosterRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    expected_server_seed_hash=request.expected_server_seed_hash,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.OpenBoosterResponse(draw=reply.draw, balance=reply.balance)

    async def ListBoosterDraws(
        self, request: g.ListBoosterDrawsRequest, context: Any
    ) -> g.ListBoosterDrawsResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListBoosterDraws(
                c.CollectionServiceListBoosterDrawsRequest(
                    player_id=caller().player_id,
                    seed_id=request.seed_id,
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListBoosterDrawsResponse(draws=reply.draws, next_page_token=reply.next_page_token)

    async def ListServerSeeds(
        self, request: g.ListServerSeedsRequest, context: Any
    ) -> g.ListServerSeedsResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListServerSeeds(
                c.CollectionServiceListServerSeedsRequest(
                    player_id=caller().player_id,
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListServerSeedsResponse(seeds=reply.seeds, next_page_token=reply.next_page_token)

    # ---- for the gateway's own RPCs ------------------------------------------------

    # ---- Auction House (RULES.md 15) -----------------------------------------------

    async def CreateListing(
        self, request: g.CreateListingRequest, context: Any
    ) -> g.CreateListingResponse:
        reply = await call(
            WHAT,
            self._collection_stub().CreateListing(
                c.CollectionServiceCreateListingRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    copy_id=request.copy_id,
                    price=request.price,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.CreateListingResponse(listing=reply.listing)

    async def CancelListing(
        self, request: g.CancelListingRequest, context: Any
    ) -> g.CancelListingResponse:
        reply = await call(
            WHAT,
            self._collection_stub().CancelListing(
                c.CollectionServiceCancelListingRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    listing_id=request.listing_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.CancelListingResponse(listing=reply.listing)

    async def BuyListing(self, request: g.BuyListingRequest, context: Any) -> g.BuyListingResponse:
        reply = await call(
            WHAT,
            self._collection_stub().BuyListing(
                c.CollectionServiceBuyListingRequest(
                    request_id=request_id(request.request_id),
                    player_id=caller().player_id,
                    listing_id=request.listing_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.BuyListingResponse(listing=reply.listing, balance=reply.balance)

    async def ListAuction(
        self, request: g.ListAuctionRequest, context: Any
    ) -> g.ListAuctionResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListAuction(
                c.CollectionServiceListAuctionRequest(
                    filter=present(request, "filter", request.filter),
                    order=request.order,
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListAuctionResponse(listings=reply.listings, next_page_token=reply.next_page_token)

    async def ListMyListings(
        self, request: g.ListMyListingsRequest, context: Any
    ) -> g.ListMyListingsResponse:
        reply = await call(
            WHAT,
            self._collection_stub().ListMyListings(
                c.CollectionServiceListMyListingsRequest(
                    player_id=caller().player_id,
                    page_size=page_size(request.page_size),
                    page_token=request.page_token,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ListMyListingsResponse(
            listings=reply.listings, next_page_token=reply.next_page_token
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
