"""Board shapes (services/rules/geometry.py): each built once while it is kept, and the
shapes kept bounded by the cells they hold."""

from __future__ import annotations

from services.rules import geometry
from services.rules.geometry import CELLS_KEPT, Geometry


def test_a_shape_asked_for_again_is_the_one_built() -> None:
    assert Geometry.of(5, 5, (3, 7)) is Geometry.of(5, 5, frozenset({7, 3}))
    assert Geometry.of(5, 5, (3, 7)) is not Geometry.of(5, 5, (3, 8))


def test_the_shapes_kept_never_hold_more_than_their_allowance_of_cells() -> None:
    """Found from outside: every shape was kept for good, so a vector file naming a new
    large board on each line (300 boards of 100x100, each with its own blocked cells)
    held 1.5 GB. Built again after being forgotten, a shape is the same shape."""
    first = Geometry.of(60, 60, (0,))
    for blocked in range(1, 40):  # 40 boards of 3,600 cells: over the allowance
        Geometry.of(60, 60, (blocked,))
        assert geometry._SHAPES.cells <= CELLS_KEPT
    again = Geometry.of(60, 60, (0,))
    assert again == first and again.contacts == first.contacts
    assert again.ascending == tuple(tuple(sorted(near)) for near in first.contacts)
