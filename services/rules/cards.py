"""Cards, sides and adjusted values (RULES.md sections 1 and 4)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

ACE = 10
"""The highest side value, written ``A``."""

Sides = tuple[int, int, int, int]
"""Side values in the order top, right, bottom, left."""


class Side(IntEnum):
    """A card's sides, in the order the rulebook lists them."""

    TOP = 0
    RIGHT = 1
    BOTTOM = 2
    LEFT = 3

    @property
    def opposite(self) -> Side:
        """The side of a neighbour that faces this one: a top faces a bottom."""
        return Side((self + 2) % 4)


SIDES = (Side.TOP, Side.RIGHT, Side.BOTTOM, Side.LEFT)


class Element(StrEnum):
    """The eight elements a character or a board cell may carry."""

    FIRE = "fire"
    ICE = "ice"
    THUNDER = "thunder"
    EARTH = "earth"
    POISON = "poison"
    WIND = "wind"
    WATER = "water"
    HOLY = "holy"


@dataclass(frozen=True, slots=True)
class Card:
    """A card as the rules see it: printed sides (holo bonus included) and element.

    ``id`` names the copy (or any handle the caller chooses); the rules never read it,
    but views hide it together with the rest of an unrevealed card.
    """

    sides: Sides
    element: Element | None = None
    id: str = ""

    def __post_init__(self) -> None:
        if len(self.sides) != 4 or not all(1 <= side <= ACE for side in self.sides):
            raise ValueError(f"a card has four sides of 1..10 (A), got {self.sides!r}")


def holo_candidates(sides: Sides) -> tuple[Side, ...]:
    """The sides a Holographic copy may carry its +1 on.

    **Decision** (RULES.md section 1): the holo side is drawn uniformly among the sides
    below A; a character whose four sides are all A has no candidate and gets no bonus.
    """
    return tuple(side for side in SIDES if sides[side] < ACE)


def with_holo(sides: Sides, holo_side: Side | None) -> Sides:
    """The printed values of a copy: the character's sides plus its holo bonus."""
    if holo_side is None:
        return sides
    if sides[holo_side] >= ACE:
        raise ValueError(f"the holo bonus cannot go on a side that reads A ({holo_side.name})")
    bumped = list(sides)
    bumped[holo_side] += 1
    return (bumped[0], bumped[1], bumped[2], bumped[3])


def adjusted_sides(card: Card, mark: Element | None, elemental: bool) -> Sides:
    """The values a card compares with while it stands on a cell with ``mark``.

    With Elemental on, a marked cell gives +1 on every side to a card of its element and
    -1 to any other card (another element or none); unmarked cells do nothing.
    **Decision**: adjusted values are clamped to 1..10.
    """
    if not elemental or mark is None:
        return card.sides
    delta = 1 if card.element == mark else -1
    t, r, b, left = card.sides
    return (
        min(ACE, max(1, t + delta)),
        min(ACE, max(1, r + delta)),
        min(ACE, max(1, b + delta)),
        min(ACE, max(1, left + delta)),
    )
