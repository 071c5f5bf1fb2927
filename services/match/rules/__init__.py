"""The rules engine of Gacha TriadAlpha: pure, standard library only.

It speaks the rulebook's words (``../shared/RULES.md``): cards and their adjusted
values, boards of any size with blocked cells, placement resolution (Same, Same Wall,
Plus, basic, Combo, Elemental), scoring with the unplayed card, what one player may
see, and the deck rules. Nothing here does I/O, reads a clock or draws randomness:
callers pass random draws in, so every result is a pure function of its arguments.
"""

from services.match.rules.board import Board
from services.match.rules.cards import (
    ACE,
    SIDES,
    Card,
    Element,
    Side,
    Sides,
    adjusted_sides,
    holo_candidates,
    with_holo,
)
from services.match.rules.deck import DeckEntry, DeckRule, Violation, validate_deck
from services.match.rules.game import Move, Outcome, Position, Seat
from services.match.rules.geometry import Geometry
from services.match.rules.resolve import Capture, Cause, Placement, Rules, resolve
from services.match.rules.view import HIDDEN, Hidden, PlayerView, Visibility, view_for

__all__ = [
    "ACE",
    "HIDDEN",
    "SIDES",
    "Board",
    "Capture",
    "Card",
    "Cause",
    "DeckEntry",
    "DeckRule",
    "Element",
    "Geometry",
    "Hidden",
    "Move",
    "Outcome",
    "Placement",
    "PlayerView",
    "Position",
    "Rules",
    "Seat",
    "Side",
    "Sides",
    "Violation",
    "Visibility",
    "adjusted_sides",
    "holo_candidates",
    "resolve",
    "validate_deck",
    "view_for",
    "with_holo",
]
