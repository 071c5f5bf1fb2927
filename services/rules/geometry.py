"""Board shapes: rows × columns with optional blocked cells, and their neighbour tables.

Cells are indexed row-major from 0 (top-left). A card's top faces the card above it,
whose bottom faces back; diagonals never interact. The tables are computed once per
shape so placement resolution only looks things up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.rules.cards import SIDES, Side

Contact = tuple[int, int, int]
"""A neighbour seen from a cell: (neighbour cell, this cell's side, the neighbour's side)."""
Contacts = tuple[tuple[Contact, ...], ...]
"""Per cell of a board, its neighbours."""

_STEP = {Side.TOP: (-1, 0), Side.RIGHT: (0, 1), Side.BOTTOM: (1, 0), Side.LEFT: (0, -1)}


@dataclass(frozen=True, slots=True)
class Geometry:
    """The shape of a board. Build one with :meth:`of`, which caches each shape."""

    rows: int
    cols: int
    blocked: frozenset[int]
    contacts: Contacts = field(repr=False, compare=False)
    """Per cell: every playable orthogonal neighbour, as (cell, my side, its side)."""
    walls: tuple[tuple[int, ...], ...] = field(repr=False, compare=False)
    """Per cell: the sides that face the board edge or a blocked cell (Same Wall)."""
    playable: tuple[int, ...] = field(repr=False, compare=False)
    """The cells that can ever hold a card, ascending."""
    ascending: Contacts = field(repr=False, compare=False)
    """``contacts`` with each cell's neighbours in ascending cell order (top, left,
    right, bottom): the order in which Realm attacks are attempted."""

    @property
    def size(self) -> int:
        return self.rows * self.cols

    @staticmethod
    def of(
        rows: int = 3, cols: int = 3, blocked: frozenset[int] | tuple[int, ...] = ()
    ) -> Geometry:
        key = (rows, cols, frozenset(blocked))
        known = _SHAPES.known.get(key)
        if known is None:
            known = _geometry(*key)
            _SHAPES.keep(key, known)
        return known


STANDARD_ROWS = STANDARD_COLS = 3

CELLS_KEPT = 100_000
"""How many cells the shapes kept may hold in all before they are forgotten together:
a server meets few shapes (5×5 boards draw their blocked cells, so at most a few
thousand), while a vector file may name a new shape on every line, some of them large
(found from outside: 300 boards of 100×100 held 1.5 GB)."""


class _Shapes:
    """The shapes built, by (rows, cols, blocked), and how many cells they hold."""

    def __init__(self) -> None:
        self.known: dict[tuple[int, int, frozenset[int]], Geometry] = {}
        self.cells = 0

    def keep(self, key: tuple[int, int, frozenset[int]], geometry: Geometry) -> None:
        if self.cells + geometry.size > CELLS_KEPT:
            self.known.clear()
            self.cells = 0
        self.known[key] = geometry
        self.cells += geometry.size


_SHAPES = _Shapes()


def _geometry(rows: int, cols: int, blocked: frozenset[int]) -> Geometry:
    if rows < 1 or cols < 1:
        raise ValueError(f"a board has at least one row and one column, got {rows}x{cols}")
    size = rows * cols
    bad = sorted(cell for cell in blocked if not 0 <= cell < size)
    if bad:
        raise ValueError(f"blocked cells {bad} are outside the {rows}x{cols} board")
    contacts: list[tuple[Contact, ...]] = []
    walls: list[tuple[int, ...]] = []
    for cell in range(size):
        row, col = divmod(cell, cols)
        near: list[Contact] = []
        wall: list[int] = []
        for side in SIDES:
            d_row, d_col = _STEP[side]
            r, c = row + d_row, col + d_col
            other = r * cols + c
            if 0 <= r < rows and 0 <= c < cols and other not in blocked:
                near.append((other, int(side), int(side.opposite)))
            else:
                # Decision (RULES.md 4): the side of a blocked cell counts as board edge.
                wall.append(int(side))
        contacts.append(tuple(near))
        walls.append(tuple(wall))
    playable = tuple(cell for cell in range(size) if cell not in blocked)
    ascending = tuple(tuple(sorted(near)) for near in contacts)
    return Geometry(rows, cols, blocked, tuple(contacts), tuple(walls), playable, ascending)
