"""Realm rules (RULES.md section 17) in cases the public vectors leave out: the modifiers
(Type Advantage, Clash, Lair, Resistance, Ward, Ember, Rot, Silence, Bind). Each test
quotes the sentence or Decision it checks.
"""

from __future__ import annotations

import pytest

from services.rules import Cause, Geometry
from services.rules.realm import (
    Comparison,
    CreatureType,
    LairSpent,
    Modifier,
    ModifierKind,
    Protection,
    RealmCard,
    RealmRules,
    Saved,
    resolve,
)
from services.rules.tests.realm_helpers import caps, card, play

# --- Type Advantage, Clash, Lair -------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "foe", "side", "gains"),
    [
        ("undead", "humanoid", "left", True),
        ("undead", "beast", "left", True),
        ("undead", "giant", "left", False),
        ("celestial", "undead", "left", True),
        ("celestial", "fiend", "left", True),
        ("aberration", "humanoid", "left", True),
        ("aberration", "beast", "left", False),
        ("dragon", "giant", "top", True),
        ("dragon", "giant", "left", False),
        ("construct", "plant", "bottom", False),  # the Construct's +1 is only defending
    ],
)
def test_type_advantage_when_attacking(kind: str, foe: str, side: str, gains: bool) -> None:
    """'a Dragon's top side +1 when compared against a Giant or Humanoid; an Undead's
    left side +1 against a Humanoid or Beast; ... a Celestial's left side +1 against a
    Fiend or Undead; an Aberration's left side +1 against a Humanoid'."""
    where = {"top": (1, (1, 1, 5, 1)), "left": (3, (1, 5, 1, 1)), "bottom": (7, (5, 1, 1, 1))}
    cell, foe_sides = where[side]
    index = ["top", "right", "bottom", "left"].index(side)
    sides = [1, 1, 1, 1]
    sides[index] = 5
    _, placement = play(
        {cell: card(foe_sides, foe, owner="B")},
        4,
        card((sides[0], sides[1], sides[2], sides[3]), kind),
        "type_advantage",
    )
    assert caps(placement) == ({cell: "basic"} if gains else {})


def test_type_advantage_also_when_defending() -> None:
    """'The bonuses apply whether the card attacks or defends': a Dragon's top defends
    6 against a Giant's bottom 6 (tie), while a Plant's top 5 falls."""
    dragon = {7: card((5, 1, 1, 1), "dragon", owner="B")}
    _, placement = play(dragon, 4, card((1, 1, 6, 1), "giant"), "type_advantage")
    assert caps(placement) == {}
    _, placement = play(dragon, 4, card((1, 1, 6, 1), "giant"))
    assert caps(placement) == {7: "basic"}


def test_clash_adds_one_to_the_higher_value_once_and_changes_no_capture() -> None:
    """'the higher modified value of that comparison gains +1. Decision: applied last;
    ... it changes no capture; views show it.' Lawful Good against Chaotic Evil clashes
    on both words and still gains +1 once."""
    board = {1: card((1, 1, 5, 1), owner="B", alignment=["chaotic", "evil"])}
    placed = card((6, 1, 1, 1), "ooze", alignment=["lawful", "good"])
    _, on = play(board, 4, placed, "clash")
    _, off = play(board, 4, placed)
    assert caps(on) == caps(off) == {1: "basic"}
    assert on.comparisons == (Comparison(4, 1, 7, 5, (Modifier(ModifierKind.ALIGNMENT_CLASH, 1),)),)
    assert off.comparisons == (Comparison(4, 1, 6, 5),)
    calm = {1: card((1, 1, 5, 1), owner="B", alignment=["lawful", "neutral"])}
    _, placement = play(calm, 4, placed, "clash")
    assert placement.comparisons == (Comparison(4, 1, 6, 5),)


