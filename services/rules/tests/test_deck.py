"""The deck rules of RULES.md section 2, each failure named with its cards."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from services.rules import DeckEntry, DeckRule, validate_deck


def deck(*stars: int, prefix: str = "") -> list[DeckEntry]:
    return [DeckEntry(f"{prefix}copy{i}", f"char{i}", s) for i, s in enumerate(stars)]


def rules_broken(entries: list[DeckEntry], **kw: object) -> set[DeckRule]:
    return {v.rule for v in validate_deck(entries, **kw)}  # type: ignore[arg-type]


@pytest.mark.parametrize("mix", list(combinations_with_replacement(range(1, 6), 5)))
def test_star_limits_agree_with_the_rulebook_wording_for_every_star_mix(
    mix: tuple[int, ...],
) -> None:
    """At most one 5★ and at most one 4★, or two 4★ and no 5★ — brute force over all mixes."""
    fives, fours = mix.count(5), mix.count(4)
    legal = (fives <= 1 and fours <= 1) or (fours == 2 and fives == 0)
    assert (validate_deck(deck(*mix)) == ()) == legal


def test_a_deck_has_five_eight_or_thirteen_cards() -> None:
    assert rules_broken(deck(1, 1, 1, 1)) == {DeckRule.SIZE}
    assert rules_broken(deck(1, 1, 1, 1, 1, 1)) == {DeckRule.SIZE}
    assert rules_broken(deck(*[1] * 8)) == set()
    assert rules_broken(deck(*[1] * 13)) == set()
    assert rules_broken(deck(*[1] * 9)) == {DeckRule.SIZE}


@pytest.mark.parametrize(
    ("size", "fives", "high"), [(5, 1, 2), (8, 1, 3), (13, 2, 5)], ids=["3x3", "4x4", "5x5"]
)
def test_each_hand_size_has_the_star_limits_of_rules_11(size: int, fives: int, high: int) -> None:
    """RULES.md 11's Decision table: at most ``fives`` 5★ and ``high`` 4★-or-5★."""
    for n5 in range(fives + 2):
        for n4 in range(high + 2):
            if n5 + n4 > size:
                continue
            stars = [5] * n5 + [4] * n4 + [1] * (size - n5 - n4)
            legal = n5 <= fives and n5 + n4 <= high
            assert (validate_deck(deck(*stars)) == ()) == legal, (n5, n4)


def test_a_table_names_the_deck_it_needs() -> None:
    """A deck for a given board must have that board's hand size, said plainly."""
    found = validate_deck(deck(1, 1, 1, 1, 1), board=4)
    assert [v.rule for v in found] == [DeckRule.SIZE]
    assert found[0].message == "a 4x4 table needs a deck of 8; this one holds 5"
    assert validate_deck(deck(*[1] * 13), board=5) == ()
    assert rules_broken(deck(*[1] * 13), board=3) == {DeckRule.SIZE}


def test_a_deck_for_a_table_is_held_to_the_star_limits_of_that_tables_hand() -> None:
    """Found from outside: ValidateDeck of seven cards with three 4★ for a 4x4 table
    (hand_size 8) said both that the table needs eight and that 0 5★ and 3 4★ break
    'a deck may hold one 5★ and one 4★, or two 4★ and no 5★': the limits of five, though
    eight may hold three 4★ (RULES.md 11). The second was not a rule the deck breaks."""
    assert rules_broken(deck(4, 4, 4, 1, 1, 1, 1), board=4) == {DeckRule.SIZE}
    assert rules_broken(deck(5, 4, 4, 1, 1), board=4) == {DeckRule.SIZE}
    assert rules_broken(deck(5, 5, 4, 4, 4, *[1] * 7), board=5) == {DeckRule.SIZE}
    found = validate_deck(deck(4, 4, 4, 4, 1, 1, 1), board=4)
    assert [v.rule for v in found] == [DeckRule.SIZE, DeckRule.FOUR_AND_FIVE_STAR_LIMIT]
    assert "a deck of eight may hold at most 1 5★ and 3 4★ or 5★ cards" in found[1].message
    assert rules_broken(deck(4, 4, 4, *[1] * 5), board=3) == {
        DeckRule.SIZE,
        DeckRule.FOUR_AND_FIVE_STAR_LIMIT,
    }


def test_a_deck_of_eight_names_its_own_limits() -> None:
    found = validate_deck(deck(5, 5, 1, 1, 1, 1, 1, 1))
    assert [v.rule for v in found] == [DeckRule.FIVE_STAR_LIMIT]
    assert "a deck of eight may hold at most one" in found[0].message


def test_five_different_characters_and_each_copy_once() -> None:
    entries = deck(1, 2, 3, 1, 1)
    twin = [*entries[:4], DeckEntry("copyX", "char0", 1)]
    found = validate_deck(twin)
    assert [v.rule for v in found] == [DeckRule.DISTINCT_CHARACTERS]
    assert set(found[0].copy_ids) == {"copy0", "copyX"}
    same_copy = [*entries[:4], entries[0]]
    # One copy over and over is one fact, said once (found from outside: three ways).
    [once] = validate_deck(same_copy)
    assert once.rule is DeckRule.DISTINCT_COPIES and "appears 2 times" in once.message
    both = [*entries[:3], entries[0], DeckEntry("copyX", "char0", 1)]
    assert [v.rule for v in validate_deck(both)] == [
        DeckRule.DISTINCT_COPIES,
        DeckRule.DISTINCT_CHARACTERS,
    ]
    assert validate_deck(both)[1].message.startswith("copy copy0, copy copyX are the same")


def test_star_violations_name_the_cards() -> None:
    found = validate_deck(deck(5, 5, 1, 1, 1))
    assert [v.rule for v in found] == [DeckRule.FIVE_STAR_LIMIT]
    assert found[0].copy_ids == ("copy0", "copy1")
    found = validate_deck(deck(5, 4, 4, 1, 1))
    assert [v.rule for v in found] == [DeckRule.FOUR_AND_FIVE_STAR_LIMIT]
    assert set(found[0].copy_ids) == {"copy0", "copy1", "copy2"}


def test_every_copy_must_be_owned_and_unlocked() -> None:
    entries = deck(1, 2, 3, 4, 5)
    owned = {e.copy_id for e in entries} - {"copy3"}
    found = validate_deck(entries, owned=owned, locked={"copy1"})
    assert {v.rule: v.copy_ids for v in found} == {
        DeckRule.NOT_OWNED: ("copy3",),
        DeckRule.LOCKED: ("copy1",),
    }


def test_a_deck_of_no_legal_size_is_not_told_a_count_it_does_not_have() -> None:
    """Two copies of one character: the size is wrong and the characters repeat; the
    second message must not say "five different" of a deck that may hold 8 or 13."""
    found = validate_deck([DeckEntry("a", "char0", 1), DeckEntry("b", "char0", 1)])
    assert [v.rule for v in found] == [DeckRule.SIZE, DeckRule.DISTINCT_CHARACTERS]
    assert "five" not in found[1].message
    assert found[1].message.endswith("a deck needs all different characters")
