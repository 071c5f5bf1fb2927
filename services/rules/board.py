"""The board: which card stands on which cell, who owns it, and the cells' element marks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.rules.cards import Card, Element, Sides, adjusted_sides
from services.rules.errors import CellBlocked, CellOccupied, CellOutsideBoard
from services.rules.geometry import Geometry
from services.rules.resolve import Placement, Rules, resolve


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board under one set of rules. ``owners`` holds 0 or 1 per occupied
    cell, else ``None``; ``adjusted`` caches each placed card's adjusted sides (they
    never change once the card is down: a card never moves and cell marks are fixed)."""

    geometry: Geometry
    rules: Rules
    marks: tuple[Element | None, ...]
    cards: tuple[Card | None, ...]
    owners: tuple[int | None, ...]
    adjusted: tuple[Sides | None, ...]

    @staticmethod
    def empty(
        geometry: Geometry, rules: Rules, marks: Sequence[Element | None] | None = None
    ) -> Board:
        size = geometry.size
        cell_marks = tuple(marks) if marks is not None else (None,) * size
        if len(cell_marks) != size:
            raise ValueError(f"a {geometry.rows}x{geometry.cols} board has {size} cell marks")
        empty = (None,) * size
        return Board(geometry, rules, cell_marks, empty, empty, empty)

    def with_card(self, cell: int, card: Card, owner: int) -> Board:
        """The board with ``card`` standing on ``cell`` without resolving anything
        (for setting up positions)."""
        self.check_free(cell)
        sides = adjusted_sides(card, self.marks[cell], self.rules.elemental)
        return self._set(cell, card, owner, list(self.owners), sides)

    def place(self, cell: int, card: Card, player: int) -> tuple[Board, Placement]:
        """``player`` places ``card`` on ``cell``: resolve captures per RULES.md 4."""
        self.check_free(cell)
        sides = adjusted_sides(card, self.marks[cell], self.rules.elemental)
        owners = list(self.owners)
        captures = resolve(self.geometry, self.adjusted, owners, cell, sides, player, self.rules)
        board = self._set(cell, card, player, owners, sides)
        return board, Placement(cell, tuple(captures))

    def apply(self, cell: int, card: Card, player: int, captured: Iterable[int]) -> Board:
        """The board after a placement whose outcome is already known: ``card`` goes
        down on ``cell`` and every ``captured`` cell turns to ``player``. Replay uses
        this, so history never re-runs rule code."""
        self.check_free(cell)
        owners = list(self.owners)
        for taken in captured:
            if owners[taken] is None:
                raise ValueError(f"cell {taken} is empty and cannot be captured")
            owners[taken] = player
        sides = adjusted_sides(card, self.marks[cell], self.rules.elemental)
        return self._set(cell, card, player, owners, sides)

    def without(self, cell: int) -> Board:
        """The board with ``cell`` emptied (Realm Sudden Death removes a card)."""
        cards, owners, values = list(self.cards), list(self.owners), list(self.adjusted)
        cards[cell] = owners[cell] = values[cell] = None
        return Board(
            self.geometry, self.rules, self.marks, tuple(cards), tuple(owners), tuple(values)
        )

    def check_on(self, cell: int) -> None:
        """CellOutsideBoard unless ``cell`` is one of the board's cells."""
        geometry = self.geometry
        if not 0 <= cell < geometry.size:
            raise CellOutsideBoard(
                f"cell {cell} is not on the {geometry.rows}x{geometry.cols} board "
                f"(cells are 0..{geometry.size - 1}, row-major)"
            )

    def check_free(self, cell: int) -> None:
        self.check_on(cell)
        geometry = self.geometry
        if cell in geometry.blocked:
            raise CellBlocked(f"cell {cell} is blocked; choose an empty, unblocked cell")
        if self.cards[cell] is not None:
            raise CellOccupied(f"cell {cell} already holds a card; choose an empty cell")

    @property
    def empty_cells(self) -> tuple[int, ...]:
        cards = self.cards
        return tuple(cell for cell in self.geometry.playable if cards[cell] is None)

    @property
    def full(self) -> bool:
        # A blocked cell never holds a card (check_free and the vectors refuse one): the
        # board is full when its only empty cells are the blocked ones. Counted in C: the
        # search asks this at every node.
        return self.cards.count(None) == len(self.geometry.blocked)

    def count(self, owner: int) -> int:
        return sum(1 for o in self.owners if o == owner)

    def _set(
        self,
        cell: int,
        card: Card,
        owner: int,
        owners: list[int | None],
        sides: Sides,
    ) -> Board:
        owners[cell] = owner
        cards = list(self.cards)
        cards[cell] = card
        adjusted = list(self.adjusted)
        adjusted[cell] = sides
        return Board(
            self.geometry, self.rules, self.marks, tuple(cards), tuple(owners), tuple(adjusted)
        )
