"""One contract, two adapters: the in-memory ratings and PostgreSQL answer alike.

Rating goes through the handler; the reads go through the read use cases, so what the
gRPC edge shows is pinned down here for both adapters.
"""

from __future__ import annotations

from dataclasses import replace
from random import Random
from uuid import uuid4

import pytest

from services.platform.errors import InvalidArgument, NotFound
from services.rating import handlers
from services.rating.domain import DRAW, LOSS, FinishedGame, Ladder, LadderKey, Unrated
from services.rating.handlers import AlreadyRated, Ignored, Rated
from services.rating.tests.builders import DRAFT, RANKED, game, human, random_games
from services.rating.tests.conftest import Ratings, memory_ratings


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def ratings(request: pytest.FixtureRequest) -> Ratings:
    if request.param == "memory":
        return memory_ratings()
    found: Ratings = request.getfixturevalue("postgres")
    return found


async def test_a_player_who_has_not_played_is_at_1500_unranked_and_provisional(
    ratings: Ratings,
) -> None:
    rating = await handlers.get_rating(ratings.reader, "nobody", RANKED)
    assert rating.entry.standing.rating == 1500 and rating.entry.standing.games == 0
    assert rating.entry.standing.provisional and rating.rank == 0
    assert rating.ranked_players == 0 and rating.entry.updated_at is None


async def test_a_rated_game_shows_in_rating_record_rank_and_history(ratings: Ratings) -> None:
    await ratings.rate_all([game("m1", "ann", "bea"), game("m2", "ann", "cid", score_a=DRAW)])
    ann = await handlers.get_rating(ratings.reader, "ann", RANKED)
    s = ann.entry.standing
    # 1520 vs 1500 drawn: E = 0.529, 40 x (0.5 - 0.529) = -1.15, so -1.
    assert (s.rating, s.games, s.wins, s.losses, s.draws) == (1519, 2, 1, 0, 1)
    assert ann.entry.name == "name-ann" and ann.rank == 1 and ann.ranked_players == 3
    assert ann.entry.updated_at is not None
    assert await handlers.get_rank(ratings.reader, "bea", RANKED) == handlers.Rank(3, 3)
    found = await handlers.history(ratings.reader, "ann", RANKED, 0, 2**62)
    page = found.changes
    assert [(c.match_id, c.delta, c.k, c.opponent_name) for c in page] == [
        ("m2", -1, 40, "name-cid"),
        ("m1", 20, 40, "name-bea"),
    ]
    assert found.next_before == 0
    assert page[0].opponent_rating_before == 1500 and page[0].rating_before == 1520
    assert page[0].games_after == 2 and page[0].actual == DRAW
    assert round(page[0].expected, 4) == round(1 / (1 + 10 ** (-20 / 400)), 4)


async def test_the_leaderboard_shares_ranks_between_ties(ratings: Ratings) -> None:
    # ann and bea both beat a fresh player: 1520 each; the losers 1480 each; eve 1500.
    await ratings.rate_all(
        [game("m1", "ann", "cid"), game("m2", "bea", "dan"), game("m3", "eve", "fay", DRAW)]
    )
    board = await handlers.leaderboard(ratings.reader, RANKED, 0, "dan")
    assert [(e.rank, e.entry.name, e.entry.standing.rating) for e in board.top] == [
        (1, "name-ann", 1520),
        (1, "name-bea", 1520),
        (3, "name-eve", 1500),
        (3, "name-fay", 1500),
        (5, "name-cid", 1480),
        (5, "name-dan", 1480),
    ]
    assert board.ranked_players == 6
    assert board.player is not None and board.player.rank == 5
    top2 = await handlers.leaderboard(ratings.reader, RANKED, 2)
    assert [e.entry.player_id for e in top2.top] == ["ann", "bea"] and top2.player is None
    unranked = await handlers.leaderboard(ratings.reader, RANKED, 3, "nobody")
    assert unranked.player is None


async def test_batch_reads_keep_the_order_asked_and_rank_everyone(ratings: Ratings) -> None:
    await ratings.rate_all(random_games(Random(3), 60, players=10))
    ids = ["p3", "nobody", "p0", "p9", "p3"]
    batch = await handlers.get_ratings(ratings.reader, ids, RANKED)
    assert [b.entry.player_id for b in batch] == ids
    for b in batch:
        one = await handlers.get_rating(ratings.reader, b.entry.player_id, RANKED)
        assert (b.rank, b.ranked_players, b.entry.standing) == (
            one.rank,
            one.ranked_players,
            one.entry.standing,
        )
    with pytest.raises(InvalidArgument):
        await handlers.get_ratings(ratings.reader, ["p"] * 1001, RANKED)


async def test_ranks_agree_with_sorting_the_whole_ladder(ratings: Ratings) -> None:
    await ratings.rate_all(random_games(Random(5), 150, players=25))
    board = await handlers.leaderboard(ratings.reader, RANKED, 100)
    assert board.ranked_players == 25 == len(board.top)
    for entry in board.top:
        rank = (await handlers.get_rank(ratings.reader, entry.entry.player_id, RANKED)).rank
        above = sum(e.entry.standing.rating > entry.entry.standing.rating for e in board.top)
        assert rank == entry.rank == above + 1


async def test_history_pages_newest_first_without_gaps(ratings: Ratings) -> None:
    await ratings.rate_all(
        [game(f"m{n}", "ann", "bea", LOSS if n % 3 else DRAW) for n in range(7)]
        + [game("d1", "ann", "bea", key=DRAFT)]
    )
    seen: list[str] = []
    before = 2**62
    while True:
        page = await handlers.history(ratings.reader, "ann", RANKED, 3, before)
        seen += [c.match_id for c in page.changes]
        before = page.next_before
        if not before:
            break
    assert seen == [f"m{n}" for n in reversed(range(7))]  # the Draft game is not in it
    with pytest.raises(InvalidArgument):
        await handlers.history(ratings.reader, "ann", RANKED, -1, 2**62)


