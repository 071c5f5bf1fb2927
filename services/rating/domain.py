"""Season Elo ladders (RULES.md section 10), as pure functions and plain values.

**Decision** (RULES.md 10): every player starts at 1500; the expected score is
E = 1 / (1 + 10^((Rb − Ra) / 400)); K = 40 for a player's first 20 rated games in that
ladder and 20 after. Both changes come from the ratings before the game.

Rounding (our decision, published with the ladders): ratings are whole numbers; a
change is K × (S − E) rounded to the nearest whole number, halves away from zero.
That rounding is odd-symmetric, so when both players have the same K their changes
cancel exactly and a ladder's total never drifts.

Which games count: Ranked and Draft have separate ladders, one per season. Only games
between two human players change Elo; a game with a bot never does. A forfeit counts
as a loss for the player who forfeited, a draw as half a point each.

Ranks: 1 is the best; players with the same rating share a rank, and the next rank
skips as many places as shared it (1, 2, 2, 4). A player's rank is one more than the
number of ranked players rated strictly higher. A player is ranked on a ladder once
they have played a rated game on it.

No I/O, clock or randomness here: the handler brings the standings, the store keeps them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

START_RATING = 1500
PROVISIONAL_GAMES = 20
K_PROVISIONAL = 40
K_ESTABLISHED = 20

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class Ladder(StrEnum):
    RANKED = "ranked"
    DRAFT = "draft"


@dataclass(frozen=True, slots=True, order=True)
class LadderKey:
    """One ladder of one season: Season 0 Ranked and Season 1 Ranked are different ladders."""

    ladder: Ladder
    season: int

    def __str__(self) -> str:
        return f"{self.ladder.value}/s{self.season}"


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
    if score_a not in (LOSS, DRAW, WIN):
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


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place on one ladder: rating, rated games and their results."""

    rating: int = START_RATING
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def provisional(self) -> bool:
        """During the first 20 rated games (K = 40), shown as a provisional marker."""
        return self.games < PROVISIONAL_GAMES

    @property
    def ranked(self) -> bool:
        """On the leaderboard: at least one rated game on the ladder."""
        return self.games > 0

    def after(self, change: Change) -> Standing:
        return Standing(
            rating=change.after,
            games=self.games + 1,
            wins=self.wins + (change.score == WIN),
            losses=self.losses + (change.score == LOSS),
            draws=self.draws + (change.score == DRAW),
        )


UNPLAYED = Standing()


# --------------------------------------------------------------------------- games


@dataclass(frozen=True, slots=True)
class Contestant:
    """Who sat in a seat of a finished match."""

    player_id: str
    name: str
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished match as the ladders see it.

    ``ladder`` is the ladder and season the match said it counts for; ``mode_ladder``
    is the ladder its mode belongs to (Ranked or Draft), used with the current season
    when the match named none. ``score_a`` is seat A's score: 1 for a win (the
    opponent's forfeit included), 0.5 for a draw, 0 for a loss (its own forfeit
    included); None when the match recorded no result.

    ``draft_id`` is the draft the result belongs to: the draft a Draft match was
    drafted in, or a draft forfeited by inactivity before its match (then ``match_id``
    is empty and the forfeiter loses, RULES.md 10). A draft gives one result: its
    match's or its forfeit's, never both.
    """

    match_id: str
    rated: bool
    seats: tuple[Contestant, Contestant]
    score_a: float | None
    ladder: LadderKey | None = None
    mode_ladder: Ladder | None = None
    draft_id: str = ""

    @property
    def result_id(self) -> str:
        """How logs name the result: the match, else the forfeited draft."""
        return self.match_id or f"draft {self.draft_id}"


@dataclass(frozen=True, slots=True)
class ResultKey:
    """One result on one ladder, as it is rated once: a match (``match_id``), or a draft
    (``draft_id``: its match's result or its forfeit's, never both)."""

    ladder: LadderKey
    match_id: str
    draft_id: str = ""


class Unrated(StrEnum):
    """Why a finished match changes no rating."""

    NOT_RATED = "not_rated"  # the match did not count for a ladder (Unranked, Custom...)
    NO_LADDER = "no_ladder"  # rated, but neither a ladder nor a laddered mode was named
    BOT = "bot"  # a bot sat in a seat: bot games never count
    SAME_PLAYER = "same_player"  # both seats held by one player: nobody to rate against
    NO_RESULT = "no_result"  # neither a winner nor a draw was recorded (a draft both forfeited)
    NO_ID = "no_id"  # names neither a match nor a draft: nothing to rate it once by


def result_key(game: FinishedGame, ladder: LadderKey) -> ResultKey:
    """How ``game`` is rated once on ``ladder``."""
    return ResultKey(ladder, game.match_id, game.draft_id)


def ladder_for(game: FinishedGame, current_season: int) -> LadderKey | None:
    """The ladder a game counts for: the one it names, else its mode's in the current season."""
    if game.ladder is not None:
        return game.ladder
    if game.mode_ladder is not None:
        return LadderKey(game.mode_ladder, current_season)
    return None


