"""The forwarding helper's rules, one by one: the player is always the caller, presence
passes on where it means something, and a field the helper does not know is an error.
The RPC by RPC contract is in test_forwarding_every_rpc.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from triad.v1 import collection_pb2 as c
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m
from triad.v1 import matchmaker_pb2 as mm
from triad.v1 import rating_pb2 as r

from gateway.accounts import Claims
from gateway.auth import _CALLER
from gateway.forwarding import MAX_PAGE_SIZE, answer, internal_request
from gateway.tests.forwarding_stand_ins import Backend
from services.platform.errors import InvalidArgument

ME = Claims("player-me", "Me", "jti", datetime.now(UTC), datetime.now(UTC))


@pytest.fixture(autouse=True)
def caller() -> None:
    _CALLER.set(ME)


def test_a_player_named_in_the_request_is_replaced_by_the_caller() -> None:
    # an internal request as the "public" one: it carries a player id of its own
    sneaky = c.CollectionServiceGetCopyRequest(player_id="player-other", copy_id="x")
    built = internal_request(c.CollectionServiceGetCopyRequest, sneaky)
    assert (built.player_id, built.copy_id) == (ME.player_id, "x")
    ref = mm.MatchmakerServiceJoinTableRequest(
        request_id="r", player=pb.PlayerRef(player_id="player-other", player_name="Other")
    )
    joined = internal_request(mm.MatchmakerServiceJoinTableRequest, ref)
    assert joined.player == pb.PlayerRef(player_id=ME.player_id, player_name=ME.name)


def test_the_player_cannot_be_given_and_unknown_fields_are_refused() -> None:
    with pytest.raises(TypeError, match="always the caller"):
        internal_request(
            c.CollectionServiceGetCopyRequest, g.GetCopyRequest(), player_id="player-other"
        )
    with pytest.raises(TypeError, match="has no field colour"):
        internal_request(c.CollectionServiceGetCopyRequest, g.GetCopyRequest(), colour="red")


def test_request_ids_are_checked_and_pages_capped_on_the_way_in() -> None:
    with pytest.raises(InvalidArgument, match="request_id"):
        internal_request(c.CollectionServiceSaveDeckRequest, g.SaveDeckRequest(request_id=""))
    listed = internal_request(
        c.CollectionServiceListDecksRequest, g.ListDecksRequest(page_size=10_000)
    )
    assert listed.page_size == MAX_PAGE_SIZE
    negative = internal_request(
        c.CollectionServiceListDecksRequest, g.ListDecksRequest(page_size=-1)
    )
    assert negative.page_size == -1  # the service refuses it with its own message


def test_an_unset_choice_stays_unset_and_a_chosen_one_arrives() -> None:
    none = internal_request(c.CollectionServiceValidateDeckRequest, g.ValidateDeckRequest())
    assert none.WhichOneof("deck") is None
    rnd = internal_request(
        c.CollectionServiceValidateDeckRequest,
        g.ValidateDeckRequest(random=pb.RandomDeck(), hand_size=5),
    )
    assert rnd.WhichOneof("deck") == "random" and rnd.hand_size == 5
    zero = internal_request(
        m.MatchServicePlaceCardRequest, g.PlaceCardRequest(request_id="r", expected_version=0)
    )
    assert zero.HasField("expected_version") and zero.expected_version == 0
    unset = internal_request(m.MatchServicePlaceCardRequest, g.PlaceCardRequest(request_id="r"))
    assert not unset.HasField("expected_version")


def test_a_reply_is_copied_by_name_and_absence_passes_only_where_it_means_something() -> None:
    empty = answer(g.GetCopyResponse, c.CollectionServiceGetCopyResponse())
    assert empty.HasField("entry")  # as the gateway always answered
    no_trade = answer(
        g.GetPendingTradeResponse,
        c.CollectionServiceGetPendingTradeResponse(),
        optional=("trade",),
    )
    assert not no_trade.HasField("trade")
    listed = answer(
        g.ListDecksResponse,
        c.CollectionServiceListDecksResponse(decks=[pb.Deck(deck_id="d1")], next_page_token="next"),
    )
    assert ([d.deck_id for d in listed.decks], listed.next_page_token) == (["d1"], "next")


async def test_place_card_and_forfeit_reach_the_match_as_the_caller() -> None:
    backend = Backend()
    backend.answers["PlaceCard"] = m.MatchServicePlaceCardResponse(
        view=pb.MatchView(match_id="m1", version=4)
    )
    servicer = backend.servicer()
    placed = await servicer.PlaceCard(
        g.PlaceCardRequest(
            request_id="r1", match_id="m1", card_id="k", cell=4, lair=True, expected_version=3
        ),
        None,
    )
    await servicer.Forfeit(g.ForfeitRequest(request_id="r2", match_id="m1"), None)
    place, forfeit = (call.request for call in backend.calls)
    assert placed.view.version == 4
    assert (place.player_id, place.card_id, place.cell, place.lair) == (ME.player_id, "k", 4, True)
    assert place.expected_version == 3 and place.request_id == "r1"
    assert (forfeit.player_id, forfeit.match_id, forfeit.request_id) == (ME.player_id, "m1", "r2")


async def test_seeds_trades_ratings_and_the_leaderboard_keep_their_special_cases() -> None:
    backend = Backend()
    servicer = backend.servicer()
    seed = await servicer.SetClientSeed(g.SetClientSeedRequest(request_id="r"), None)
    assert seed.HasField("commitment") and not seed.HasField("revealed_seed")
    trade = await servicer.GetPendingTrade(g.GetPendingTradeRequest(), None)
    assert not trade.HasField("trade")
    rating = await servicer.GetRating(g.GetRatingRequest(), None)
    assert rating.rating.player_name == ME.name  # not rated yet: still themselves
    board = await servicer.GetLeaderboard(g.GetLeaderboardRequest(top_n=3), None)
    assert not board.HasField("my_entry")
    backend.answers["GetLeaderboard"] = r.RatingServiceGetLeaderboardResponse(
        entries=[pb.LeaderboardEntry(rank=1)],
        player_entry=pb.LeaderboardEntry(rank=9),
        ranked_player_count=12,
    )
    board = await servicer.GetLeaderboard(g.GetLeaderboardRequest(top_n=3), None)
    assert (board.my_entry.rank, board.ranked_player_count, len(board.entries)) == (9, 12, 1)
