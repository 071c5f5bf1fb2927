"""Bot against bot, through the match domain, for strength tests and benchmarks.

Every move goes the way a bot seat's move goes in the service: the seat's redacted
:func:`match_view`, then :func:`knowledge`, then :func:`decide`, then ``domain.place``.
Games use legal hands (RULES.md 2 and 11: 5 cards on 3x3, 8 on 4x4, 13 on 5x5 with
blocked cells) drawn from a catalog of characters.
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
from services.match.views import match_view
from services.rules import Element, Geometry, Rules, Seat, Visibility
from services.rules.deck import hand_size_for, star_limits
from services.rules.draws import draw_blocked_cells, draw_cell_marks, draw_revealed

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


@dataclass(frozen=True, slots=True)
class Table:
    """The board a game is played on (RULES.md 11): its shape and how many blocked cells
    are drawn for it."""

    rows: int = 3
    cols: int = 3
    blocked: int = 0

    @property
    def hand_size(self) -> int:
        return hand_size_for(self.rows)

    @property
    def name(self) -> str:
        return f"{self.rows}x{self.cols}" + (f"-k{self.blocked}" if self.blocked else "")


STANDARD_TABLE = Table()


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


def deal(
    rng: Random, catalog: Sequence[CatalogEntry], prefix: str, size: int = DECK_SIZE
) -> tuple[MatchCard, ...]:
    """A legal hand of ``size`` different characters within that size's star limits
    (five: at most one 5★, at most two of 4★+)."""
    most_fives, most_high = star_limits(size)
    order = list(catalog)
    rng.shuffle(order)
    chosen: list[CatalogEntry] = []
    for entry in order:
        ranks = [c.stars for c in chosen] + [entry.stars]
        if ranks.count(5) <= most_fives and ranks.count(5) + ranks.count(4) <= most_high:
            chosen.append(entry)
        if len(chosen) == size:
            break
    if len(chosen) < size:
        raise ValueError(f"the catalog holds no legal hand of {size} cards")
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
    table: Table = STANDARD_TABLE
    blocked: frozenset[int] = frozenset()


def draw_deal(
    rng: Random,
    catalog: Sequence[CatalogEntry],
    visibility: Visibility,
    table: Table = STANDARD_TABLE,
) -> Deal:
    """A deal on ``table``; on the standard table it draws exactly what it always drew."""
    size = table.hand_size
    hands = (deal(rng, catalog, "a", size), deal(rng, catalog, "b", size))
    blocked = draw_blocked_cells(table.rows, table.cols, table.blocked, rng)
    marks = draw_cell_marks(Geometry.of(table.rows, table.cols, blocked), rng)
    first = Seat.A if rng.random() < 0.5 else Seat.B
    revealed = tuple(
        frozenset(c.card_id for c in hand)
        if visibility is Visibility.ALL_OPEN
        else frozenset()
        if visibility is Visibility.CLOSED
        else draw_revealed([c.rules_card() for c in hand], rng)
        for hand in hands
    )
    return Deal(hands, marks, first, (revealed[0], revealed[1]), table, blocked)


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
    move_seconds: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())
    """Each seat's time for each of its moves, in order."""

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
    table = game.table
    setup = MatchRules(Mode.PRACTICE, rules, visibility, table.rows, table.cols, game.blocked)
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
    times: tuple[list[float], list[float]] = ([], [])
    while match.in_progress:
        seat = match.position.to_move
        view = knowledge_of(match, seat)
        started = time.perf_counter()
        decision = decide(view, rng.getrandbits(32), budgets[seat], catalog)
        times[seat].append(time.perf_counter() - started)
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
        (sum(times[0]), sum(times[1])),
        (len(times[0]), len(times[1])),
        (tuple(times[0]), tuple(times[1])),
    )


def knowledge_of(match: domain.Match, seat: Seat) -> SeatKnowledge:
    """What ``seat`` knows: through its redacted view, exactly as in the service."""
    return knowledge(match_view(match, match.player(seat).player_id))
