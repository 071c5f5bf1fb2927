"""Every forwarded RPC against recording stand-ins of the internal services: each internal
call has the deadline, names the token's player, and carries every field the player set.

The process tests (tests/integration/test_gateway_services.py) show the services answering; these
cover every RPC, including the matchmaker's, which is not started there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import battle_pb2, collection_pb2, match_pb2, matchmaker_pb2, rating_pb2
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.accounts import Claims
from gateway.auth import _CALLER
from gateway.forwarding import MAX_PAGE_SIZE
from gateway.server import GatewayServicer
from gateway.store import Account
from services.platform.downstream import INTERNAL_DEADLINE
from services.platform.errors import InvalidArgument, NotFound, Unavailable

ME = Claims("player-me", "Me", "jti", datetime.now(UTC), datetime.now(UTC))


@dataclass
class Call:
    service: str
    method: str
    request: Any
    timeout: float | None


@dataclass
class Backend:
    """Stand-ins for the four internal services, recording every call."""

    calls: list[Call] = field(default_factory=list)
    answers: dict[str, Message | Exception] = field(default_factory=dict)

    def stub(self, service: ServiceDescriptor) -> Any:
        backend = self

        class Stub:
            def __getattr__(self, name: str) -> Any:
                output = GetMessageClass(service.methods_by_name[name].output_type)

                async def invoke(request: Message, timeout: float | None = None) -> Message:
                    backend.calls.append(Call(service.name, name, request, timeout))
                    answer = backend.answers.get(name)
                    if isinstance(answer, Exception):
                        raise answer
                    return answer if answer is not None else output()

                return invoke

        return Stub()

    def servicer(self, *, configured: bool = True) -> GatewayServicer:
        def service(module: Any, name: str) -> Any:
            return self.stub(module.DESCRIPTOR.services_by_name[name]) if configured else None

        none = cast(Any, None)  # accounts, tokens and sessions are not used here
        return GatewayServicer(
            none,
            none,
            none,
            self.stub(match_pb2.DESCRIPTOR.services_by_name["MatchService"]),
            matchmaker=service(matchmaker_pb2, "MatchmakerService"),
            collection=service(collection_pb2, "CollectionService"),
            rating=service(rating_pb2, "RatingService"),
            battle=service(battle_pb2, "BattleService"),
        )


@pytest.fixture(autouse=True)
def caller() -> None:
    _CALLER.set(ME)


DECK = pb.DeckChoice(deck_id="deck-1")
RULES = pb.TableSettings(rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True))
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


async def test_a_practice_battle_is_created_once_per_request_id_with_the_callers_team() -> None:
    backend = Backend()
    request = g.StartPracticeBattleRequest(
        request_id="p1", bot_level=pb.BATTLE_BOT_LEVEL_SEARCH, characters=["a", "b", "c"]
    )
    await backend.servicer().StartPracticeBattle(request, None)
    await backend.servicer().StartPracticeBattle(request, None)
    creates = [c.request for c in backend.calls if c.method == "CreateBattle"]
    assert creates[0].battle_id == creates[1].battle_id, "a retry names the same battle"
    me, cpu = creates[0].seats
    assert (me.player_id, list(me.characters)) == (ME.player_id, ["a", "b", "c"])
    assert (cpu.player_id, cpu.bot_level) == ("", pb.BATTLE_BOT_LEVEL_SEARCH)
    views = [c.request for c in backend.calls if c.method == "GetBattleView"]
    assert views[0].player_id == ME.player_id and views[0].battle_id == creates[0].battle_id
    assert all(c.timeout == INTERNAL_DEADLINE for c in backend.calls)


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


async def test_unset_choices_stay_unset_and_pages_are_capped() -> None:
    backend = Backend()
    servicer = backend.servicer()
    await servicer.Enqueue(g.EnqueueRequest(request_id="r", mode=pb.MODE_DRAFT), None)
    await servicer.StartPractice(
        g.StartPracticeRequest(request_id="r", origin_mode=pb.MODE_RANKED, deck=DECK), None
    )
    await servicer.ListCollection(g.ListCollectionRequest(page_size=5000), None)
    enqueue, practice, _view, copies = (c.request for c in backend.calls)
    assert not enqueue.HasField("deck")  # Draft refuses a deck, even an empty one
    assert practice.HasField("deck") and not practice.HasField("custom_settings")
    assert copies.page_size == MAX_PAGE_SIZE and not copies.HasField("filter")


async def test_a_started_match_comes_with_the_callers_view() -> None:
    backend = Backend()
    backend.answers["JoinTable"] = matchmaker_pb2.MatchmakerServiceJoinTableResponse(
        table=pb.Table(table_id="tb"), match_id="m1"
    )
    backend.answers["GetView"] = match_pb2.MatchServiceGetViewResponse(
        view=pb.MatchView(match_id="m1", version=3)
    )
    reply = await backend.servicer().JoinTable(
        g.JoinTableRequest(request_id="r", table_id="tb"), None
    )
    assert (reply.match_id, reply.view.version, reply.table.table_id) == ("m1", 3, "tb")
    view = backend.calls[-1]
    assert (view.method, view.request.player_id) == ("GetView", ME.player_id)


class Accounts:
    """The gateway's accounts as a challenge looks a name up."""

    def __init__(self, *accounts: Account) -> None:
        self.named = {a.name.lower(): a for a in accounts}
        self.asked: list[str] = []

    async def account_named(self, name: str) -> Account | None:
        self.asked.append(name)
        return self.named.get(name.lower())


