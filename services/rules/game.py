"""A game in progress: the board, both hands and whose turn it is (RULES.md section 3)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from services.rules.board import Board
from services.rules.cards import Card
from services.rules.errors import CardNotInHand, GameOver
from services.rules.resolve import Placement

Move = tuple[int, int]
"""A move: (index of the card in the mover's hand, cell)."""


class Seat(IntEnum):
    """The two seats of a match. Owners on a board are seat numbers."""

    A = 0
    B = 1

    @property
    def other(self) -> Seat:
        return _OTHER[self]


_OTHER = (Seat.B, Seat.A)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game with a full board: each seat's score, and the winner or a draw."""

    scores: tuple[int, int]
    winner: Seat | None

    @property
    def draw(self) -> bool:
        return self.winner is None


@dataclass(frozen=True, slots=True)
class Position:
    """Everything the rules need to go on from here. Immutable: :meth:`play` returns a
    new position."""

    board: Board
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    to_move: Seat

    @staticmethod
    def start(
        board: Board, hand_a: Sequence[Card], hand_b: Sequence[Card], first: Seat
    ) -> Position:
        """The opening position; ``first`` is the seat the server drew to place first."""
        return Position(board, (tuple(hand_a), tuple(hand_b)), first)

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        return self.hands[seat]

    @property
    def over(self) -> bool:
        """The game ends with the last placement: when no playable cell is empty."""
        return self.board.full

    def legal_moves(self) -> list[Move]:
        """Every (hand index, cell) the player to move may choose; none once the game is over."""
        if self.over:
            return []
        cells = self.board.empty_cells
        return [(index, cell) for index in range(len(self.hands[self.to_move])) for cell in cells]

    def play(self, hand_index: int, cell: int) -> tuple[Position, Placement]:
        """The player to move places the card at ``hand_index`` of their hand on ``cell``."""
        if self.over:
            raise GameOver("the board is full: the game is over")
        seat = self.to_move
        hand = self.hands[seat]
        if not 0 <= hand_index < len(hand):
            raise CardNotInHand(
                f"hand index {hand_index} is not in seat {seat.name}'s hand "
                f"of {len(hand)} cards (0..{len(hand) - 1})"
            )
        board, placement = self.board.place(cell, hand[hand_index], seat)
        rest = hand[:hand_index] + hand[hand_index + 1 :]
        hands = (rest, self.hands[1]) if seat == Seat.A else (self.hands[0], rest)
        return Position(board, hands, seat.other), placement

    def apply(self, hand_index: int, cell: int, captured: Iterable[int]) -> Position:
        """The position after a recorded placement (see :meth:`Board.apply`)."""
        seat = self.to_move
        hand = self.hands[seat]
        board = self.board.apply(cell, hand[hand_index], seat, captured)
        rest = hand[:hand_index] + hand[hand_index + 1 :]
        hands = (rest, self.hands[1]) if seat == Seat.A else (self.hands[0], rest)
        return Position(board, hands, seat.other)

    def index_of(self, seat: Seat, card_id: str) -> int:
        """The index in ``seat``'s hand of the card called ``card_id``."""
        for index, card in enumerate(self.hands[seat]):
            if card.id == card_id:
                return index
        raise CardNotInHand(f"card {card_id!r} is not in seat {seat.name}'s hand")

    def score(self, seat: Seat) -> int:
        """One point per card the seat owns on the board plus one per card still in hand."""
        return self.board.count(seat) + len(self.hands[seat])

    def outcome(self) -> Outcome | None:
        """The outcome once the board is full, else ``None``. Equal scores are a draw."""
        if not self.over:
            return None
        a, b = self.score(Seat.A), self.score(Seat.B)
        winner = Seat.A if a > b else Seat.B if b > a else None
        return Outcome((a, b), winner)
