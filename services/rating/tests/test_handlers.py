"""Rating matches once, in memory: property tests of the handler under messy delivery.

The in-memory ports are held to the PostgreSQL contract in test_store_contract.py, and
the same properties run on PostgreSQL with concurrent deliveries in
test_exactly_once_postgres.py.
"""

from __future__ import annotations

from random import Random
from uuid import uuid4

from hypothesis import given, settings
from hypothesis import strategies as st
from triad.v1 import common_pb2 as pb

from services.platform.pushes import RecordedPushes
from services.platform.tests.logcapture import captured_logs
from services.rating import handlers, mapping
from services.rating.domain import LOSS, FinishedGame, Ladder, LadderKey, Unrated
from services.rating.handlers import AlreadyRated, Ignored, Rated
from services.rating.store import MemoryRatings
from services.rating.tests.builders import (
    DRAFT,
    RANKED,
    bot,
    event_id,
    game,
    human,
    messy,
    random_games,
)
from services.rating.tests.replay import (
    check_log_against_the_formula,
    clean,
    deliver,
    in_log_order,
    run_now,
)

SEASON = 0
seeds = st.integers(0, 2**32)


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(1, 120))
def test_each_change_is_k_times_s_minus_e_and_equal_ks_cancel(seed: int, count: int) -> None:
    rng = Random(seed)
    store = clean(random_games(rng, count, players=6, keys=(RANKED, DRAFT)))
    log = run_now(store.log())
    assert len(log) == 2 * count
    check_log_against_the_formula(log)


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(1, 120), st.floats(0.0, 0.9))
def test_duplicates_and_redeliveries_give_exactly_the_ratings_of_one_clean_delivery(
    seed: int, count: int, duplicates: float
) -> None:
    rng = Random(seed)
    games = random_games(rng, count, players=8, keys=(RANKED, DRAFT))
    once = clean(games)
    messy_run = deliver(messy(rng, games, duplicates))
    assert messy_run.rows == once.rows
    assert messy_run.buckets == once.buckets
    assert [(c.key, c.match_id, c.player_id, c.delta) for c in run_now(messy_run.log())] == [
        (c.key, c.match_id, c.player_id, c.delta) for c in run_now(once.log())
    ]


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(1, 120))
def test_out_of_order_delivery_rates_from_the_ratings_when_applied_as_the_log_shows(
    seed: int, count: int
) -> None:
    rng = Random(seed)
    games = random_games(rng, count, players=8)
    shuffled = messy(rng, games, 0.5)
    rng.shuffle(shuffled)  # across matches, any order, duplicates anywhere
    store = deliver(shuffled)
    log = run_now(store.log())
    check_log_against_the_formula(log)
    # The log's order is the order the matches were rated in; a clean delivery in that
    # order gives the same ratings, change for change.
    order = in_log_order(games, log)
    assert sorted(g.match_id for g in order) == sorted(g.match_id for g in games)
    assert clean(order).rows == store.rows


async def test_a_match_is_rated_once_even_under_another_event_id() -> None:
    store = MemoryRatings()
    g = game("m1", "ann", "bea")
    with captured_logs() as logs:
        first = await handlers.rate_match(store, g, event_id("m1"), SEASON)
        again = await handlers.rate_match(store, g, uuid4(), SEASON)
    assert isinstance(first, Rated) and again == AlreadyRated(RANKED)
    assert store.rating(RANKED, "ann") == 1520 and store.rating(RANKED, "bea") == 1480
    # An operator follows the match to its rating in the logs, once.
    (rated,) = logs.events("rating.rated")
    assert rated["match_id"] == "m1" and rated["ratings"] == {
        "ann": [1500, 1520],
        "bea": [1500, 1480],
    }
    assert len(await store.log()) == 2


async def test_games_that_do_not_count_change_nothing() -> None:
    store = MemoryRatings()
    outcomes = [
        await handlers.rate_match(store, g, uuid4(), SEASON)
        for g in (
            game("m1", "ann", bot("bot-1")),
            game("m2", "ann", "bea", rated=False),
            game("m3", "ann", "bea", key=None),
            game("m4", "ann", "bea", score_a=None),
        )
    ]
    assert outcomes == [
        Ignored(Unrated.BOT),
        Ignored(Unrated.NOT_RATED),
        Ignored(Unrated.NO_LADDER),
        Ignored(Unrated.NO_RESULT),
    ]
    assert store.rows == {} and await store.log() == []


async def test_ladders_and_seasons_are_rated_separately() -> None:
    store = MemoryRatings()
    season1 = LadderKey(Ladder.RANKED, 1)
    for n, key in enumerate((RANKED, DRAFT, season1, season1)):
        await handlers.rate_match(store, game(f"m{n}", "ann", "bea", key=key), uuid4(), 1)
    assert store.rows[RANKED, "ann"].games == 1
    assert store.rows[DRAFT, "ann"].games == 1
    assert store.rows[season1, "ann"].games == 2
    # 1520 vs 1480: E = 0.557, 40 x (1 - 0.557) = 17.7, so +18.
    assert store.rows[season1, "ann"].rating == 1520 + 18
    # The same match id on two ladders is two results.
    again = await handlers.rate_match(store, game("m0", "ann", "bea", key=DRAFT), uuid4(), 1)
    assert isinstance(again, Rated)


async def test_each_player_of_a_rated_match_is_told_their_change_as_watch_ratings_shows_it() -> (
    None
):
    store, told = MemoryRatings(), RecordedPushes()
    outcome = await handlers.rate_match(store, game("m1", "ann", "bea"), event_id("m1"), SEASON)
    await handlers.announce(mapping.ChangePushes(told), outcome)
    logged = {c.player_id: c for c in await store.log()}
    assert [(p, f) for p, f, _ in told.sent] == [("ann", "rating_change"), ("bea", "rating_change")]
    for player in ("ann", "bea"):
        (pushed,) = told.of(player, "rating_change")
        assert pushed == mapping.rating_change(logged[player])
    ann = told.of("ann")[0]
    assert isinstance(ann, pb.RatingChange)
    assert (ann.match_id, ann.rating_before, ann.rating_after, ann.delta) == ("m1", 1500, 1520, 20)
    assert ann.opponent_name == "name-bea" and ann.games_after == 1


async def test_a_forfeited_draft_tells_both_players_and_names_the_draft() -> None:
    store, told = MemoryRatings(), RecordedPushes()
    forfeit = FinishedGame(
        "", True, (human("ann"), human("bea")), LOSS, DRAFT, Ladder.DRAFT, draft_id="d1"
    )
    await handlers.announce(
        mapping.ChangePushes(told), await handlers.rate_match(store, forfeit, uuid4(), SEASON)
    )
    (ann,) = told.of("ann", "rating_change")
    (bea,) = told.of("bea", "rating_change")
    assert isinstance(ann, pb.RatingChange) and isinstance(bea, pb.RatingChange)
    assert (ann.draft_id, ann.match_id, ann.delta, bea.delta) == ("d1", "", -20, 20)


async def test_a_result_rated_before_or_that_does_not_count_tells_nobody() -> None:
    store, told = MemoryRatings(), RecordedPushes()
    pushes = mapping.ChangePushes(told)
    g = game("m1", "ann", "bea")
    await handlers.rate_match(store, g, event_id("m1"), SEASON)
    for again in (g, game("m2", "ann", bot("bot-1")), game("m3", "ann", "bea", rated=False)):
        await handlers.announce(pushes, await handlers.rate_match(store, again, uuid4(), SEASON))
    assert told.sent == []
