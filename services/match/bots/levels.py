"""The four bot levels, each a pure function of what the seat knows, a seed and a budget.

- **novice**: a random legal placement.
- **easy**: greedy on the immediate score (a one-placement search), ties drawn at random.
- **normal**: a shallow search: its placement and the opponent's best reply.
- **hard**: alpha-beta with a transposition table and move ordering
  (:mod:`services.rules.solver`), deepened until the time budget runs out, and
  exact (perfect play to the end of the game) whenever it finishes; beyond the horizon
  it evaluates by the score as it stands (cards owned on the board plus cards in hand).
  With hidden cards it searches several samples of what they could be and plays the
  move that does best on average. Every board plays this way (3x3, 4x4, 5x5 with
  blocked cells): on the larger ones the exact search is out of reach until the last
  few cells, so hard deepens as far as its budget goes and, with hidden cards, searches
  fewer samples so that it still sees deeper than normal.

The only input that may vary between two runs with the same seed is the clock, through
the time budget; a node budget makes a decision fully reproducible (tests, benchmarks).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from random import Random

from services.match.bots.knowledge import SeatKnowledge
from services.match.bots.sampling import CatalogEntry, sample_unseen
from services.rules import Move
from services.rules.solver import STOP_POLL, MoveValue, Search, SearchStopped

DEFAULT_SECONDS = 1.0
"""The per-move time budget of a bot (issue 8), unless configured otherwise."""

STOP_SHARE = 0.85
"""The search stops at this share of the time budget: the rest covers the last poll of
the clock, handing the move back and a busy machine's scheduling (on two shared cores a
worker is preempted for tens of milliseconds at a time; at 0.95 the slowest 1% of hard's
5x5 moves ran over a 1 s budget), so the move is in within the budget."""

TURN_SHARE = 0.5
"""At most this share of the turn timer goes to thinking, so a bot always moves in time."""

ALWAYS_EXACT = 7
"""With this many empty cells or fewer, hard solves All Open positions exactly whatever
the budget: it takes well under 0.5 s, and it is what keeps a solved win a win (the
next turn of a bot that has solved a position always has at most this many). Each card
beyond one that the players will still hold at the end (5x5 with blocked cells, RULES.md
11: 1 + k) widens every placement, so each counts as one more empty cell here."""

NORMAL_DEPTH = 2
"""normal looks at its placement and the opponent's reply..."""

NORMAL_ENDGAME = 5
"""...and, with this many empty cells or fewer, at its own answer to that too: the
endgame is where a greedy player (easy) loses the most, and three placements from five
empty cells cost next to nothing."""

NORMAL_SAMPLES = 4
HARD_SAMPLES = 12
HARD_ENDGAME_SAMPLES = 24
HARD_ENDGAME = 5
"""Samples of the hidden cards: more is steadier, fewer is deeper within the budget. With
``HARD_ENDGAME`` empty cells or fewer each sample is solved exactly in milliseconds, so
hard can afford more of them."""

HARD_SAMPLE_MOVES = 12 * 45
MIN_HARD_SAMPLES = 4
"""Samples times root moves that hard searches with hidden cards: 12 samples of the 3x3
opening's 45 placements. A larger board has many more placements (5x5: up to 13 cards
on 25 cells), and twelve samples would keep hard at normal's depth there; fewer, never
under ``MIN_HARD_SAMPLES``, let it see a placement further."""

WIN_WEIGHT = 10
"""How much a win (rather than a margin) counts when averaging exact sampled values:
winning in most samples beats winning big in a few. Depth-limited values are averaged
as they are: the sign of a score difference in mid-game says little."""


class Level(StrEnum):
    NOVICE = "novice"
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"

    @staticmethod
    def of(name: str) -> Level:
        """The level a seat records; an unset one plays as novice."""
        return Level(name) if name else Level.NOVICE


