"""The random draws a match makes at its start, as pure functions of a random source.

The rules engine never owns randomness: a handler passes its random source in,
records what was drawn in the match's first event, and replay reads the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from services.rules.cards import Card, Element
from services.rules.game import Seat
from services.rules.geometry import Geometry
from services.rules.view import THREE_OPEN_REVEALED

ELEMENTS = tuple(Element)
MARK_CHANCE = 1 / 3
"""**Decision** (RULES.md 3, Elemental): each cell is marked with probability 1/3."""


def draw_first_seat(rng: Random) -> Seat:
    """A random seat places first (RULES.md 3)."""
    return Seat.A if rng.random() < 0.5 else Seat.B


def draw_cell_marks(geometry: Geometry, rng: Random) -> tuple[Element | None, ...]:
    """**Decision** (RULES.md 3, Elemental): each playable cell is marked independently
    with probability 1/3, its element drawn uniformly from the eight."""
    blocked = geometry.blocked
    return tuple(
        rng.choice(ELEMENTS) if cell not in blocked and rng.random() < MARK_CHANCE else None
        for cell in range(geometry.size)
    )


def draw_revealed(hand: Sequence[Card], rng: Random) -> frozenset[str]:
    """Three Open: the ids of three cards of ``hand``, drawn at random, that the
    opponent sees from the start."""
    ids = [card.id for card in hand]
    if len(set(ids)) != len(ids) or "" in ids:
        raise ValueError("Three Open needs every card in the hand to carry a distinct id")
    return frozenset(rng.sample(ids, min(THREE_OPEN_REVEALED, len(ids))))


def draw_blocked_cells(rows: int, cols: int, count: int, rng: Random) -> frozenset[int]:
    """**Decision** (RULES.md 11): ``count`` blocked cells drawn uniformly among the
    ``rows`` x ``cols`` cells (none drawn, and nothing taken from ``rng``, for 0)."""
    if count == 0:
        return frozenset()
    return frozenset(rng.sample(range(rows * cols), count))
