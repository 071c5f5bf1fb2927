"""Game-tree search: the exact value of a position under perfect play by both sides, or a
depth-limited estimate of it, with the best move.

The **value** of a position is the final score difference (RULES.md 3: cards owned on
the board plus cards still in hand) from the point of view of the side to move, when
both sides play perfectly from here; positive wins, zero draws, negative loses.

Why a second implementation of placement resolution lives here: the search makes
millions of placements, and ``Board.place`` (immutable boards, ``Capture`` records,
causes) costs several times what the search can afford. :func:`flips.compile_flips`
builds a specialised resolver over the mutable flat lists that
:func:`negamax.compile_position` searches; it computes only which cells change owner,
in the rulebook's order (special set, basic, Combo). The tests check it against
:func:`resolve` on random positions, and the solver against a plain minimax over
:meth:`Position.play`.

What makes it fast enough in pure Python (the whole 3×3 opening, every rule on, is
solved in a few seconds on one core):

- **Negamax with alpha-beta**, fail-soft, and a **transposition table** of
  (lower bound, upper bound, depth, best move) keyed by one integer that encodes which
  card type stands on each cell and who owns it. The side to move and both hands follow
  from that (types are numbered per hand), so they need no room in the key.
- **Identical cards are one move**: cards with the same sides and element in one hand
  are the same card type, searched once.
- **Move ordering**: the table's best move first, searched before the others are even
  resolved (it refutes often), then placements by how many cards they capture at once
  (capturing moves refute most often).
- **Material is the score**: a placement moves a card from hand to board without changing
  its owner's score, so the running score difference changes only by captures and is
  passed down the tree; it is also the static evaluation of depth-limited searches.
- The last placement of the game is evaluated in a loop, without recursion or table.
- **A cell's neighbours are read once** for all the cards tried there, and a cell that
  no enemy card touches is passed over: nothing placed there can flip.

The engine stays pure: no clock. A caller that needs a time budget passes ``stop``, a
function polled every few thousand nodes; when it returns true the search raises
:class:`SearchStopped`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import StrEnum
from random import Random

from services.rules.game import Move, Position
from services.rules.negamax import (
    INF,
    STOP_POLL,
    TABLE_MIN_EMPTIES,
    SearchStopped,
    Window,
    compile_position,
)

__all__ = [
    "INF",
    "STOP_POLL",
    "TABLE_MIN_EMPTIES",
    "MoveValue",
    "Search",
    "SearchStopped",
    "Solution",
    "Verdict",
    "Window",
    "solve",
]


class Verdict(StrEnum):
    """The result of a game under perfect play, for the side to move."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @staticmethod
    def of(value: int) -> Verdict:
        return Verdict.WIN if value > 0 else Verdict.LOSS if value < 0 else Verdict.DRAW


@dataclass(frozen=True, slots=True)
class Solution:
    """What a search found for the side to move.

    ``value`` is the final score difference under perfect play when ``exact`` (the search
    reached the end of the game on every line); otherwise a depth-limited estimate, the
    score difference after ``depth`` more placements. With a window narrower than the
    full one (``solve(wdl=True)``) an exact value may be a bound on the true one, but its
    sign, the :attr:`verdict`, is always right. ``move`` is (hand index, cell), or None
    when the game is over.
    """

    value: int
    move: Move | None
    exact: bool
    depth: int
    nodes: int

    @property
    def verdict(self) -> Verdict:
        return Verdict.of(self.value)


@dataclass(frozen=True, slots=True)
class MoveValue:
    move: Move
    value: int


def solve(
    position: Position, *, wdl: bool = False, stop: Callable[[], bool] | None = None
) -> Solution:
    """The exact value and a best move of ``position``.

    ``wdl`` only settles win, draw or loss (a search with the window (-1, 1)), which is
    faster; the value is then exact in sign only.
    """
    search = Search(position, stop)
    return search.best(None, (-1, 1) if wdl else (-INF, INF))


class Search:
    """One position compiled for search. Its transposition table lives as long as the
    object does, so successive calls (iterative deepening, all root values) reuse it."""

    def __init__(self, position: Position, stop: Callable[[], bool] | None = None) -> None:
        self.position = position
        self._engine = compile_position(position, stop)

    @property
    def empties(self) -> int:
        """How many placements are left until the board is full."""
        return self._engine.empties

    @property
    def nodes(self) -> int:
        """Positions visited so far by every search of this object."""
        return self._engine.nodes()

    @property
    def table_size(self) -> int:
        return self._engine.table_size()

    def best(
        self,
        depth: int | None = None,
        window: Window = (-INF, INF),
        tiebreak: Random | None = None,
    ) -> Solution:
        """The value of the position and a move that reaches it.

        ``depth`` None searches to the end of the game (exact); a number searches that
        many placements and evaluates by the score difference there (0: the score
        difference now, and no move). ``tiebreak`` shuffles the root moves before
        ordering, so which of several equally good moves comes back is drawn from it
        (the search stays a pure function of its inputs).
        """
        engine = self._engine
        plies = engine.empties if depth is None else max(0, min(depth, engine.empties))
        before = engine.nodes()
        value, move = engine.root(plies, window[0], window[1], tiebreak)
        return Solution(value, move, plies >= engine.empties, plies, engine.nodes() - before)

    def captured(self, move: Move) -> list[int]:
        """The cells ``move`` would capture, as the search's own resolver sees them
        (ascending); for checking it against :func:`resolve`."""
        return self._engine.captured(move)

    def values(
        self, depth: int | None = None, moves: Collection[Move] | None = None
    ) -> list[MoveValue]:
        """Every distinct root move (or those of ``moves``) with its own value, each
        searched with a full window: what a caller needs to compare or average moves,
        e.g. across sampled hidden hands. Identical cards yield one move, named by the
        first one's hand index (as :meth:`best` names them)."""
        engine = self._engine
        plies = engine.empties if depth is None else max(1, min(depth, engine.empties))
        return [MoveValue(move, value) for move, value in engine.root_values(plies, moves)]
