"""One test per rule of RULES.md section 4, in the rulebook's words."""

from __future__ import annotations

import pytest

from services.rules import ACE, Card, Element, Rules, Seat, adjusted_sides
from services.rules.errors import CellBlocked, CellOccupied, CellOutsideBoard
from services.rules.tests.helpers import board_of, owners, place

ALL = Rules(same=True, plus=True, combo=True)


def test_basic_captures_only_strictly_lower_enemy_sides() -> None:
    _, _, caps = place({1: ((1, 1, 4, 1), "B"), 5: ((1, 1, 1, 7), "B")}, 4, (7, 7, 1, 1), Rules())
    assert caps == {1: "basic"}  # 7 > 4 captures; 7 vs 7 ties and does not


def test_basic_never_flips_a_friendly_card() -> None:
    board, _, caps = place({1: ((1, 1, 1, 1), "A")}, 4, (9, 9, 9, 9), Rules())
    assert caps == {}
    assert owners(board)[1] == "A"


def test_diagonals_never_interact() -> None:
    _, _, caps = place({0: ((1, 1, 1, 1), "B"), 8: ((1, 1, 1, 1), "B")}, 4, (9, 9, 9, 9), ALL)
    assert caps == {}


def test_same_needs_two_matches_and_captures_only_enemies_among_them() -> None:
    cards = {1: ((1, 1, 4, 1), "A"), 5: ((9, 9, 9, 7), "B")}
    _, _, caps = place(cards, 4, (4, 7, 1, 1), Rules(same=True))
    assert caps == {5: "same"}  # the friendly match at 1 counts towards the two
    _, _, caps = place({5: ((9, 9, 9, 7), "B")}, 4, (4, 7, 1, 1), Rules(same=True))
    assert caps == {}  # one match alone is not Same


def test_same_wall_counts_aces_facing_the_edge_as_matches() -> None:
    cards = {1: ((1, 1, 1, 5), "B")}
    move = (ACE, 5, 1, 1)  # top faces the edge on cell 0 and reads A
    _, _, caps = place(cards, 0, move, Rules(same=True, same_wall=True))
    assert caps == {1: "same"}
    _, _, caps = place(cards, 0, move, Rules(same=True))
    assert caps == {}


def test_same_wall_side_facing_a_blocked_cell_counts_as_edge() -> None:
    """Decision (RULES.md 4): the side of a blocked cell counts as board edge."""
    cards = {5: ((1, 1, 1, 5), "B")}
    _, _, caps = place(cards, 4, (ACE, 5, 1, 1), Rules(same=True, same_wall=True), blocked=(1,))
    assert caps == {5: "same"}


def test_plus_captures_enemies_sharing_a_sum_and_friendly_pairs_count() -> None:
    cards = {1: ((1, 1, 8, 1), "A"), 5: ((9, 9, 9, 5), "B")}
    _, _, caps = place(cards, 4, (2, 5, 1, 1), Rules(plus=True))
    assert caps == {5: "plus"}  # 2+8 = 5+5


def test_plus_ignores_the_board_edge() -> None:
    cards = {1: ((1, 1, 1, 5), "B")}
    _, _, caps = place(cards, 0, (5, 5, 1, 5), Rules(plus=True, same_wall=True))
    assert caps == {}


def test_special_set_is_judged_before_any_flip_then_basic_runs() -> None:
    cards = {1: ((1, 1, 4, 1), "B"), 5: ((1, 1, 1, 7), "B"), 7: ((2, 1, 1, 1), "B")}
    _, placement, caps = place(cards, 4, (4, 7, 9, 1), ALL)
    assert caps == {1: "same", 5: "same", 7: "basic"}
    assert [c.cause.value for c in placement.captures] == ["same", "same", "basic"]


def test_combo_chain_continues_from_each_captured_card() -> None:
    cards = {
        1: ((9, 9, 4, 9), "B"),
        5: ((1, 1, 1, 7), "B"),
        2: ((1, 1, 1, 2), "B"),
        0: ((1, 1, 1, 1), "B"),
    }
    _, _, caps = place(cards, 4, (4, 7, 1, 1), ALL)
    assert caps == {1: "same", 5: "same", 0: "combo", 2: "combo"}


def test_cards_taken_by_the_basic_rule_never_start_a_chain() -> None:
    cards = {7: ((1, 9, 1, 1), "B"), 8: ((1, 1, 1, 2), "B")}
    _, _, caps = place(cards, 4, (1, 1, 5, 1), ALL)
    assert caps == {7: "basic"}


def test_combo_off_keeps_the_chain_from_running() -> None:
    cards = {1: ((9, 9, 4, 9), "B"), 5: ((1, 1, 1, 7), "B"), 2: ((1, 1, 1, 2), "B")}
    _, _, caps = place(cards, 4, (4, 7, 1, 1), Rules(same=True))
    assert caps == {1: "same", 5: "same"}


def test_elemental_matching_cell_adds_one_and_others_lose_one() -> None:
    card = Card((5, 5, 5, 5), Element.FIRE)
    assert adjusted_sides(card, Element.FIRE, True) == (6, 6, 6, 6)
    assert adjusted_sides(card, Element.ICE, True) == (4, 4, 4, 4)
    assert adjusted_sides(Card((5, 5, 5, 5)), Element.ICE, True) == (4, 4, 4, 4)
    assert adjusted_sides(card, None, True) == (5, 5, 5, 5)
    assert adjusted_sides(card, Element.ICE, False) == (5, 5, 5, 5)


def test_elemental_adjusted_values_are_clamped_to_1_and_A() -> None:
    """Decision (RULES.md 4): adjusted values are clamped to 1..10."""
    assert adjusted_sides(Card((ACE, 1, ACE, 1), Element.HOLY), Element.HOLY, True) == (
        ACE,
        2,
        ACE,
        2,
    )
    assert adjusted_sides(Card((ACE, 1, 2, 1)), Element.HOLY, True) == (9, 1, 1, 1)


def test_elemental_applies_to_cards_already_on_the_board() -> None:
    cards = {1: ((1, 1, 6, 1), "B", None)}
    _, _, caps = place(cards, 4, (6, 1, 1, 1), Rules(elemental=True), marks=None)
    assert caps == {}
    board = board_of(cards, Rules(elemental=True), marks={1: Element.WIND})
    _, placement = board.place(4, Card((6, 1, 1, 1)), Seat.A)
    assert [c.cell for c in placement.captures] == [1]  # 6 on a wind cell reads 5


@pytest.mark.parametrize(
    ("cell", "error"),
    [(9, CellOutsideBoard), (-1, CellOutsideBoard), (1, CellBlocked), (4, CellOccupied)],
)
def test_a_placement_needs_an_empty_unblocked_cell_on_the_board(
    cell: int, error: type[Exception]
) -> None:
    board = board_of({4: ((1, 1, 1, 1), "B")}, ALL, blocked=(1,))
    with pytest.raises(error):
        board.place(cell, Card((1, 1, 1, 1)), Seat.A)
