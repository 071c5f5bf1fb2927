"""Season 0 Elo: the formula, the K schedule and the rounding (RULES.md 10 Decision)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.rating.domain import START_RATING, expected_score, k_factor, rate_game

ratings = st.integers(100, 3000)
games = st.integers(0, 200)
scores = st.sampled_from([0.0, 0.5, 1.0])


def test_everyone_starts_at_1500() -> None:
    assert START_RATING == 1500


def test_equal_players_win_moves_twenty_each_way_with_k40() -> None:
    a, b = rate_game(1500, 0, 1500, 0, 1.0)
    assert (a.delta, b.delta) == (20, -20)


def test_expected_score_1600_vs_1400_is_076() -> None:
    assert round(expected_score(1600, 1400), 2) == 0.76
    assert round(expected_score(1400, 1600), 2) == 0.24


def test_k_is_40_for_the_first_20_games_then_20() -> None:
    assert [k_factor(n) for n in (0, 19, 20, 21)] == [40, 40, 20, 20]
    a, b = rate_game(1500, 20, 1500, 19, 0.0)
    assert (a.delta, b.delta) == (-10, 20)


def test_a_draw_counts_half_a_point() -> None:
    a, b = rate_game(1600, 30, 1400, 30, 0.5)
    assert a.delta == round(20 * (0.5 - expected_score(1600, 1400)))
    assert b.delta == -a.delta


@given(ratings, games, ratings, games, scores)
def test_each_change_is_k_times_score_minus_expected_rounded(
    ra: int, ga: int, rb: int, gb: int, s: float
) -> None:
    a, b = rate_game(ra, ga, rb, gb, s)
    for change, mine, theirs, g, score in ((a, ra, rb, ga, s), (b, rb, ra, gb, 1 - s)):
        exact = k_factor(g) * (score - expected_score(mine, theirs))
        assert abs(change.delta - exact) <= 0.5
        assert change.before == mine


@given(ratings, ratings, st.integers(0, 19) | st.integers(20, 200), scores)
def test_with_the_same_k_the_changes_cancel_out(ra: int, rb: int, g: int, s: float) -> None:
    a, b = rate_game(ra, g, rb, g, s)
    assert a.delta + b.delta == 0
