"""Bot against bot, through the match domain, for strength tests and benchmarks.

Every move goes the way a bot seat's move goes in the service: the seat's redacted
:func:`match_view`, then :func:`knowledge`, then :func:`decide`, then ``domain.place``.
Games use legal decks (RULES.md 2) drawn from a catalog of characters.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from random import Random

from services.match import domain
from services.match.bots.knowledge import SeatKnowledge, knowledge
from services.match.bots.levels import Budget, Level, decide
from services.match.bots.sampling import ELEMENTS, CatalogEntry
from services.match.domain.events import MatchCard, MatchRules, Mode, SeatPlayer
from services.match.rules import Element, Geometry, Rules, Seat, Visibility
from services.match.rules.draws import draw_cell_marks, draw_revealed
from services.match.views import match_view

STANDARD = Rules(same=True, plus=True, combo=True)
"""The rules of Ranked, Unranked and Draft (RULES.md 6)."""

STAR_BANDS = {
    1: (12, 15, 1, 6),
    2: (16, 19, 1, 7),
    3: (20, 23, 2, 8),
    4: (24, 27, 2, 9),
    5: (28, 31, 3, 10),
}
"""Per rank: (lowest and highest sum of the four sides, lowest and highest side), the
stat budget of the catalog, so synthetic characters look like real ones."""

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DECK_SIZE = 5


def synthetic_catalog(rng: Random, per_rank: int = 20) -> tuple[CatalogEntry, ...]:
    """``per_rank`` invented characters of each rank 1★..5★ within the stat budget."""
    entries = []
    for stars, (low, high, side_min, side_max) in STAR_BANDS.items():
        for index in range(per_rank):
            while True:
                sides = tuple(rng.randint(side_min, side_max) for _ in range(4))
                if low <= sum(sides) <= high:
                    break
            entries.append(
                CatalogEntry(
                    f"syn-{stars}-{index}",
                    stars,
                    rng.choice(ELEMENTS),
                    (sides[0], sides[1], sides[2], sides[3]),
                )
            )
    return tuple(entries)


def deal(rng: Random, catalog: Sequence[CatalogEntry], prefix: str) -> tuple[MatchCard, ...]:
    """A legal deck: five different characters, at most one 5★, at most two of 4★+."""
    order = list(catalog)
    rng.shuffle(order)
    chosen: list[CatalogEntry] = []
    for entry in order:
        ranks = [c.stars for c in chosen] + [entry.stars]
        if ranks.count(5) <= 1 and ranks.count(5) + ranks.count(4) <= 2:
            chosen.append(entry)
        if len(chosen) == DECK_SIZE:
            break
    return tuple(
        MatchCard(
            f"{prefix}{i}", e.character_id, e.character_id, e.stars, e.element, e.sides, e.sides
        )
        for i, e in enumerate(chosen)
    )


@dataclass(frozen=True, slots=True)
class Deal:
    """Everything random about a game but the bots' own draws: replayed with the seats
    swapped, it gives both levels the same cards and the same start."""

    hands: tuple[tuple[MatchCard, ...], tuple[MatchCard, ...]]
    marks: tuple[Element | None, ...]
    first: Seat
    revealed: tuple[frozenset[str], frozenset[str]]


def draw_deal(rng: Random, catalog: Sequence[CatalogEntry], visibility: Visibility) -> Deal:
    hands = (deal(rng, catalog, "a"), deal(rng, catalog, "b"))
    marks = draw_cell_marks(Geometry.of(3, 3), rng)
    first = Seat.A if rng.random() < 0.5 else Seat.B
    revealed = tuple(
        frozenset(c.card_id for c in hand)
        if visibility is Visibility.ALL_OPEN
        else frozenset()
        if visibility is Visibility.CLOSED
        else draw_revealed([c.rules_card() for c in hand], rng)
        for hand in hands
    )
    return Deal(hands, marks, first, (revealed[0], revealed[1]))


@dataclass(frozen=True, slots=True)
class GameResult:
    levels: tuple[Level, Level]
    scores: tuple[int, int]
    winner: Seat | None
    solved_wins_lost: int
    """Seats that an exact search showed a win but did not win (must stay 0)."""
    seconds: tuple[float, float]
    """Time each seat spent deciding."""
    moves: tuple[int, int]

    def points(self, seat: Seat) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner is seat)


def play(
    levels: tuple[Level, Level],
    game: Deal,
    visibility: Visibility,
    seed: int,
    budgets: tuple[Budget, Budget],
    rules: Rules = STANDARD,
    catalog: Sequence[CatalogEntry] | None = None,
) -> GameResult:
    """One game between two bot seats (A plays ``levels[0]``) on the given deal."""
    setup = MatchRules(Mode.PRACTICE, rules, visibility)
    players = tuple(
        SeatPlayer(f"bot-{s.name}", f"[BOT] {levels[s]} {s.name}", True, levels[s].value)
        for s in Seat
    )
    draws = domain.StartDraws(game.first, game.marks, game.revealed)
    created = domain.create(
        None, "arena", setup, (players[0], players[1]), game.hands, draws, T0, 60, 120
    )
    match = created.state
    rng = Random(seed)
    solved_win = [False, False]
    spent = [0.0, 0.0]
    moves = [0, 0]
    while match.in_progress:
        seat = match.position.to_move
        view = knowledge_of(match, seat)
        started = time.perf_counter()
        decision = decide(view, rng.getrandbits(32), budgets[seat], catalog)
        spent[seat] += time.perf_counter() - started
        moves[seat] += 1
        if decision.exact and decision.value > 0:
            solved_win[seat] = True
        match = domain.place(
            match, players[seat].player_id, decision.card_id, decision.cell, T0
        ).state
    assert match.finished is not None
    winner = match.finished.winner
    lost = sum(1 for s in Seat if solved_win[s] and winner is not s)
    return GameResult(
        levels,
        match.finished.scores,
        winner,
        lost,
        (spent[0], spent[1]),
        (moves[0], moves[1]),
    )


def knowledge_of(match: domain.Match, seat: Seat) -> SeatKnowledge:
    """What ``seat`` knows: through its redacted view, exactly as in the service."""
    return knowledge(match_view(match, match.player(seat).player_id))