def test_each_comparison_records_the_modifiers_each_side_took() -> None:
    """'views show it' (Clash), and with it every modifier that decided a comparison:
    the kind and amount per side, in the order applied, adding up from the printed
    value to the modified one."""
    mods = ModifierKind
    board = {
        1: card((1, 1, 5, 1), "giant", owner="B", alignment=["chaotic", "neutral"], rot=1),
        3: card((1, 3, 1, 1), "fiend", owner="B"),
    }
    placed = card((6, 1, 1, 3), "dragon", alignment=["lawful", "neutral"])
    _, placement = play(board, 4, placed, "type_advantage", "clash", "lair", "cursed", lair=True)
    top, left = placement.comparisons[0], placement.comparisons[1]
    assert top == Comparison(
        4,
        1,
        9 + 1,
        -1,
        (
            Modifier(mods.TYPE_ADVANTAGE, 1),
            Modifier(mods.LAIR, 1),
            Modifier(mods.EMBER, 1),
            Modifier(mods.ALIGNMENT_CLASH, 1),
        ),
        (Modifier(mods.BIND, -5), Modifier(mods.ROT, -1)),
    )
    assert left == Comparison(
        4, 3, 5, 4, (Modifier(mods.LAIR, 1), Modifier(mods.EMBER, 1)), (Modifier(mods.EMBER, 1),)
    )
    for c in placement.comparisons:
        assert c.attack - sum(m.amount for m in c.attack_modifiers) in placed["sides"]
    guarded = {1: card((1, 1, 4, 1), "construct", owner="B")}
    _, placement = play(guarded, 4, card((6, 1, 1, 1)), "type_advantage")
    assert placement.comparisons == (Comparison(4, 1, 6, 5, (), (Modifier(mods.GUARD, 1),)),)


def test_lair_is_spent_after_use_and_refused_a_second_time() -> None:
    """'Lair (once per match per player)'."""
    board = {1: card((1, 1, 5, 1), owner="B")}
    after, placement = play(board, 4, card((5, 1, 1, 1), "ooze"), "lair", lair=True)
    assert placement.state.lair_spent == (True, False)
    geometry = Geometry.of(3, 3)
    with pytest.raises(LairSpent):
        resolve(
            geometry,
            after.cards,
            after.owners,
            after.state,
            8,
            RealmCard((5, 5, 5, 5), kind=CreatureType.OOZE),
            0,
            RealmRules(lair=True),
            lair=True,
        )


def test_lair_declared_with_the_module_off_does_nothing() -> None:
    """'Modifiers (each only when its module is on)'."""
    board = {1: card((1, 1, 5, 1), owner="B")}
    _, placement = play(board, 4, card((5, 1, 1, 1), "ooze"), lair=True)
    assert caps(placement) == {}
    assert placement.state.lair_spent == (False, False)


# --- Resistance and Ward ---------------------------------------------------------------


def test_resistance_spent_before_the_placement_saves_nothing_and_is_recorded() -> None:
    """'Legendary Resistance (once per match per player)': the state says whose is
    spent, and a placement that uses one hands it back spent."""
    board = {1: card((1, 1, 5, 1), owner="B", legendary=True)}
    _, spent = play(
        board, 4, card((6, 1, 1, 1), "ooze"), "resistance", resistance_spent={"B": True}
    )
    assert caps(spent) == {1: "basic"}
    _, saving = play(board, 4, card((6, 1, 1, 1), "ooze"), "resistance")
    assert caps(saving) == {}
    assert saving.state.resistance_spent == (False, True)


def test_ward_cancels_a_plus_capture_and_is_spent_in_the_state() -> None:
    """'Ward ... the card ignores the first capture against it [then the ward is
    spent]', whatever the cause: here Plus."""
    board = {1: card((1, 1, 4, 1), "celestial", owner="B"), 5: card((1, 1, 1, 4), owner="B")}
    _, placement = play(board, 4, card((3, 5, 1, 1), "ooze"), "plus", "cursed")
    assert caps(placement) == {5: "plus"}  # 3+5 = 4+4; the Celestial's 4 then holds P's 3
    assert placement.saved == (Saved(1, Cause.PLUS, Protection.WARD),)
    assert placement.state.hex_spent[1] is True


# --- Ember, Rot, Silence, Bind ---------------------------------------------------------


def test_ember_is_spent_by_taking_part_even_without_a_capture() -> None:
    """'Ember: +1 on all its sides throughout the first placement in which it takes
    part in a basic or Combo comparison, attacking or defending [then spent]'."""
    board = {1: card((1, 1, 5, 1), "fiend", owner="B"), 8: card((1, 1, 1, 1), "dragon", owner="B")}
    _, placement = play(board, 4, card((6, 1, 1, 1), "ooze"), "cursed")
    assert caps(placement) == {}  # 6 vs 5+1
    assert placement.state.hex_spent[1] is True
    assert placement.state.hex_spent[8] is False  # took part in nothing