async def test_a_players_feed_numbers_their_changes_on_every_ladder(ratings: Ratings) -> None:
    assert await ratings.reader.feed_head("ann") == 0
    await ratings.rate_all([game("m1", "ann", "bea"), game("d1", "cid", "ann", key=DRAFT)])
    feed = await ratings.reader.feed("ann", 0, 10)
    assert [(c.player_seq, c.key, c.match_id) for c in feed] == [
        (1, RANKED, "m1"),
        (2, DRAFT, "d1"),
    ]
    assert await ratings.reader.feed_head("ann") == 2
    assert await ratings.reader.feed("ann", 1, 10) == feed[1:]


async def test_seasons_are_separate_ladders_and_stay_readable(ratings: Ratings) -> None:
    season1 = LadderKey(Ladder.RANKED, 1)
    await ratings.rate_all([game("m1", "ann", "bea")], season=1)
    await ratings.rate_all([game("m2", "bea", "ann", key=season1)], season=1)
    old = await handlers.get_rating(ratings.reader, "ann", RANKED)
    new = await handlers.get_rating(ratings.reader, "ann", season1)
    assert (old.entry.standing.rating, new.entry.standing.rating) == (1520, 1480)
    assert handlers.check_season(RANKED, 1) == RANKED
    with pytest.raises(NotFound):
        handlers.check_season(LadderKey(Ladder.RANKED, 2), 1)
    with pytest.raises(InvalidArgument):
        handlers.check_season(LadderKey(Ladder.RANKED, -1), 1)


async def test_top_n_is_bounded(ratings: Ratings) -> None:
    for bad in (-1, 101):
        with pytest.raises(InvalidArgument):
            await handlers.leaderboard(ratings.reader, RANKED, bad)
    assert (await handlers.leaderboard(ratings.reader, RANKED, 0)).top == ()


async def test_a_draft_forfeited_before_its_match_is_rated_once_and_counts_once(
    ratings: Ratings,
) -> None:
    """RULES.md 10: the forfeiter loses on the Draft ladder; the change names the draft
    and no match. A draft counts once: the same forfeit again (another event id), and a
    Draft match that names that draft, change nothing."""
    forfeit = FinishedGame(
        "", True, (human("ann"), human("bea")), LOSS, DRAFT, Ladder.DRAFT, draft_id="d1"
    )
    outcome = await ratings.rate(forfeit, uuid4())
    assert isinstance(outcome, Rated)
    assert isinstance(await ratings.rate(forfeit, uuid4()), AlreadyRated)
    drafted_match = game("m1", "bea", "ann", LOSS, key=DRAFT)
    assert isinstance(
        await ratings.rate(replace(drafted_match, draft_id="d1"), uuid4()), AlreadyRated
    )
    ann = (await handlers.get_rating(ratings.reader, "ann", DRAFT)).entry.standing
    bea = (await handlers.get_rating(ratings.reader, "bea", DRAFT)).entry.standing
    assert (ann.rating, ann.losses, bea.rating, bea.wins) == (1480, 1, 1520, 1)
    # A second draft forfeit of the same players, and a Draft match of another draft.
    await ratings.rate(replace(forfeit, draft_id="d2"), uuid4())
    await ratings.rate(replace(drafted_match, draft_id="d3"), uuid4())
    page = (await handlers.history(ratings.reader, "ann", DRAFT, 0, 2**62)).changes
    assert [(c.match_id, c.draft_id, c.delta, c.opponent_name) for c in page] == [
        ("m1", "d3", 24, "name-bea"),
        ("", "d2", -18, "name-bea"),
        ("", "d1", -20, "name-bea"),
    ]
    # The Ranked ladder is another ladder: nothing there.
    assert (await handlers.get_rating(ratings.reader, "ann", RANKED)).entry.standing.games == 0


async def test_a_result_that_names_neither_a_match_nor_a_draft_is_not_rated(
    ratings: Ratings,
) -> None:
    nameless = game("", "ann", "bea", key=DRAFT)
    assert await ratings.rate(nameless, uuid4()) == Ignored(Unrated.NO_ID)
    assert await ratings.log() == []


async def test_a_rating_hands_back_both_changes_as_the_log_holds_them(ratings: Ratings) -> None:
    """What a player is told of a change (its push) is the change as logged, feed number
    and time included: the very row WatchRatings and the history read."""
    await ratings.rate_all([game("m1", "ann", "bea")])
    outcome = await ratings.rate(game("m2", "cid", "ann", DRAW), uuid4())
    assert isinstance(outcome, Rated)
    assert [c.player_id for c in outcome.changes] == ["cid", "ann"]
    assert sorted(outcome.changes, key=lambda c: c.seq) == (await ratings.log())[2:]
    assert [c.player_seq for c in outcome.changes] == [1, 2]
    forfeit = FinishedGame(
        "", True, (human("ann"), human("bea")), LOSS, DRAFT, Ladder.DRAFT, draft_id="d1"
    )
    forfeited = await ratings.rate(forfeit, uuid4())
    assert isinstance(forfeited, Rated)
    assert [(c.player_id, c.draft_id, c.match_id, c.delta) for c in forfeited.changes] == [
        ("ann", "d1", "", -20),
        ("bea", "d1", "", 20),
    ]
