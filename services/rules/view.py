"""What one player may see (RULES.md section 3, Visibility).

A player always sees the board and their own hand. Of the opponent's hand they see
every card under All Open, none under Closed, and the three drawn at match start under
Three Open. An unrevealed card becomes :data:`HIDDEN`, which carries nothing: not its
id, character, element or sides. Bots get exactly the same view.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from services.rules.board import Board
from services.rules.cards import Card
from services.rules.game import Position, Seat

THREE_OPEN_REVEALED = 3
"""How many cards of each hand Three Open reveals."""


class Visibility(StrEnum):
    ALL_OPEN = "all_open"
    CLOSED = "closed"
    THREE_OPEN = "three_open"


class Hidden:
    """An opposing card the player may not see. It has no fields by design."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "HIDDEN"


HIDDEN: Final = Hidden()


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: Seat
    board: Board
    to_move: Seat
    hand: tuple[Card, ...]
    opponent_hand: tuple[Card | Hidden, ...]


def view_for(
    position: Position,
    seat: Seat,
    visibility: Visibility,
    revealed: Collection[str] = (),
) -> PlayerView:
    """The view of ``seat``. ``revealed`` names the opponent's cards (by id) that Three
    Open drew to reveal; it is ignored under All Open and Closed."""
    opponent = position.hands[seat.other]
    shown: tuple[Card | Hidden, ...]
    if visibility is Visibility.ALL_OPEN:
        shown = opponent
    elif visibility is Visibility.CLOSED:
        shown = (HIDDEN,) * len(opponent)
    else:
        shown = tuple(card if card.id in revealed else HIDDEN for card in opponent)
    return PlayerView(seat, position.board, position.to_move, position.hands[seat], shown)
