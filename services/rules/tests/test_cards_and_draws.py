"""Holo copies and the random draws of a match start, with their Decision lines."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from services.rules import (
    ACE,
    Card,
    Element,
    Geometry,
    Seat,
    Side,
    holo_candidates,
    with_holo,
)
from services.rules.draws import draw_cell_marks, draw_first_seat, draw_revealed


def test_holo_side_is_drawn_only_among_sides_below_A() -> None:
    """Decision (RULES.md 1): the holo side is drawn among the sides below A."""
    assert holo_candidates((ACE, 3, ACE, 9)) == (Side.RIGHT, Side.LEFT)
    assert with_holo((ACE, 3, ACE, 9), Side.RIGHT) == (ACE, 4, ACE, 9)
    with pytest.raises(ValueError, match="reads A"):
        with_holo((ACE, 3, ACE, 9), Side.TOP)


def test_an_all_A_character_has_no_holo_bonus() -> None:
    """Decision (RULES.md 1): four A sides get no bonus (the copy is still holo)."""
    assert holo_candidates((ACE, ACE, ACE, ACE)) == ()
    assert with_holo((ACE, ACE, ACE, ACE), None) == (ACE, ACE, ACE, ACE)


def test_cell_marks_are_one_in_three_and_uniform_over_the_eight_elements() -> None:
    """Decision (RULES.md 3): each cell is marked with probability 1/3, element uniform."""
    rng = Random(7)
    geometry = Geometry.of(3, 3)
    marks = [m for _ in range(20_000) for m in draw_cell_marks(geometry, rng)]
    marked = [m for m in marks if m is not None]
    assert abs(len(marked) / len(marks) - 1 / 3) < 0.01
    counts = Counter(marked)
    assert set(counts) == set(Element)
    expected = len(marked) / 8
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 24.3  # 7 degrees of freedom, p = 0.001


def test_blocked_cells_are_never_marked() -> None:
    geometry = Geometry.of(5, 5, (0, 12))
    rng = Random(3)
    for _ in range(200):
        marks = draw_cell_marks(geometry, rng)
        assert marks[0] is None and marks[12] is None


def test_first_seat_is_a_fair_draw() -> None:
    rng = Random(11)
    counts = Counter(draw_first_seat(rng) for _ in range(10_000))
    assert abs(counts[Seat.A] - 5_000) < 250


def test_three_open_reveals_three_distinct_cards_of_the_hand() -> None:
    hand = [Card((1, 1, 1, 1), None, f"c{i}") for i in range(5)]
    rng = Random(5)
    seen: Counter[str] = Counter()
    for _ in range(5_000):
        revealed = draw_revealed(hand, rng)
        assert len(revealed) == 3 and revealed <= {c.id for c in hand}
        seen.update(revealed)
    assert all(abs(n - 3_000) < 200 for n in seen.values())


def test_three_open_refuses_a_hand_without_distinct_ids() -> None:
    with pytest.raises(ValueError, match="distinct id"):
        draw_revealed([Card((1, 1, 1, 1))] * 5, Random(1))