@dataclass(frozen=True, slots=True)
class Budget:
    """How long a bot may think about one move: wall seconds, search nodes, or both
    (whichever runs out first). ``None`` for both means no limit."""

    seconds: float | None = DEFAULT_SECONDS
    nodes: int | None = None

    @staticmethod
    def for_turn(turn_seconds: float, seconds: float = DEFAULT_SECONDS) -> Budget:
        """The configured budget, capped to a share of the turn timer."""
        return Budget(min(seconds, turn_seconds * TURN_SHARE))

    def stopper(self) -> Callable[[], bool] | None:
        """A ``stop`` for the solver, started now. It is polled every ``STOP_POLL``
        nodes, so counting polls counts nodes without touching the search's hot path."""
        if self.seconds is None and self.nodes is None:
            return None
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds * STOP_SHARE
        polls = None if self.nodes is None else max(1, self.nodes // STOP_POLL)
        calls = [0]

        def stop() -> bool:
            calls[0] += 1
            if polls is not None and calls[0] >= polls:
                return True
            return deadline is not None and time.perf_counter() >= deadline

        return stop


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's placement and how it came to it (for logs and benchmarks)."""

    card_id: str
    cell: int
    value: float
    """The bot's estimate of the final score difference for itself (mean over samples)."""
    exact: bool
    """The value is exact: every card was known and the search reached the game's end."""
    depth: int
    samples: int
    nodes: int


def decide(
    seat: SeatKnowledge,
    seed: int,
    budget: Budget | None = None,
    catalog: Sequence[CatalogEntry] | None = None,
    level: Level | None = None,
) -> Decision:
    """The placement of the bot seat that knows ``seat`` (its level unless ``level`` says
    otherwise). Pure but for the clock of a time budget."""
    if seat.to_move is not seat.seat:
        raise ValueError("a bot decides only on its own turn")
    if not seat.hand or not seat.empty_cells:
        raise ValueError("there is no legal placement to decide on")
    rng = Random(seed)
    chosen = Level.of(seat.level) if level is None else level
    if chosen is Level.NOVICE:
        card = rng.choice(seat.hand)
        return Decision(card.id, rng.choice(seat.empty_cells), 0.0, False, 0, 0, 0)
    if chosen is Level.EASY:
        return _fixed_depth(seat, rng, catalog, 1, 1)
    if chosen is Level.NORMAL:
        empties = len(seat.empty_cells)
        depth = NORMAL_DEPTH + (empties <= NORMAL_ENDGAME)
        return _fixed_depth(seat, rng, catalog, depth, NORMAL_SAMPLES)
    limits = Budget() if budget is None else budget
    if seat.opponent_hidden == 0 and _always_exact(seat):
        return _hard_exact(seat, rng)
    if seat.opponent_hidden == 0:
        return _hard_open(seat, rng, limits)
    return _hard_sampled(seat, rng, limits, catalog)


def _decision(
    seat: SeatKnowledge,
    move: Move,
    value: float,
    exact: bool,
    depth: int,
    samples: int,
    nodes: int,
) -> Decision:
    return Decision(seat.hand[move[0]].id, move[1], value, exact, depth, samples, nodes)


def _fixed_depth(
    seat: SeatKnowledge,
    rng: Random,
    catalog: Sequence[CatalogEntry] | None,
    depth: int,
    samples: int,
) -> Decision:
    """Search ``depth`` placements. Hidden cards matter from the opponent's reply on, so
    a one-placement search needs no sample and a deeper one averages ``samples``."""
    if seat.opponent_hidden == 0 or depth == 1:
        search = Search(seat.position(sample_unseen(seat, rng, catalog)))
        found = search.best(depth, tiebreak=rng)
        assert found.move is not None
        return _decision(seat, found.move, found.value, False, found.depth, 1, found.nodes)
    searches = [Search(seat.position(sample_unseen(seat, rng, catalog))) for _ in range(samples)]
    return _averaged(seat, rng, searches, [s.values(depth) for s in searches], depth)


def _always_exact(seat: SeatKnowledge) -> bool:
    """Small enough to solve exactly whatever the budget (``ALWAYS_EXACT``)."""
    empties = len(seat.empty_cells)
    spare = len(seat.hand) + len(seat.opponent_known) + seat.opponent_hidden - empties
    return empties + max(0, spare - 1) <= ALWAYS_EXACT


def _hard_exact(seat: SeatKnowledge, rng: Random) -> Decision:
    solved = Search(seat.position()).best(None, tiebreak=rng)
    assert solved.move is not None
    return _decision(seat, solved.move, solved.value, True, solved.depth, 1, solved.nodes)


def _hard_open(seat: SeatKnowledge, rng: Random, budget: Budget) -> Decision:
    """Every card is known: deepen until the budget runs out or the game's end is
    reached (exact), keeping the best move of the deepest search that finished."""
    position = seat.position()
    empties = len(seat.empty_cells)
    search = Search(position, budget.stopper())
    found = None
    for depth in range(1, empties + 1):
        try:
            found = search.best(depth, tiebreak=rng)
        except SearchStopped:
            break
    nodes = search.nodes
    if found is None:  # not even one placement deep in time: greedy, which is instant
        found = Search(position).best(1, tiebreak=rng)
        nodes += found.nodes
    assert found.move is not None
    return _decision(seat, found.move, found.value, found.exact, found.depth, 1, nodes)


def _hard_sampled(
    seat: SeatKnowledge, rng: Random, budget: Budget, catalog: Sequence[CatalogEntry] | None
) -> Decision:
    """Some cards are hidden: draw samples of them and deepen every sample together, one
    depth at a time, keeping the last depth that all samples finished.

    At each depth, an alpha-beta search per sample names that sample's best move; only
    those candidates (usually a handful of the dozens of moves) are then valued in every
    sample and averaged. Valuing every move everywhere would cost several times more
    and buy little: a move that is best in no sample rarely wins on average.
    """
    stop = budget.stopper()
    empties = len(seat.empty_cells)
    samples = HARD_ENDGAME_SAMPLES if empties <= HARD_ENDGAME else _hard_samples(seat)
    searches = [
        Search(seat.position(sample_unseen(seat, rng, catalog)), stop) for _ in range(samples)
    ]
    best: Decision | None = None
    for depth in range(1, empties + 1):
        try:
            candidates = {move for s in searches if (move := s.best(depth).move) is not None}
            values = [s.values(depth, candidates) for s in searches]
        except SearchStopped:
            break
        best = _averaged(seat, rng, searches, values, depth)
    if best is None:
        return _fixed_depth(seat, rng, catalog, 1, 1)
    return best


def _hard_samples(seat: SeatKnowledge) -> int:
    """``HARD_SAMPLES``, fewer when there are more root moves (``HARD_SAMPLE_MOVES``)."""
    kinds = len({(card.sides, card.element) for card in seat.hand})
    moves = kinds * len(seat.empty_cells)
    return max(MIN_HARD_SAMPLES, min(HARD_SAMPLES, HARD_SAMPLE_MOVES // moves))


def _averaged(
    seat: SeatKnowledge,
    rng: Random,
    searches: Sequence[Search],
    values: Sequence[Sequence[MoveValue]],
    depth: int,
) -> Decision:
    """The move with the best mean utility over the samples: its mean score difference,
    plus, when the samples were searched to the end, a bonus per sample it wins
    (``WIN_WEIGHT``). Ties are drawn with ``rng``."""
    weight = WIN_WEIGHT if depth >= len(seat.empty_cells) else 0
    totals: dict[Move, float] = {}
    margins: dict[Move, float] = {}
    for sample in values:
        for entry in sample:
            bonus = weight if entry.value > 0 else -weight if entry.value < 0 else 0
            totals[entry.move] = totals.get(entry.move, 0.0) + entry.value + bonus
            margins[entry.move] = margins.get(entry.move, 0.0) + entry.value
    moves = list(totals)
    rng.shuffle(moves)
    move = max(moves, key=totals.__getitem__)
    count = len(values)
    return _decision(
        seat,
        move,
        margins[move] / count,
        False,
        depth,
        count,
        sum(s.nodes for s in searches),
    )
