"""The gateway forwarding to the collection and rating services, as a player meets it: a
starter collection and decks, boosters bought, verified and listed, other players'
things not found, a fresh player unrated.

Match, collection, rating and gateway run as processes on real PostgreSQL and NATS; the
test speaks the public API over TLS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import expect
from tests.integration.gateway_services.gateway_services_players import (
    RANKED,
    STARTER_COINS,
    STARTER_COPIES,
    join,
    rid,
)

if TYPE_CHECKING:
    from tests.integration.gateway_services.gateway_services_players import Api

pytestmark = pytest.mark.integration


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
    # The Draft's boosters too (RULES.md 8; found from outside: published nowhere): each
    # slot's ranks from its lowest, their chances summing to one.
    lowest = [min(s.stars for s in slot.star_odds) for slot in odds.draft_slots]
    assert lowest == [1, 1, 1, 3, 4], odds.draft_slots
    for slot in odds.draft_slots:
        assert abs(sum(s.probability for s in slot.star_odds) - 1) < 1e-9, slot
        assert max(s.stars for s in slot.star_odds) == 5, slot
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