def test_ember_of_a_card_taken_by_same_counts_when_it_attacks_in_combo() -> None:
    """Ember 'attacking or defending' in a Combo comparison: the Elemental taken by Same
    attacks the left card with 4+1 > 4."""
    board = {
        0: card((1, 4, 1, 1), owner="B"),
        1: card((1, 1, 5, 4), "elemental", owner="B"),
        5: card((1, 1, 1, 5), owner="A"),
    }
    _, placement = play(board, 4, card((5, 5, 1, 1), "ooze"), "same", "combo", "cursed")
    assert caps(placement) == {0: "combo", 1: "same"}
    assert placement.state.hex_spent[1] is True


def test_the_placed_cards_ember_is_whole_until_it_attacks() -> None:
    """The placed Dragon takes part in no comparison when Same takes every neighbour,
    so its Ember stays for a later placement."""
    board = {1: card((1, 1, 5, 1), owner="B"), 5: card((1, 1, 1, 5), owner="B")}
    _, placement = play(board, 4, card((5, 5, 1, 1), "dragon"), "same", "cursed")
    assert caps(placement) == {1: "same", 5: "same"}
    assert placement.state.hex_spent[4] is False


def test_a_placed_rot_card_marks_the_neighbours_still_enemy_after_its_placement() -> None:
    """Rot: 'it marks the cards that are enemy once the Rot card's own placement has
    resolved'; 'several Rots stack'. The captured neighbour is not marked; the one that
    held already had one pending and used it now, so it holds one new."""
    board = {
        1: card((1, 1, 3, 1), owner="B"),  # P's 5 > 3: captured
        3: card((1, 5, 1, 1), owner="B", rot=1),  # P's 4 vs 5-1: holds, its Rot used
        5: card((1, 1, 1, 9), owner="B", rot=2),  # P's 1 vs 9-2: holds, its Rots used
    }
    _, placement = play(board, 4, card((5, 1, 1, 4), "undead"), "cursed")
    assert caps(placement) == {1: "basic"}
    assert placement.state.rot[1] == 0
    assert placement.state.rot[3] == 1  # its Rot bit and cleared, then marked anew
    assert placement.state.rot[5] == 1


def test_rot_stays_pending_on_a_card_that_only_attacks() -> None:
    """Pending Rot counts on 'the next placement in which it defends': a card taken by
    Same that attacks in Combo keeps its Rot."""
    board = {
        0: card((1, 1, 1, 1), owner="B"),
        1: card((1, 1, 5, 5), owner="B", rot=2),
        5: card((1, 1, 1, 5), owner="A"),
    }
    _, placement = play(board, 4, card((5, 5, 1, 1), "ooze"), "same", "combo", "cursed")
    assert caps(placement) == {0: "combo", 1: "same"}
    assert placement.state.rot[1] == 2


def test_silence_needs_the_cursed_module() -> None:
    """'Silence (Aberration, Fey): captures made by this card's placement start no
    Combo' only under Cursed."""
    board = {0: card((1, 4, 1, 1), owner="B"), 1: card((1, 1, 5, 7), owner="B")}
    _, placement = play(board, 4, card((6, 1, 1, 1), "fey"), "combo")
    assert caps(placement) == {0: "combo", 1: "basic"}
    _, placement = play(board, 4, card((6, 1, 1, 1), "fey"), "combo", "cursed")
    assert caps(placement) == {1: "basic"}


def test_bind_reads_zero_only_under_cursed_and_never_in_same() -> None:
    """'Bind ... the card's side facing an attacker reads 0 when it defends'."""
    board = {1: card((1, 1, 9, 1), "beast", owner="B")}
    _, placement = play(board, 4, card((2, 1, 1, 1), "ooze"), "cursed")
    assert caps(placement) == {1: "basic"}
    assert placement.comparisons == (
        Comparison(4, 1, 2, 0, (), (Modifier(ModifierKind.BIND, -9),)),
    )
    _, placement = play(board, 4, card((2, 1, 1, 1), "ooze"))
    assert caps(placement) == {}
