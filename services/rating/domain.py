"""Season 0 Elo (RULES.md section 10), as pure functions.

**Decision** (RULES.md 10): every player starts at 1500; the expected score is
E = 1 / (1 + 10^((Rb − Ra) / 400)); K = 40 for a player's first 20 rated games in that
ladder and 20 after. Both changes come from the ratings before the game.

Rounding (our decision, published with the ladders): ratings are whole numbers; a
change is K × (S − E) rounded to the nearest whole number, halves away from zero.
That rounding is odd-symmetric, so when both players have the same K their changes
cancel exactly and a ladder's total never drifts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

START_RATING = 1500
PROVISIONAL_GAMES = 20
K_PROVISIONAL = 40
K_ESTABLISHED = 20


class Ladder(StrEnum):
    RANKED = "ranked"
    DRAFT = "draft"


def expected_score(rating: float, opponent: float) -> float:
    """The score a player is expected to make against ``opponent`` (0..1)."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def k_factor(games_played: int) -> int:
    """K is 40 for a player's first 20 rated games in the ladder, 20 after."""
    return K_PROVISIONAL if games_played < PROVISIONAL_GAMES else K_ESTABLISHED


def round_half_away(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


@dataclass(frozen=True, slots=True)
class Change:
    """One player's rating change from one game, with the figures that produced it."""

    before: int
    after: int
    k: int
    expected: float
    score: float

    @property
    def delta(self) -> int:
        return self.after - self.before


def rate_game(
    rating_a: int, games_a: int, rating_b: int, games_b: int, score_a: float
) -> tuple[Change, Change]:
    """Both players' changes from one game. ``score_a`` is 1 for a win of A (a forfeit
    by B included), 0.5 for a draw, 0 for a loss."""
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game scores 1, 0.5 or 0, not {score_a}")
    changes = []
    for mine, games, theirs, score in (
        (rating_a, games_a, rating_b, score_a),
        (rating_b, games_b, rating_a, 1.0 - score_a),
    ):
        k = k_factor(games)
        expected = expected_score(mine, theirs)
        delta = round_half_away(k * (score - expected))
        changes.append(Change(mine, mine + delta, k, expected, score))
    return changes[0], changes[1]
