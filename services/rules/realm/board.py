"""A Realm table's board: the standard :class:`Board` (cells, blocked cells, owners,
printed sides) with the match's :class:`RealmState` beside it, and Realm Sudden Death's
replacement of the weakest card (RULES.md section 17)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from services.rules.board import Board
from services.rules.geometry import Geometry
from services.rules.realm.cards import RealmCard
from services.rules.realm.outcome import RealmPlacement, RealmRules, RealmState
from services.rules.realm.resolve import resolve
from services.rules.resolve import Rules

_PRINTED = Rules()
"""The shared board's own rules: none, so its cached values are the printed sides
(Realm tables play no Elemental)."""


@dataclass(frozen=True, slots=True)
class RealmBoard:
    """An immutable Realm board. Every card on ``board`` is a :class:`RealmCard`."""

    board: Board
    rules: RealmRules
    state: RealmState

    @staticmethod
    def empty(geometry: Geometry, rules: RealmRules) -> RealmBoard:
        return RealmBoard(Board.empty(geometry, _PRINTED), rules, RealmState.fresh(geometry.size))

    @property
    def geometry(self) -> Geometry:
        return self.board.geometry

    @property
    def cards(self) -> tuple[RealmCard | None, ...]:
        return cast(tuple[RealmCard | None, ...], self.board.cards)

    @property
    def owners(self) -> tuple[int | None, ...]:
        return self.board.owners

    def with_card(
        self, cell: int, card: RealmCard, owner: int, hex_spent: bool = False, rot: int = 0
    ) -> RealmBoard:
        """The board with ``card`` on ``cell`` and the state earlier placements left on
        it (its Ward or Ember spent, Rot pending), resolving nothing (for set-ups)."""
        if rot < 0:
            raise ValueError(f"pending Rot counts -1s still to come, so it is >= 0, got {rot}")
        board = self.board.with_card(cell, card, owner)
        state = self.state
        spent = list(state.hex_spent)
        spent[cell] = hex_spent
        rots = list(state.rot)
        rots[cell] = rot
        return RealmBoard(
            board, self.rules, state._replace(hex_spent=tuple(spent), rot=tuple(rots))
        )

    def with_state(self, state: RealmState) -> RealmBoard:
        return RealmBoard(self.board, self.rules, state)

    def place(
        self, cell: int, card: RealmCard, player: int, lair: bool = False
    ) -> tuple[RealmBoard, RealmPlacement]:
        """``player`` places ``card`` on ``cell`` (declaring Lair when ``lair``)."""
        board = self.board
        board.check_free(cell)
        placement = resolve(
            board.geometry,
            self.cards,
            board.owners,
            self.state,
            cell,
            card,
            player,
            self.rules,
            lair,
        )
        after = board.apply(cell, card, player, (c.cell for c in placement.captures))
        return RealmBoard(after, self.rules, placement.state), placement

    def replace_weakest(self, card: RealmCard) -> tuple[RealmBoard, RealmPlacement]:
        """Realm Sudden Death, one step: the board card with the lowest printed total
        (ties: the lowest cell) leaves, and ``card`` (the draw pile's next) is placed on
        its cell for the player who owned it, resolved as that player's placement."""
        cell = weakest_cell(self.cards)
        owner = self.owners[cell]
        assert owner is not None
        emptied = self.board.without(cell)
        state = self.state
        spent, rots = list(state.hex_spent), list(state.rot)
        spent[cell], rots[cell] = False, 0
        fresh = state._replace(hex_spent=tuple(spent), rot=tuple(rots))
        return RealmBoard(emptied, self.rules, fresh).place(cell, card, owner)


def weakest_cell(cards: tuple[RealmCard | None, ...]) -> int:
    """The cell of the card with the lowest printed total; ties go to the lowest cell."""
    occupied = [(sum(card.sides), cell) for cell, card in enumerate(cards) if card is not None]
    if not occupied:
        raise ValueError("an empty board has no card to replace")
    return min(occupied)[1]
