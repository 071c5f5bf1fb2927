"""Sudden Death rounds (RULES.md 12): whether a full board with equal scores plays on,
and the next round's draws (hands, blocked cells, marks, reveals), made once by the
decision that ties the round and recorded in its :class:`RoundStarted`."""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from services.match.domain.events import MAX_ROUNDS, RoundStarted
from services.match.domain.state import SEATS, Match
from services.rules import Geometry, Seat, Visibility
from services.rules.draws import draw_blocked_cells, draw_cell_marks, draw_revealed


def plays_on(match: Match) -> bool:
    """Sudden Death (RULES.md 12): a full board with equal scores starts another round,
    up to the fifth."""
    scores = match.scores()
    return match.setup.sudden_death and scores[0] == scores[1] and match.round < MAX_ROUNDS


def next_round(match: Match, now: datetime, rng: Random) -> RoundStarted:
    """The next round of a tied Sudden Death match, its draws made from ``rng``: each
    seat's hand is every card it owns now (its colour on the board plus its hand), in
    the order of the original decks; the seat that placed second places first; blocked
    cells (as many as the table has), Elemental marks and Three Open reveals anew."""
    position = match.position
    owned: dict[str, Seat] = {card.id: seat for seat in SEATS for card in position.hand(seat)}
    board = position.board
    for card, owner in zip(board.cards, board.owners, strict=True):
        if card is not None and owner is not None:
            owned[card.id] = Seat(owner)
    order = [c.card_id for start in match.seats for c in start.hand]
    hands = tuple(tuple(i for i in order if owned[i] == seat) for seat in SEATS)
    setup = match.setup
    blocked = draw_blocked_cells(setup.rows, setup.cols, len(setup.blocked), rng)
    geometry = Geometry.of(setup.rows, setup.cols, blocked)
    marks = draw_cell_marks(geometry, rng) if setup.rules.elemental else (None,) * geometry.size
    revealed = tuple(round_reveal(setup.visibility, match, hand, rng) for hand in hands)
    return RoundStarted(
        match_id=match.match_id,
        round=match.round + 1,
        first=match.first.other,
        hands=(hands[0], hands[1]),
        revealed=(revealed[0], revealed[1]),
        marks=marks,
        blocked=blocked,
        deadline=now + timedelta(seconds=match.turn_seconds),
        previous_scores=match.scores(),
    )


def round_reveal(
    visibility: Visibility, match: Match, hand: tuple[str, ...], rng: Random
) -> frozenset[str]:
    if visibility is Visibility.ALL_OPEN:
        return frozenset(hand)
    if visibility is Visibility.CLOSED:
        return frozenset()
    return draw_revealed([match.cards[i].rules_card() for i in hand], rng)
