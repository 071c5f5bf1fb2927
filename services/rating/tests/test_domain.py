"""The ladders' rules beyond the formula: who is rated, standings, ranks (RULES.md 10)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st

from services.rating import domain
from services.rating.domain import (
    DRAW,
    LOSS,
    WIN,
    Ladder,
    LadderKey,
    Standing,
    Unrated,
    bucket_moves,
    competition_ranks,
    rank_from_above,
    ranks_by_rating,
    rate,
    why_unrated,
)
from services.rating.tests.builders import RANKED, bot, game

ratings = st.integers(100, 3000)
standings = st.builds(Standing, ratings, st.integers(0, 60))
scores = st.sampled_from([WIN, DRAW, LOSS])


def test_only_a_rated_game_between_two_humans_with_a_ladder_and_a_result_counts() -> None:
    assert why_unrated(game("m", "ann", "bea"), 0) is None
    assert why_unrated(game("m", "ann", "bea", rated=False), 0) is Unrated.NOT_RATED
    assert why_unrated(game("m", "ann", bot("bot-1")), 0) is Unrated.BOT
    assert why_unrated(game("m", bot("bot-1"), "bea"), 0) is Unrated.BOT
    assert why_unrated(game("m", "ann", "bea", key=None), 0) is Unrated.NO_LADDER
    assert why_unrated(game("m", "ann", "ann"), 0) is Unrated.SAME_PLAYER
    assert why_unrated(game("m", "ann", "bea", score_a=None), 0) is Unrated.NO_RESULT


def test_a_bot_game_never_counts_even_when_flagged_rated() -> None:
    flagged = game("m", "ann", bot("bot-7"), rated=True)
    assert why_unrated(flagged, 0) is Unrated.BOT


def test_a_match_counts_for_the_ladder_it_names_else_its_modes_ladder_this_season() -> None:
    named = game("m", "ann", "bea", key=LadderKey(Ladder.DRAFT, 2))
    assert domain.ladder_for(named, current_season=5) == LadderKey(Ladder.DRAFT, 2)
    unnamed = domain.FinishedGame("m", True, named.seats, WIN, None, Ladder.RANKED)
    assert domain.ladder_for(unnamed, current_season=5) == LadderKey(Ladder.RANKED, 5)
    assert why_unrated(unnamed, 5) is None


def test_a_forfeit_is_a_loss_and_a_draw_half_a_point_in_the_record() -> None:
    a, b = rate(game("m", "ann", "bea", score_a=LOSS), Standing(), Standing())
    assert (a.after.losses, b.after.wins, a.change.delta, b.change.delta) == (1, 1, -20, 20)
    a, b = rate(game("m", "ann", "bea", score_a=DRAW), Standing(), Standing())
    assert (a.after.draws, b.after.draws, a.change.delta, b.change.delta) == (1, 1, 0, 0)


def test_a_player_is_provisional_for_their_first_20_games() -> None:
    assert Standing(games=0).provisional and Standing(games=19).provisional
    assert not Standing(games=20).provisional
    after, _ = rate(game("m", "ann", "bea"), Standing(games=19), Standing(games=40))
    assert after.change.k == 40 and not after.after.provisional


@given(standings, standings, scores)
def test_both_changes_come_from_the_standings_before_the_game(
    a: Standing, b: Standing, s: float
) -> None:
    ua, ub = rate(game("m", "ann", "bea", score_a=s), a, b)
    assert ua.before == a and ub.before == b
    assert ua.opponent_before == b and ub.opponent_before == a
    assert ua.after.rating == a.rating + ua.change.delta
    assert ua.after.games == a.games + 1 and ub.after.games == b.games + 1
    exact = domain.k_factor(a.games) * (s - domain.expected_score(a.rating, b.rating))
    assert abs(ua.change.delta - exact) <= 0.5


def test_ties_share_a_rank_and_the_next_rank_skips() -> None:
    assert competition_ranks([1700, 1650, 1650, 1600, 1600, 1600, 1500]) == [1, 2, 2, 4, 4, 4, 7]
    assert competition_ranks([]) == []
    assert rank_from_above(0) == 1


@given(st.lists(st.integers(1000, 2000), max_size=40))
def test_ranks_from_buckets_agree_with_ranking_every_player(ratings_: list[int]) -> None:
    ordered = sorted(ratings_, reverse=True)
    ranks, total = ranks_by_rating(Counter(ratings_).items())
    assert total == len(ratings_)
    assert [ranks[r] for r in ordered] == competition_ranks(ordered)


@given(standings, standings, scores)
def test_bucket_moves_keep_one_bucket_entry_per_ranked_player(
    a: Standing, b: Standing, s: float
) -> None:
    updates = rate(game("m", "ann", "bea", score_a=s), a, b)
    moves = bucket_moves(updates)
    assert list(moves) == sorted(moves)
    assert all(n != 0 for _, n in moves)
    assert sum(n for _, n in moves) == (a.games == 0) + (b.games == 0)
    counts: dict[int, int] = {}
    for st_ in (a, b):
        if st_.ranked:
            counts[st_.rating] = counts.get(st_.rating, 0) + 1
    for rating, n in moves:
        counts[rating] = counts.get(rating, 0) + n
    assert {r: n for r, n in counts.items() if n} == _count(u.after.rating for u in updates)


def _count(values: Iterable[int]) -> dict[int, int]:
    return dict(Counter(values))


def test_ladders_of_different_seasons_are_different_ladders() -> None:
    assert LadderKey(Ladder.RANKED, 0) != LadderKey(Ladder.RANKED, 1)
    assert str(RANKED) == "ranked/s0"