def why_unrated(game: FinishedGame, current_season: int) -> Unrated | None:
    """None when the game changes both players' ratings, else the reason it does not."""
    a, b = game.seats
    if not game.rated:
        return Unrated.NOT_RATED
    if a.is_bot or b.is_bot:
        return Unrated.BOT
    if ladder_for(game, current_season) is None:
        return Unrated.NO_LADDER
    if a.player_id == b.player_id:
        return Unrated.SAME_PLAYER
    if not game.match_id and not game.draft_id:
        return Unrated.NO_ID
    if game.score_a not in (WIN, DRAW, LOSS):
        return Unrated.NO_RESULT
    return None


@dataclass(frozen=True, slots=True)
class Update:
    """What one rated game does to one player's standing."""

    player: Contestant
    opponent: Contestant
    before: Standing
    after: Standing
    change: Change
    opponent_before: Standing


def rate(game: FinishedGame, a: Standing, b: Standing) -> tuple[Update, Update]:
    """Both players' updates from a rated game, from their standings before it."""
    if game.score_a is None:
        raise ValueError(f"{game.result_id} has no result to rate")
    change_a, change_b = rate_game(a.rating, a.games, b.rating, b.games, game.score_a)
    seat_a, seat_b = game.seats
    return (
        Update(seat_a, seat_b, a, a.after(change_a), change_a, b),
        Update(seat_b, seat_a, b, b.after(change_b), change_b, a),
    )


def bucket_moves(updates: Iterable[Update]) -> tuple[tuple[int, int], ...]:
    """How the count of ranked players at each rating changes: ``(rating, +n/-n)``,
    without zeros, by rating ascending (the order every writer locks them in).

    A player's first game adds them at their new rating; later games move them.
    """
    moves: dict[int, int] = {}
    for update in updates:
        if update.before.ranked:
            moves[update.before.rating] = moves.get(update.before.rating, 0) - 1
        moves[update.after.rating] = moves.get(update.after.rating, 0) + 1
    return tuple((rating, n) for rating, n in sorted(moves.items()) if n)


# --------------------------------------------------------------------------- ranks


def rank_from_above(players_above: int) -> int:
    """A ranked player's rank: one more than the players rated strictly higher."""
    return players_above + 1


def competition_ranks(ratings: Sequence[int]) -> list[int]:
    """The ranks of the top of a ladder, ``ratings`` best first: ties share (1, 2, 2, 4)."""
    ranks: list[int] = []
    for place, rating in enumerate(ratings, start=1):
        if place > 1 and rating > ratings[place - 2]:
            raise ValueError("ratings must be best first")
        ranks.append(ranks[-1] if place > 1 and rating == ratings[place - 2] else place)
    return ranks


def ranks_by_rating(buckets: Iterable[tuple[int, int]]) -> tuple[dict[int, int], int]:
    """From ``(rating, ranked players at it)``: each rating's rank and the ranked count."""
    ranks: dict[int, int] = {}
    above = 0
    for rating, players in sorted(buckets, reverse=True):
        if players > 0:
            ranks[rating] = rank_from_above(above)
            above += players
    return ranks, above
