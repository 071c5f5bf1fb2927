"""The gateway forwarding to the collection and rating services, as a player meets it.

Match, collection, rating and gateway run as processes on real PostgreSQL and NATS; the
test speaks the public API over TLS, and reaches an internal service only where the
matchmaker (not started here) would: to lock the decks and create a match. The match
service's MatchFinished goes over JetStream to collection (Trade One, coins) and rating.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import uuid4

import grpc
import pytest
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc, gateway_pb2_grpc, match_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from devtools.devcert import ensure_dev_certificate
from devtools.players import PASSWORD, SECRET, bearer, collect, expect
from devtools.processes import Service, free_port
from services.collection.tests.process import ADMIN

pytestmark = pytest.mark.integration
RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)
DRAFT = pb.LadderKey(ladder=pb.LADDER_DRAFT, season=0)
STARTER_COPIES, STARTER_COINS = 10, 300  # services/collection/domain/wealth.py
DRAFT_INACTIVITY_SECONDS = 2.0
T = TypeVar("T")
if TYPE_CHECKING:  # the async stub exists only in the type stubs
    Api = gateway_pb2_grpc.TriadGatewayAsyncStub


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """One backend for the module (players are unique per test, so tests do not meet).

    The relay of the match service publishes to the default stream, so collection and
    rating read that stream too; each has a schema of its own, and rating a durable
    consumer of its own, so no other test's process takes their events.
    """
    logs = tmp_path_factory.mktemp("gateway-services")
    tag = uuid4().hex[:10]
    ports = {name: free_port() for name in ("match", "collection", "rating", "gateway")}
    shared = {"TRIAD_DATABASE_URL": shared_database_url, "TRIAD_NATS_URL": nats_url}
    services = {
        "match": Service(
            "services.match.main",
            {
                **shared,
                "TRIAD_MATCH_SCHEMA": f"match_{tag}",
                "TRIAD_MATCH_PORT": str(ports["match"]),
                "TRIAD_MATCH_METRICS_PORT": "0",
            },
            ports["match"],
            logs / "match.log",
        ),
        "collection": Service(
            "services.collection.main",
            {
                **shared,
                "TRIAD_COLLECTION_SCHEMA": f"collection_{tag}",
                "TRIAD_COLLECTION_PORT": str(ports["collection"]),
                "TRIAD_COLLECTION_METRICS_PORT": "0",
                "TRIAD_ADMIN_TOKEN": ADMIN,
                # A draft's 120-s inactivity forfeit, short: only the draft test drafts.
                "TRIAD_DRAFT_INACTIVITY_SECONDS": str(DRAFT_INACTIVITY_SECONDS),
            },
            ports["collection"],
            logs / "collection.log",
        ),
        "rating": Service(
            "services.rating.main",
            {
                **shared,
                "TRIAD_RATING_SCHEMA": f"rating_{tag}",
                "TRIAD_RATING_PORT": str(ports["rating"]),
                "TRIAD_RATING_METRICS_PORT": "0",
                "TRIAD_RATING_CONSUMER": f"rating_{tag}",
            },
            ports["rating"],
            logs / "rating.log",
        ),
    }
    cert, key = ensure_dev_certificate(logs / "tls")
    gateway = Service(
        "gateway.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,  # the players' pushes
            "TRIAD_GATEWAY_SCHEMA": f"gateway_{tag}",
            "TRIAD_GATEWAY_PORT": str(ports["gateway"]),
            "TRIAD_GATEWAY_METRICS_PORT": "0",
            "TRIAD_TOKEN_SECRET": SECRET,
            "TRIAD_GATEWAY_TLS_CERT": str(cert),
            "TRIAD_GATEWAY_TLS_KEY": str(key),
            "TRIAD_MATCH_ADDR": services["match"].address,
            "TRIAD_COLLECTION_ADDR": services["collection"].address,
            "TRIAD_RATING_ADDR": services["rating"].address,
            "TRIAD_MATCHMAKER_ADDR": "",  # not configured: its RPCs answer UNAVAILABLE
            "TRIAD_HEARTBEAT_SECONDS": "0.2",
            "TRIAD_RATE_PER_SECOND": "200",
            "TRIAD_RATE_BURST": "200",
        },
        ports["gateway"],
        logs / "gateway.log",
        root_certificates=cert.read_bytes(),
    )
    try:
        with ThreadPoolExecutor(len(services)) as pool:  # the services start in parallel
            for started in [pool.submit(s.start) for s in services.values()]:
                started.result()
        gateway.start()
        yield {**services, "gateway": gateway, "cert": cert}
    finally:
        codes = {"gateway": gateway.stop()}
        with ThreadPoolExecutor(len(services)) as pool:  # each may take seconds to drain
            codes.update(zip(services, pool.map(Service.stop, services.values()), strict=True))
        for name, code in codes.items():
            log = gateway.log if name == "gateway" else services[name].log
            assert code == 0, f"{name}: {log.read_text()[-2000:]}"


@pytest.fixture
async def api(backend: dict[str, Any]) -> AsyncIterator[Api]:
    creds = grpc.ssl_channel_credentials(root_certificates=backend["cert"].read_bytes())
    async with grpc.aio.secure_channel(backend["gateway"].address, creds) as channel:
        yield gateway_pb2_grpc.TriadGatewayStub(channel)


class Player:
    """A registered player calling the public API with their own token."""

    def __init__(self, api: Api, registered: g.RegisterResponse) -> None:
        self.api = api
        self.id = registered.player.player_id
        self.name = registered.player.player_name
        self.tokens = registered.tokens
        self.meta = bearer(registered.tokens)

    def __getattr__(self, rpc: str) -> Callable[[Any], Awaitable[Any]]:
        method = getattr(self.api, rpc)
        return lambda request: method(request, metadata=self.meta, timeout=10)

    async def copies(self) -> list[pb.OwnedCopy]:
        reply = await self.ListCollection(g.ListCollectionRequest())
        return [e.copy for e in reply.entries]


async def join(api: Api) -> Player:
    name = f"p{uuid4().hex[:10]}"
    registered = await api.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    )
    return Player(api, registered)


def rid() -> str:
    return uuid4().hex


async def until(probe: Callable[[], Awaitable[T]], ok: Callable[[T], bool], what: str) -> T:
    """Poll ``probe`` until ``ok``: events cross NATS between the services."""
    deadline = time.monotonic() + 20
    while not ok(found := await probe()):
        assert time.monotonic() < deadline, f"never: {what}; last {found}"
        await asyncio.sleep(0.1)
    return found


async def test_a_new_player_gets_a_starter_collection_and_builds_decks(api: Api) -> None:
    ann = await join(api)
    collection = await ann.ListCollection(g.ListCollectionRequest())
    assert collection.total_size == STARTER_COPIES == len(collection.entries)
    assert {e.copy.owner_player_id for e in collection.entries} == {ann.id}
    assert (await ann.GetBalance(g.GetBalanceRequest())).balance.coins == STARTER_COINS
    status = (await ann.GetPlayerStatus(g.GetPlayerStatusRequest())).status
    assert status.balance.coins == STARTER_COINS and not status.obligations
    assert not status.HasField("pending_trade") and not status.HasField("ticket")
    session = api.OpenSession(g.OpenSessionRequest(), metadata=ann.meta)
    async for push in session:  # the first push shows the collection's part too
        assert push.session_opened.status.balance.coins == STARTER_COINS
        break
    session.cancel()
    # filters and pages go through
    fours = await ann.ListCatalog(g.ListCatalogRequest(filter=pb.CatalogFilter(stars=[4])))
    assert fours.total_size and all(x.stars == 4 for x in fours.characters)
    page = await ann.ListCatalog(g.ListCatalogRequest(page_size=7))
    assert len(page.characters) == 7 and page.next_page_token and page.total_size > 7
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        ann.ListCatalog(g.ListCatalogRequest(filter=pb.CatalogFilter(stars=[6]))),
        "stars",
    )
    ones = await ann.ListCollection(g.ListCollectionRequest(filter=pb.CollectionFilter(stars=[1])))
    assert ones.total_size and all(e.copy.character.stars == 1 for e in ones.entries)

    ids = [x.copy_id for x in await ann.copies()]
    save = g.SaveDeckRequest(request_id=rid(), name="Main", copy_ids=ids[:5])
    deck = (await ann.SaveDeck(save)).deck
    assert list(deck.copy_ids) == ids[:5] and not deck.violations
    assert (await ann.SaveDeck(save)).deck.deck_id == deck.deck_id  # a retry saves once
    assert [d.deck_id for d in (await ann.ListDecks(g.ListDecksRequest())).decks] == [deck.deck_id]
    assert (await ann.ValidateDeck(g.ValidateDeckRequest(deck_id=deck.deck_id))).valid
    assert (await ann.ValidateDeck(g.ValidateDeckRequest(random=pb.RandomDeck()))).valid
    checked = await ann.ValidateDeck(
        g.ValidateDeckRequest(copies=pb.CopySelection(copy_ids=[*ids[:4], ids[0]]))
    )
    assert not checked.valid
    assert pb.DECK_RULE_DISTINCT_COPIES in {v.rule for v in checked.violations}
    assert all(ids[0] in v.card_ids and v.message for v in checked.violations)
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        ann.SaveDeck(g.SaveDeckRequest(request_id=rid(), name="Bad", copy_ids=ids[:4])),
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        ann.SaveDeck(g.SaveDeckRequest(request_id="x" * 65, name="Long", copy_ids=ids[:5])),
        "request_id",
    )
    await ann.DeleteDeck(g.DeleteDeckRequest(request_id=rid(), deck_id=deck.deck_id))
    assert not (await ann.ListDecks(g.ListDecksRequest())).decks


async def test_boosters_are_bought_verified_and_listed(api: Api) -> None:
    ann = await join(api)
    odds = await ann.GetBoosterOdds(g.GetBoosterOddsRequest())
    assert odds.odds.price_coins > 0 and odds.boosters_since_pity == 0
    commitment = (await ann.GetSeedCommitment(g.GetSeedCommitmentRequest())).commitment
    assert commitment.server_seed_hash and commitment.next_counter == 0

    buy = g.OpenBoosterRequest(
        request_id=rid(), expected_server_seed_hash=commitment.server_seed_hash
    )
    opened = await ann.OpenBooster(buy)
    assert opened.balance.coins == STARTER_COINS - odds.odds.price_coins
    assert opened.draw.seed_id == commitment.seed_id and opened.draw.copies
    again = await ann.OpenBooster(buy)  # a retry never buys twice
    assert again.draw.draw_id == opened.draw.draw_id
    assert (await ann.GetBalance(g.GetBalanceRequest())).balance.coins == opened.balance.coins
    owned = {x.copy_id for x in await ann.copies()}
    assert {x.copy_id for x in opened.draw.copies} <= owned

    draws = await ann.ListBoosterDraws(g.ListBoosterDrawsRequest(seed_id=commitment.seed_id))
    assert [d.draw_id for d in draws.draws] == [opened.draw.draw_id]

    rotated = await ann.SetClientSeed(g.SetClientSeedRequest(request_id=rid(), client_seed="x"))
    assert rotated.revealed_seed.seed_id == commitment.seed_id
    assert rotated.revealed_seed.server_seed  # revealed: the draw can be checked now
    assert rotated.commitment.client_seed == "x" and rotated.commitment.next_counter == 0
    await expect(
        grpc.StatusCode.ABORTED,
        ann.OpenBooster(
            g.OpenBoosterRequest(
                request_id=rid(), expected_server_seed_hash=commitment.server_seed_hash
            )
        ),
    )
    first = await ann.ListServerSeeds(g.ListServerSeedsRequest(page_size=1))
    assert [s.seed_id for s in first.seeds] == [rotated.commitment.seed_id]
    assert not first.seeds[0].server_seed and first.next_page_token  # in force: hash only
    rest = await ann.ListServerSeeds(g.ListServerSeedsRequest(page_token=first.next_page_token))
    assert [s.seed_id for s in rest.seeds] == [commitment.seed_id]


async def test_another_players_things_are_not_found(api: Api) -> None:
    ann, bea = await join(api), await join(api)
    ann_ids = [x.copy_id for x in await ann.copies()]
    bea_ids = [x.copy_id for x in await bea.copies()]
    deck = (
        await ann.SaveDeck(g.SaveDeckRequest(request_id=rid(), name="A", copy_ids=ann_ids[:5]))
    ).deck
    seed = (await ann.GetSeedCommitment(g.GetSeedCommitmentRequest())).commitment.seed_id

    assert (await ann.GetCopy(g.GetCopyRequest(copy_id=ann_ids[0]))).entry.copy.copy_id
    for call in (
        bea.GetCopy(g.GetCopyRequest(copy_id=ann_ids[0])),
        bea.ValidateDeck(g.ValidateDeckRequest(deck_id=deck.deck_id)),
        bea.DeleteDeck(g.DeleteDeckRequest(request_id=rid(), deck_id=deck.deck_id)),
        bea.SaveDeck(
            g.SaveDeckRequest(
                request_id=rid(), deck_id=deck.deck_id, name="B", copy_ids=bea_ids[:5]
            )
        ),
        bea.ListBoosterDraws(g.ListBoosterDrawsRequest(seed_id=seed)),
        bea.GetDraft(g.GetDraftRequest(draft_id=str(uuid4()))),
    ):
        details = await expect(grpc.StatusCode.NOT_FOUND, call)
        assert ann.id not in details
    # Ann's copies in a deck of Bea's own: not hers to play
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        bea.SaveDeck(g.SaveDeckRequest(request_id=rid(), name="B", copy_ids=ann_ids[:5])),
    )
    assert (await ann.ListDecks(g.ListDecksRequest())).decks[0].deck_id == deck.deck_id


async def test_a_fresh_player_is_unrated_and_the_matchmaker_is_not_here(api: Api) -> None:
    ann = await join(api)
    rating = (await ann.GetRating(g.GetRatingRequest(ladder=RANKED))).rating
    assert (rating.rating, rating.games, rating.rank, rating.provisional) == (1500, 0, 0, True)
    assert rating.player_id == ann.id and rating.player_name == ann.name
    await expect(grpc.StatusCode.INVALID_ARGUMENT, ann.GetRating(g.GetRatingRequest()), "ladder")
    board = await ann.GetLeaderboard(g.GetLeaderboardRequest(ladder=RANKED, top_n=5))
    assert not board.HasField("my_entry") and len(board.entries) <= 5
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        ann.GetLeaderboard(g.GetLeaderboardRequest(ladder=RANKED, top_n=101)),
    )
    assert not (await ann.ListRatingHistory(g.ListRatingHistoryRequest(ladder=RANKED))).changes

    for call in (
        ann.Enqueue(g.EnqueueRequest(request_id=rid(), mode=pb.MODE_UNRANKED)),
        ann.ListTables(g.ListTablesRequest()),
        ann.StartPractice(g.StartPracticeRequest(request_id=rid(), origin_mode=pb.MODE_UNRANKED)),
    ):
        await expect(grpc.StatusCode.UNAVAILABLE, call, "matchmaker service is not configured")
    # Without the matchmaker the status still answers, with no ticket.
    assert (await ann.GetPlayerStatus(g.GetPlayerStatusRequest())).status.balance.coins


async def test_a_rated_trade_one_match_settles_through_the_services(
    api: Api, backend: dict[str, Any]
) -> None:
    ann, bea, cai = await join(api), await join(api), await join(api)
    match_id = str(uuid4())
    ann_ids = [x.copy_id for x in await ann.copies()]
    deck = (
        await ann.SaveDeck(g.SaveDeckRequest(request_id=rid(), name="A", copy_ids=ann_ids[:5]))
    ).deck
    # What the matchmaker does for a trading match: resolve and lock both decks, then
    # create the match with those cards.
    async with (
        grpc.aio.insecure_channel(backend["collection"].address) as cch,
        grpc.aio.insecure_channel(backend["match"].address) as mch,
    ):
        collection = collection_pb2_grpc.CollectionServiceStub(cch)
        seats = []
        for seat, player, choice in (
            (pb.SEAT_A, ann, pb.DeckChoice(deck_id=deck.deck_id)),
            (pb.SEAT_B, bea, pb.DeckChoice(random=pb.RandomDeck())),
        ):
            resolved = await collection.ResolveDeckForMatch(
                c.CollectionServiceResolveDeckForMatchRequest(
                    request_id=f"resolve-{match_id}",
                    player_id=player.id,
                    deck=choice,
                    purpose_id=match_id,
                    lock_for=pb.LockHolder(match_id=match_id),
                )
            )
            seats.append(
                m.SeatSetup(
                    player=pb.SeatPlayer(seat=seat, player_id=player.id, player_name=player.name),
                    deck=resolved.cards,
                )
            )
        await match_pb2_grpc.MatchServiceStub(mch).CreateMatch(
            m.MatchServiceCreateMatchRequest(
                request_id=f"create-{match_id}",
                match_id=match_id,
                mode=pb.MODE_RANKED,
                rules=pb.Rules(
                    visibility=pb.VISIBILITY_CLOSED,
                    same=True,
                    plus=True,
                    combo=True,
                    trade_rule=pb.TRADE_RULE_ONE,
                ),
                ladder=RANKED,
                seats=seats,
            )
        )
    locked = await ann.ListCollection(
        g.ListCollectionRequest(filter=pb.CollectionFilter(locked=True))
    )
    assert {e.copy.copy_id for e in locked.entries} == set(ann_ids[:5])
    assert all(e.lock.holder.match_id == match_id for e in locked.entries)
    status = (await ann.GetPlayerStatus(g.GetPlayerStatusRequest())).status
    assert status.active_match_id == match_id
    assert [(o.kind, o.id) for o in status.obligations] == [
        (pb.OBLIGATION_KIND_ACTIVE_MATCH, match_id)
    ]

    await ann.Forfeit(g.ForfeitRequest(request_id=rid(), match_id=match_id))  # Bea wins

    trade = (
        await until(
            lambda: bea.GetPendingTrade(g.GetPendingTradeRequest()),
            lambda r: r.HasField("trade"),
            "the trade opens for the winner",
        )
    ).trade
    assert trade.match_id == match_id and trade.my_role == pb.TRADE_ROLE_CHOOSER
    offered = [x.copy_id for x in trade.offered_copies]
    assert sorted(offered) == sorted(ann_ids[:5])
    given = (await ann.GetPendingTrade(g.GetPendingTradeRequest())).trade
    assert given.trade_id == trade.trade_id and given.my_role == pb.TRADE_ROLE_GIVER
    bea_status = (await bea.GetPlayerStatus(g.GetPlayerStatusRequest())).status
    assert bea_status.pending_trade.trade_id == trade.trade_id
    assert (pb.OBLIGATION_KIND_PENDING_TRADE, trade.trade_id) in [
        (o.kind, o.id) for o in bea_status.obligations
    ]
    assert not (await cai.GetPendingTrade(g.GetPendingTradeRequest())).HasField("trade")

    def choose(copy_id: str) -> g.ChooseTradeCardRequest:
        return g.ChooseTradeCardRequest(request_id=rid(), trade_id=trade.trade_id, copy_id=copy_id)

    await expect(grpc.StatusCode.NOT_FOUND, cai.ChooseTradeCard(choose(offered[0])))
    await expect(grpc.StatusCode.PERMISSION_DENIED, ann.ChooseTradeCard(choose(offered[0])))
    bea_own = (await bea.copies())[0].copy_id
    await expect(grpc.StatusCode.INVALID_ARGUMENT, bea.ChooseTradeCard(choose(bea_own)))
    chosen = (await bea.ChooseTradeCard(choose(offered[0]))).trade
    assert chosen.chosen_copy_id == offered[0]
    assert chosen.status == pb.TRADE_STATUS_COMPLETED

    # the copy moved with the choice: Bea's when the call answers
    moved = await bea.GetCopy(g.GetCopyRequest(copy_id=offered[0]))
    assert moved.entry.copy.owner_player_id == bea.id and not moved.entry.HasField("lock")
    await expect(grpc.StatusCode.NOT_FOUND, ann.GetCopy(g.GetCopyRequest(copy_id=offered[0])))
    ann_coins = (await ann.GetBalance(g.GetBalanceRequest())).balance.coins
    bea_coins = (await bea.GetBalance(g.GetBalanceRequest())).balance.coins
    # Ann gave up before either placed a card: not a match played, nobody is paid for it.
    assert bea_coins == ann_coins == STARTER_COINS

    # rating: both rated from 1500, K = 40
    rating = await until(
        lambda: bea.GetRating(g.GetRatingRequest(ladder=RANKED)),
        lambda r: r.rating.games == 1,
        "Bea's game is rated",
    )
    assert (rating.rating.rating, rating.rating.wins, rating.rating.provisional) == (1520, 1, True)
    lost = (await ann.GetRating(g.GetRatingRequest(ladder=RANKED))).rating
    assert (lost.rating, lost.losses) == (1480, 1)
    history = await bea.ListRatingHistory(g.ListRatingHistoryRequest(ladder=RANKED))
    assert [(h.match_id, h.delta) for h in history.changes] == [(match_id, 20)]
    board = await bea.GetLeaderboard(g.GetLeaderboardRequest(ladder=RANKED, top_n=100))
    assert board.my_entry.player_name == bea.name and board.my_entry.rating == 1520
    assert board.ranked_player_count >= 2


async def test_a_draft_forfeited_by_inactivity_is_the_forfeiters_loss_on_the_draft_ladder(
    api: Api, backend: dict[str, Any]
) -> None:
    """RULES.md 8 and 10: Ann stays idle past the inactivity limit while Bea drafts; the
    draft ends forfeited, its view names who forfeited and who won, and the Draft ladder
    rates it once as Ann's loss, the change naming the draft (there is no match)."""
    ann, bea = await join(api), await join(api)
    pushes: list[g.OpenSessionResponse] = []
    session = asyncio.create_task(collect(api, ann.tokens, pushes))
    draft_id = str(uuid4())
    async with grpc.aio.insecure_channel(backend["collection"].address) as cch:
        # What the matchmaker does when it pairs two Draft tickets.
        await collection_pb2_grpc.CollectionServiceStub(cch).CreateDraft(
            c.CollectionServiceCreateDraftRequest(
                request_id=f"draft-{draft_id}",
                draft_id=draft_id,
                pairing_id=str(uuid4()),
                ladder=DRAFT,
                participants=[pb.PlayerRef(player_id=p.id, player_name=p.name) for p in (ann, bea)],
            )
        )
    # Bea keeps drafting (every action restarts her clock) until her deck is complete or
    # the draft is over; Ann does nothing.
    view = (await bea.GetDraft(g.GetDraftRequest(draft_id=draft_id))).draft

    async def act(call: Awaitable[Any]) -> None:
        nonlocal view
        try:
            view = (await call).draft
        except grpc.aio.AioRpcError as error:  # a pick breaking the deck rules; the end
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error

    for booster in range(3):
        await act(
            bea.RevealDraftCards(
                g.RevealDraftCardsRequest(
                    request_id=rid(), draft_id=draft_id, booster_index=booster
                )
            )
        )
    for card in [s.revealed for b in view.boosters for s in b.slots if s.HasField("revealed")]:
        if len(view.picked_card_ids) == view.picks_required:
            break
        await act(
            bea.PickDraftCard(
                g.PickDraftCardRequest(
                    request_id=rid(), draft_id=draft_id, draft_card_id=card.card_id
                )
            )
        )

    for me in (ann, bea):
        ended = await until(
            partial(me.GetDraft, g.GetDraftRequest(draft_id=draft_id)),
            lambda r: r.draft.status != pb.DRAFT_STATUS_PICKING,
            "the draft ends",
        )
        assert ended.draft.status == pb.DRAFT_STATUS_FORFEITED
        assert list(ended.draft.forfeiting_player_names) == [ann.name]
        assert ended.draft.winner_player_name == bea.name
        assert not ended.draft.match_id

    lost = (
        await until(
            lambda: ann.GetRating(g.GetRatingRequest(ladder=DRAFT)),
            lambda r: r.rating.games == 1,
            "Ann's forfeit is rated",
        )
    ).rating
    assert (lost.rating, lost.losses, lost.wins) == (1480, 1, 0)
    won = (await bea.GetRating(g.GetRatingRequest(ladder=DRAFT))).rating
    assert (won.rating, won.wins, won.games) == (1520, 1, 1)
    for me, delta, opponent in ((ann, -20, bea), (bea, 20, ann)):
        history = (await me.ListRatingHistory(g.ListRatingHistoryRequest(ladder=DRAFT))).changes
        assert [(h.draft_id, h.match_id, h.delta, h.opponent_name) for h in history] == [
            (draft_id, "", delta, opponent.name)
        ]
        ranked = (await me.GetRating(g.GetRatingRequest(ladder=RANKED))).rating
        assert ranked.games == 0  # the Draft ladder only

    # Ann's session shows her the draft's end and her rating change.
    await until(
        lambda: asyncio.sleep(0, pushes),
        lambda got: (
            any(p.HasField("rating_change") for p in got)
            and any(p.draft.status == pb.DRAFT_STATUS_FORFEITED for p in got)
        ),
        "Ann's session shows the forfeit and the rating change",
    )
    final = [p.draft for p in pushes if p.draft.status == pb.DRAFT_STATUS_FORFEITED][-1]
    assert list(final.forfeiting_player_names) == [ann.name]
    assert final.winner_player_name == bea.name
    change = [p.rating_change for p in pushes if p.HasField("rating_change")]
    assert [(x.draft_id, x.match_id, x.delta) for x in change] == [(draft_id, "", -20)]
    session.cancel()
