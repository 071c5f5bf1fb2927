"""Characters of the catalog as the collection's domain sees them."""

from __future__ import annotations

from dataclasses import dataclass

from services.match.rules import Element, Sides


@dataclass(frozen=True, slots=True)
class Character:
    """A character: an id, a name, a star rank 1..5, an element or none, four sides."""

    id: str
    name: str
    stars: int
    element: Element | None
    sides: Sides
