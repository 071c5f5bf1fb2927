"""What a bot seat knows, and nothing more: the public part of its MatchView.

A bot decides from :class:`SeatKnowledge` only, built from the seat's own redacted
view (RULES.md 3: bots obey the same view). The opponent's unrevealed cards are not in
the view, so they cannot be here either; by construction this type has room for their
*number* only. Everything in it is plain, frozen and picklable, so it can cross into a
worker process.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.match.domain.events import MatchCard
from services.match.views import MatchView
from services.rules import Board, Card, Element, Geometry, Position, Rules, Seat, Visibility


@dataclass(frozen=True, slots=True)
class Seen:
    """An opposing card the seat has seen (played, or revealed by Three Open / All Open):
    its character and rank, for the deck rules a sampler may respect."""

    character_id: str
    stars: int


@dataclass(frozen=True, slots=True)
class SeatKnowledge:
    """The public facts a bot seat decides from."""

    seat: Seat
    to_move: Seat | None
    """None once the match is over."""
    rules: Rules
    visibility: Visibility
    rows: int
    cols: int
    blocked: frozenset[int]
    marks: tuple[Element | None, ...]
    board: tuple[tuple[Card, Seat] | None, ...]
    """Per cell: the card standing there (printed values) and its owner, or None."""
    hand: tuple[Card, ...]
    """The seat's own unplayed cards, each with its card id."""
    opponent_known: tuple[Card, ...]
    """The opponent's unplayed cards this seat may see."""
    opponent_hidden: int
    """How many of the opponent's unplayed cards it may not see: a count, nothing else."""
    opponent_seen: tuple[Seen, ...]
    """Characters of every opposing card seen so far, played or in hand."""
    level: str
    """The seat's bot level as the match records it."""

    @property
    def empty_cells(self) -> tuple[int, ...]:
        return tuple(
            c
            for c in range(self.rows * self.cols)
            if self.board[c] is None and c not in self.blocked
        )

    def position(self, opponent_unseen: tuple[Card, ...] = ()) -> Position:
        """The position with the opponent's hand completed by ``opponent_unseen`` (cards
        a sampler drew for the hidden slots: guesses, never the real ones). The seat's
        own hand keeps its order, so a move's hand index names a card of :attr:`hand`."""
        if len(opponent_unseen) != self.opponent_hidden:
            raise ValueError(
                f"the opponent hides {self.opponent_hidden} cards, got {len(opponent_unseen)}"
            )
        if self.to_move is None:
            raise ValueError("the match is over: there is no position to move in")
        board = Board.empty(Geometry.of(self.rows, self.cols, self.blocked), self.rules, self.marks)
        for cell, entry in enumerate(self.board):
            if entry is not None:
                board = board.with_card(cell, entry[0], entry[1])
        opponent = self.opponent_known + opponent_unseen
        hands = (self.hand, opponent) if self.seat is Seat.A else (opponent, self.hand)
        return Position(board, hands, self.to_move)


def knowledge(view: MatchView) -> SeatKnowledge:
    """The public facts of the bot seat whose view this is."""
    seat = view.seat
    opponent = seat.other
    known = [card for card in view.opponent_hand if isinstance(card, MatchCard)]
    played = [
        cell.card for cell in view.board if cell.card is not None and cell.placed_by is opponent
    ]
    setup = view.setup
    return SeatKnowledge(
        seat=seat,
        to_move=view.turn_seat,
        rules=setup.rules,
        visibility=setup.visibility,
        rows=setup.rows,
        cols=setup.cols,
        blocked=frozenset(cell.index for cell in view.board if cell.blocked),  # this round's
        marks=tuple(cell.mark for cell in view.board),
        board=tuple(
            None
            if cell.card is None or cell.owner is None
            else (cell.card.rules_card(), cell.owner)
            for cell in view.board
        ),
        hand=tuple(card.rules_card() for card in view.hand),
        opponent_known=tuple(card.rules_card() for card in known),
        opponent_hidden=len(view.opponent_hand) - len(known),
        opponent_seen=tuple(Seen(card.character_id, card.stars) for card in (*played, *known)),
        level=view.players[seat].player.bot_level,
    )