async def test_a_challenge_names_the_player_the_accounts_know_or_is_not_found() -> None:
    backend = Backend()
    servicer = backend.servicer()
    bea = Account("player-bea", "Bea", "hash", datetime.now(UTC))
    servicer._store = cast(Any, Accounts(bea))
    request = g.CreateTableRequest(
        request_id="r", settings=RULES, deck=DECK, challenged_player_name="bea"
    )
    await servicer.CreateTable(request, None)
    (call,) = backend.calls
    assert call.request.challenged == pb.PlayerRef(player_id="player-bea", player_name="Bea")
    assert call.request.challenged_player_name == "Bea"
    with pytest.raises(NotFound, match="no player is named 'Bob': check the spelling"):
        await servicer.CreateTable(
            g.CreateTableRequest(request_id="r", challenged_player_name="Bob"), None
        )
    with pytest.raises(NotFound, match="no player has that name"):
        await servicer.CreateTable(
            g.CreateTableRequest(request_id="r", challenged_player_name="x" * 5000), None
        )
    assert len(backend.calls) == 1 and servicer._store.asked == ["bea", "Bob"]  # type: ignore[attr-defined]


async def test_request_ids_are_checked_before_anything_leaves() -> None:
    backend = Backend()
    for bad in ("", "x" * 65):
        with pytest.raises(InvalidArgument, match="request_id"):
            await backend.servicer().OpenBooster(g.OpenBoosterRequest(request_id=bad), None)
    assert not backend.calls


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


async def test_internal_errors_reach_the_player_as_the_contract_says() -> None:
    backend = Backend()
    servicer = backend.servicer()
    meta = grpc.aio.Metadata()
    backend.answers["GetCopy"] = grpc.aio.AioRpcError(
        grpc.StatusCode.NOT_FOUND, meta, meta, details="you have no copy c"
    )
    with pytest.raises(NotFound, match="you have no copy c"):
        await servicer.GetCopy(g.GetCopyRequest(copy_id="c"), None)
    backend.answers["GetRating"] = grpc.aio.AioRpcError(
        grpc.StatusCode.INTERNAL, meta, meta, details="relation rating.x does not exist"
    )
    with pytest.raises(Unavailable) as hidden:
        await servicer.GetRating(g.GetRatingRequest(), None)
    assert "relation" not in str(hidden.value)


async def test_the_status_gathers_every_service() -> None:
    backend = Backend()
    backend.answers.update(
        GetActiveMatch=match_pb2.MatchServiceGetActiveMatchResponse(
            active_match=match_pb2.ActiveMatch(match_id="m1")
        ),
        GetBalance=collection_pb2.CollectionServiceGetBalanceResponse(
            balance=pb.Balance(coins=120)
        ),
        HasPendingObligations=collection_pb2.CollectionServiceHasPendingObligationsResponse(
            blocked=True,
            obligations=[pb.Obligation(kind=pb.OBLIGATION_KIND_OPEN_DRAFT, id="dr")],
        ),
        GetQueueStatus=matchmaker_pb2.MatchmakerServiceGetQueueStatusResponse(
            status=pb.QueueStatus(ticket=pb.Ticket(status=pb.TICKET_STATUS_CANCELLED)),
            hosted_table=pb.Table(table_id="tb", status=pb.TABLE_STATUS_OPEN),
        ),
    )
    player = g.Player(player_id=ME.player_id, player_name=ME.name)
    status = await backend.servicer()._status(player)
    assert (status.active_match_id, status.balance.coins, status.draft_id) == ("m1", 120, "dr")
    assert [o.kind for o in status.obligations] == [
        pb.OBLIGATION_KIND_ACTIVE_MATCH,
        pb.OBLIGATION_KIND_OPEN_DRAFT,
    ]
    assert not status.HasField("ticket")  # a cancelled ticket is not a queue
    assert status.hosted_table.table_id == "tb" and not status.HasField("pending_trade")
    assert all(c.timeout == INTERNAL_DEADLINE for c in backend.calls)

    # the session's status does without a collection that does not answer
    backend.answers["GetBalance"] = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata()
    )
    with pytest.raises(Unavailable):
        await backend.servicer()._status(player)
    partial = await backend.servicer()._status(player, partial=True)
    assert partial.active_match_id == "m1" and not partial.HasField("balance")


async def test_a_battle_view_not_newer_than_the_one_shown_is_dropped() -> None:
    """Pushes are hints that may arrive out of order (two replicas, a restart's
    re-announcement): a session shows each battle's views in version order only."""
    from gateway.pushes import Push
    from gateway.session import Shown

    servicer = Backend().servicer()
    shown = Shown("player-me", "s1", datetime.now(UTC))

    async def show(battle_id: str, version: int) -> list[int]:
        view = pb.BattleView(battle_id=battle_id, version=version)
        return [
            cast(pb.BattleView, v).version
            for _, v in await servicer._show(shown, Push("battle", view))
        ]

    assert await show("b1", 3) == [3]
    assert await show("b1", 2) == [] and await show("b1", 3) == []
    assert await show("b1", 4) == [4]
    assert await show("b2", 1) == [1], "each battle has its own versions"
