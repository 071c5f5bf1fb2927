"""The public RPCs the collection service answers about what a player owns: catalog,
copies, decks, currency, boosters and the Auction House (drafts and Trade One are in
``forward_play.py``). Each names the token's player; another player's copy or deck is
NOT_FOUND because the service is asked as the caller."""

from __future__ import annotations

from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.forwarding import Downstreams, forwarded, internal

WHAT = "collection"


class CollectionRpcs(Downstreams):
    # ---- catalog and copies --------------------------------------------------------

    ListCatalog = forwarded(WHAT, "ListCatalog", g.ListCatalogResponse)
    ListCollection = forwarded(WHAT, "ListCopies", g.ListCollectionResponse)
    GetCopy = forwarded(WHAT, "GetCopy", g.GetCopyResponse)

    # ---- decks ---------------------------------------------------------------------

    SaveDeck = forwarded(WHAT, "SaveDeck", g.SaveDeckResponse)
    ListDecks = forwarded(WHAT, "ListDecks", g.ListDecksResponse)
    DeleteDeck = forwarded(WHAT, "DeleteDeck", g.DeleteDeckResponse)

    # The chosen deck (id, copies or random) goes as it came; nothing chosen goes on
    # as is: the service names the choices in its refusal.
    ValidateDeck = forwarded(WHAT, "ValidateDeck", g.ValidateDeckResponse)

    # ---- economy and boosters ------------------------------------------------------

    GetBalance = forwarded(WHAT, "GetBalance", g.GetBalanceResponse)

    # The player makes the reply carry their pity progress.
    GetBoosterOdds = forwarded(WHAT, "GetBoosterOdds", g.GetBoosterOddsResponse)
    GetSeedCommitment = forwarded(WHAT, "GetSeedCommitment", g.GetSeedCommitmentResponse)

    SetClientSeed = forwarded(
        WHAT, "SetClientSeed", g.SetClientSeedResponse, optional=("revealed_seed",)
    )

    OpenBooster = forwarded(WHAT, "OpenBooster", g.OpenBoosterResponse)
    ListBoosterDraws = forwarded(WHAT, "ListBoosterDraws", g.ListBoosterDrawsResponse)
    ListServerSeeds = forwarded(WHAT, "ListServerSeeds", g.ListServerSeedsResponse)

    # ---- Auction House (RULES.md 15) -----------------------------------------------

    CreateListing = forwarded(WHAT, "CreateListing", g.CreateListingResponse)
    CancelListing = forwarded(WHAT, "CancelListing", g.CancelListingResponse)
    BuyListing = forwarded(WHAT, "BuyListing", g.BuyListingResponse)
    ListAuction = forwarded(WHAT, "ListAuction", g.ListAuctionResponse)
    ListMyListings = forwarded(WHAT, "ListMyListings", g.ListMyListingsResponse)

    async def _grant_starter(self, key: str, player: pb.PlayerRef) -> None:
        """The new player's starter collection. The service grants once per player and
        answers a repeat with the first grant, so a retried Register is safe."""
        if self._collection is None:
            return  # a deployment without collection has no collections to start
        await internal(
            WHAT,
            self._collection.GrantStarterCollection,
            c.CollectionServiceGrantStarterCollectionRequest(request_id=key, player=player),
        )
