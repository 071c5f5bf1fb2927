"""The rules engine of Gacha TriadAlpha: pure, standard library only.

It speaks the rulebook's words (``../shared/RULES.md``): cards and their adjusted
values, boards of any size with blocked cells, placement resolution (Same, Same Wall,
Plus, basic, Combo, Elemental), scoring with the unplayed card, what one player may
see, and the deck rules. Nothing here does I/O, reads a clock or draws randomness:
callers pass random draws in, so every result is a pure function of its arguments.

It is no service's package: the match service plays by it, the collection (cards,
holo sides, deck and trade rules), the matchmaker (rule sets, compatibility) and
``services/wire.py`` (the wire vocabulary) read it, and no service imports another's
package (``../shared/STYLE.md``). Skirmish's engine is ``services/battle/rules/``.
"""

from services.rules.board import Board
from services.rules.cards import (
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
from services.rules.deck import DeckEntry, DeckRule, Violation, validate_deck
from services.rules.game import Move, Outcome, Position, Seat
from services.rules.geometry import Geometry
from services.rules.resolve import Capture, Cause, Placement, Rules, resolve
from services.rules.view import HIDDEN, Hidden, PlayerView, Visibility, view_for

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
