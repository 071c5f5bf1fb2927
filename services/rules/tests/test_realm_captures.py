"""Realm rules (RULES.md section 17) in cases the public vectors leave out: Same, Plus and
Combo captures, state in and out, Sudden Death. Each test quotes the sentence or Decision
it checks.
"""

from __future__ import annotations

from services.rules import Cause, Geometry
from services.rules.realm import (
    CreatureType,
    Protection,
    RealmBoard,
    RealmCard,
    RealmRules,
    RealmState,
    Saved,
    resolve,
    weakest_cell,
)
from services.rules.tests.realm_helpers import caps, card, owners, play

# --- Same and Plus ---------------------------------------------------------------------


def test_plus_takes_the_union_of_every_qualifying_set_of_enemies() -> None:
    """'For every set T of two or more of them ... every card of T joins the special
    set (union over all such T)': P's side minus theirs is +2 (top), -1 (left),
    -2 (right), +1 (bottom): {top, right}, {left, bottom} and all four add up."""
    board = {
        1: card((1, 1, 3, 1), owner="B"),  # 5 - 3 = +2
        3: card((1, 6, 1, 1), owner="B"),  # 5 - 6 = -1
        5: card((1, 1, 1, 7), owner="B"),  # 5 - 7 = -2
        7: card((4, 1, 1, 1), owner="B"),  # 5 - 4 = +1
    }
    _, placement = play(board, 4, card((5, 5, 5, 5), "ooze"), "plus")
    assert caps(placement) == {1: "plus", 3: "plus", 5: "plus", 7: "plus"}


def test_plus_set_of_three_leaves_the_fourth_enemy_to_basic() -> None:
    """Only the sets that add up join: +1, +1, -2 is a set of three; the fourth enemy
    (+3 alone, no partner) is left to basic, where P's 5 beats its 2."""
    board = {
        1: card((1, 1, 4, 1), owner="B"),  # +1
        3: card((1, 4, 1, 1), owner="B"),  # +1
        5: card((1, 1, 1, 7), owner="B"),  # -2
        7: card((2, 1, 1, 1), owner="B"),  # +3
    }
    _, placement = play(board, 4, card((5, 5, 5, 5), "ooze"), "plus")
    assert caps(placement) == {1: "plus", 3: "plus", 5: "plus", 7: "basic"}


def test_same_counts_friendly_matches_but_realm_plus_never_counts_friends() -> None:
    """Same: 'friendly cards count towards the two'; Plus: 'consider only enemy
    neighbours'. A friendly 5=5 makes Same with the enemy 5=5, but the enemy's sum
    partner is friendly, so Plus alone takes nothing."""
    board = {1: card((1, 1, 5, 1), owner="B"), 5: card((1, 1, 1, 5), owner="A")}
    _, same = play(board, 4, card((5, 5, 1, 1), "ooze"), "same")
    _, plus = play(board, 4, card((5, 5, 1, 1), "ooze"), "plus")
    assert caps(same) == {1: "same"}
    assert caps(plus) == {}


def test_same_wall_is_not_a_realm_module() -> None:
    """'Same Wall is not a Realm module': an A facing the edge counts no match."""
    board = {1: card((1, 1, 1, 5), owner="B")}
    _, placement = play(board, 0, card((10, 5, 1, 10), "ooze"), "same", "same_wall")
    assert caps(placement) == {}


# --- Combo -----------------------------------------------------------------------------


def test_combo_queue_merges_special_and_basic_captures_in_ascending_cell_order() -> None:
    """'every card captured in steps 1-2, in ascending cell order': basic takes 3,
    Same takes 5 and 7, and the queue is [3, 5, 7] (not the special set first): 3's
    attack on Legendary 0 spends B's Resistance, so 7's attack on Legendary 8 takes it."""
    board = {
        0: card((1, 1, 2, 1), owner="B", legendary=True),
        3: card((9, 2, 1, 1), owner="B"),  # basic: P's left 3 > 2; its top 9 > 2 on cell 0
        5: card((1, 1, 1, 6), owner="B"),  # Same 6=6
        7: card((4, 9, 1, 1), owner="B"),  # Same 4=4; its right 9 > 1 on cell 8
        8: card((1, 1, 1, 1), owner="B", legendary=True),
    }
    _, placement = play(board, 4, card((1, 6, 4, 3), "ooze"), "same", "combo", "resistance")
    assert caps(placement) == {3: "basic", 5: "same", 7: "same", 8: "combo"}
    assert placement.saved == (Saved(0, Cause.COMBO, Protection.RESISTANCE),)


def test_combo_chains_on_the_great_cloth_around_blocked_cells() -> None:
    """Combo on 4x4 with blocked cells, on the standard engine's geometry: basic takes
    6, whose right 8 takes 7, whose bottom 5 takes 11; blocked 2 and 4 touch nothing."""
    board = {
        6: card((1, 8, 1, 2), owner="B"),
        7: card((1, 1, 5, 3), owner="B"),
        11: card((1, 1, 1, 1), owner="B"),
    }
    after, placement = play(
        board, 5, card((1, 5, 1, 1), "ooze"), "combo", size=(4, 4), blocked=(2, 4)
    )
    assert caps(placement) == {6: "basic", 7: "combo", 11: "combo"}
    assert owners(after)[2] is None and owners(after)[4] is None


# --- state in and out, Sudden Death ----------------------------------------------------


def test_resolve_mutates_nothing_and_hands_the_state_back() -> None:
    """Per-match state is explicit input and output: the inputs are left as they were."""
    geometry = Geometry.of(3, 3)
    foe = RealmCard((1, 1, 5, 1), kind=CreatureType.FIEND)
    cards = (None, foe, *(None,) * 7)
    owners = [None, 1, *(None,) * 7]
    state = RealmState.fresh(9)
    placement = resolve(
        geometry,
        cards,
        owners,
        state,
        4,
        RealmCard((7, 1, 1, 1), kind=CreatureType.PLANT),
        0,
        RealmRules(cursed=True),
    )
    assert owners == [None, 1, *(None,) * 7]
    assert state == RealmState.fresh(9)
    assert placement.owners[1] == 0 and placement.owners[4] == 0
    assert placement.state.hex_spent[1] is True  # its Ember defended (7 > 5+1)


def test_sudden_death_replaces_the_lowest_printed_total_lowest_cell_on_ties() -> None:
    """'the board card with the lowest printed total (ties: the lowest cell index) is
    removed, and the next card of the match's draw pile is placed in its cell for the
    player who owned the removed card and resolved as that player's placement'."""
    rules = RealmRules()
    board = RealmBoard.empty(Geometry.of(3, 3), rules)
    plant = CreatureType.PLANT
    board = board.with_card(0, RealmCard((2, 2, 2, 2), kind=plant), 0)  # total 8
    board = board.with_card(1, RealmCard((1, 1, 9, 1), kind=plant), 1)  # total 12
    board = board.with_card(3, RealmCard((3, 1, 2, 2), kind=plant), 1, rot=1)  # total 8
    assert weakest_cell(board.cards) == 0
    after, placement = board.replace_weakest(RealmCard((1, 5, 1, 5), kind=plant))
    assert placement.cell == 0
    assert after.owners[0] == 0
    assert {c.cell: c.cause.value for c in placement.captures} == {1: "basic"}
    assert after.owners[3] == 1  # 0's bottom 1 vs 3's top 3: holds
