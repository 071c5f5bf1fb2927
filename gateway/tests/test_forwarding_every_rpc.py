"""Every forwarded RPC against recording stand-ins of the internal services: each internal
call has the deadline, names the token's player, and carries every field the player set;
an RPC whose service is not configured is unavailable.

The process tests (tests/integration/gateway_services/) show the services
answering; these cover every RPC, including the matchmaker's, which is not started there.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.tests.forwarding_stand_ins import DECK, ME, RULES, Backend, caller  # noqa: F401
from services.platform.downstream import INTERNAL_DEADLINE
from services.platform.errors import Unavailable

FORWARDED: list[tuple[str, Message]] = [
    ("ListCatalog", g.ListCatalogRequest(filter=pb.CatalogFilter(stars=[3]), page_size=20)),
    (
        "ListCollection",
        g.ListCollectionRequest(
            filter=pb.CollectionFilter(locked=True), page_size=5, page_token="10"
        ),
    ),
    ("GetCopy", g.GetCopyRequest(copy_id="copy-1")),
    (
        "SaveDeck",
        g.SaveDeckRequest(request_id="r1", deck_id="d", name="Main", copy_ids=["a", "b"]),
    ),
    ("ListDecks", g.ListDecksRequest(page_size=3, page_token="3")),
    ("DeleteDeck", g.DeleteDeckRequest(request_id="r2", deck_id="d")),
    ("ValidateDeck", g.ValidateDeckRequest(deck_id="d")),
    ("ValidateDeck", g.ValidateDeckRequest(copies=pb.CopySelection(copy_ids=["a"]))),
    ("ValidateDeck", g.ValidateDeckRequest(random=pb.RandomDeck())),
    ("GetBalance", g.GetBalanceRequest()),
    ("GetBoosterOdds", g.GetBoosterOddsRequest()),
    ("GetSeedCommitment", g.GetSeedCommitmentRequest()),
    ("SetClientSeed", g.SetClientSeedRequest(request_id="r3", client_seed="lucky")),
    ("OpenBooster", g.OpenBoosterRequest(request_id="r4", expected_server_seed_hash="h")),
    ("ListBoosterDraws", g.ListBoosterDrawsRequest(seed_id="s", page_size=9, page_token="9")),
    ("ListServerSeeds", g.ListServerSeedsRequest(page_size=2, page_token="2")),
    ("GetDraft", g.GetDraftRequest(draft_id="draft-1")),
    (
        "RevealDraftCards",
        g.RevealDraftCardsRequest(
            request_id="r5", draft_id="draft-1", booster_index=2, card_indices=[0, 4]
        ),
    ),
    (
        "PickDraftCard",
        g.PickDraftCardRequest(request_id="r6", draft_id="draft-1", draft_card_id="dc"),
    ),
    ("GetPendingTrade", g.GetPendingTradeRequest()),
    ("ChooseTradeCard", g.ChooseTradeCardRequest(request_id="r7", trade_id="t", copy_id="c")),
    ("GetRating", g.GetRatingRequest(ladder=pb.LadderKey(ladder=pb.LADDER_RANKED, season=2))),
    (
        "ListRatingHistory",
        g.ListRatingHistoryRequest(
            ladder=pb.LadderKey(ladder=pb.LADDER_DRAFT), page_size=4, page_token="44"
        ),
    ),
    (
        "GetLeaderboard",
        g.GetLeaderboardRequest(ladder=pb.LadderKey(ladder=pb.LADDER_RANKED), top_n=7),
    ),
    ("Enqueue", g.EnqueueRequest(request_id="r8", mode=pb.MODE_RANKED, deck=DECK)),
    ("Enqueue", g.EnqueueRequest(request_id="r9", mode=pb.MODE_DRAFT)),
    ("CancelTicket", g.CancelTicketRequest(request_id="r10", ticket_id="tk")),
    (
        "StartPractice",
        g.StartPracticeRequest(
            request_id="r11",
            origin_mode=pb.MODE_CUSTOM,
            bot_level=pb.BOT_LEVEL_HARD,
            deck=DECK,
            custom_settings=RULES,
        ),
    ),
    (
        "SwitchToPractice",
        g.SwitchToPracticeRequest(
            request_id="r12", ticket_id="tk", bot_level=pb.BOT_LEVEL_NOVICE, deck=DECK
        ),
    ),
    ("CreateTable", g.CreateTableRequest(request_id="r13", settings=RULES, deck=DECK)),
    (
        "ListTables",
        g.ListTablesRequest(
            filter=pb.TableFilter(same=False, challenges_only=True), page_size=1, page_token="1"
        ),
    ),
    ("JoinTable", g.JoinTableRequest(request_id="r14", table_id="tb", deck=DECK)),
    ("CloseTable", g.CloseTableRequest(request_id="r15", table_id="tb")),
    (
        "FindGame",
        g.FindGameRequest(request_id="r16", filter=pb.TableFilter(same=True), deck=DECK),
    ),
    ("DeclineChallenge", g.DeclineChallengeRequest(request_id="r17", table_id="tb")),
    ("CreateListing", g.CreateListingRequest(request_id="r18", copy_id="c", price=120)),
    ("CancelListing", g.CancelListingRequest(request_id="r19", listing_id="l")),
    ("BuyListing", g.BuyListingRequest(request_id="r20", listing_id="l")),
    (
        "ListAuction",
        g.ListAuctionRequest(
            filter=pb.AuctionFilter(stars=[4], holo=pb.HOLO_FILTER_HOLO, max_price=500),
            order=pb.AUCTION_ORDER_CHEAPEST,
            page_size=20,
            page_token="tok",
        ),
    ),
    ("ListMyListings", g.ListMyListingsRequest(page_size=7, page_token="7")),
    # Skirmish
    ("GetActiveBattle", g.GetActiveBattleRequest()),
    ("GetBattleView", g.GetBattleViewRequest(battle_id="bt")),
    (
        "SetFormation",
        g.SetFormationRequest(
            request_id="r21", battle_id="bt", squares=[pb.BattleSquare(row=1, col=2)]
        ),
    ),
    (
        "SetPlan",
        g.SetPlanRequest(
            request_id="r24",
            battle_id="bt",
            turn=2,
            actions=[pb.BattleAction(character="wisp", card="wisp.mend")],
        ),
    ),
    (
        "CommitPlan",
        g.CommitPlanRequest(
            request_id="r22",
            battle_id="bt",
            turn=3,
            actions=[pb.BattleAction(character="ember", card="ember.jab")],
        ),
    ),
    ("GiveUp", g.GiveUpRequest(request_id="r23", battle_id="bt")),
]


OWN = {"Register", "Login", "RefreshToken", "Logout", "GetPlayerStatus", "OpenSession"}


MATCH = {"GetActiveMatch", "GetMatchView", "PlaceCard", "Forfeit"}


TWO_CALLS = {"StartPracticeBattle"}


def test_every_public_rpc_is_here_or_answered_by_the_gateway_or_match() -> None:
    public = {x.name for x in g.DESCRIPTOR.services_by_name["TriadGateway"].methods}
    assert public == {name for name, _ in FORWARDED} | OWN | MATCH | TWO_CALLS


def set_fields(message: Message) -> dict[str, Any]:
    return {f.name: v for f, v in message.ListFields()}


def players_named(request: Message) -> list[tuple[str, str | None]]:
    """Every player the internal request names: a player id (no name), or a PlayerRef."""
    found: list[tuple[str, str | None]] = []
    for f, value in request.ListFields():
        if f.name == "player_id":
            found.append((value, None))
        elif f.type == FieldDescriptor.TYPE_MESSAGE and isinstance(value, pb.PlayerRef):
            found.append((value.player_id, value.player_name))
    return found


@pytest.mark.parametrize(("rpc", "request_"), FORWARDED, ids=[r for r, _ in FORWARDED])
async def test_each_rpc_forwards_as_the_caller_with_a_deadline(rpc: str, request_: Message) -> None:
    backend = Backend()
    await getattr(backend.servicer(), rpc)(request_, None)

    forwarded = [c for c in backend.calls if c.service != "MatchService"]
    assert len(forwarded) == 1, backend.calls
    internal = forwarded[0].request
    assert all(c.timeout == INTERNAL_DEADLINE for c in backend.calls)
    # every field the player set arrives with its value (the names match by design)
    expected = set_fields(request_)
    assert {k: v for k, v in set_fields(internal).items() if k in expected} == expected
    # exactly one player is named, the token's (the catalog and the Auction House's open
    # listings belong to nobody)
    named = players_named(internal)
    if rpc in ("ListCatalog", "ListAuction"):
        assert not named
    else:
        assert len(named) == 1 and named[0][0] == ME.player_id
        assert named[0][1] in (None, ME.name)


@pytest.mark.parametrize(
    ("rpc", "what"),
    [
        ("ListCatalog", "collection"),
        ("GetDraft", "collection"),
        ("GetLeaderboard", "rating"),
        ("CloseTable", "matchmaker"),
    ],
)
async def test_a_service_not_configured_is_unavailable(rpc: str, what: str) -> None:
    request = next(r for name, r in FORWARDED if name == rpc)
    with pytest.raises(Unavailable, match=f"the {what} service is not configured here"):
        await getattr(Backend().servicer(configured=False), rpc)(request, None)
