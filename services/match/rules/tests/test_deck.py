"""The deck rules of RULES.md section 2, each failure named with its cards."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from services.match.rules import DeckEntry, DeckRule, validate_deck


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


def test_a_deck_has_exactly_five_cards() -> None:
    assert rules_broken(deck(1, 1, 1, 1)) == {DeckRule.SIZE}
    assert rules_broken(deck(1, 1, 1, 1, 1, 1)) == {DeckRule.SIZE}


def test_five_different_characters_and_each_copy_once() -> None:
    entries = deck(1, 2, 3, 1, 1)
    twin = [*entries[:4], DeckEntry("copyX", "char0", 1)]
    found = validate_deck(twin)
    assert [v.rule for v in found] == [DeckRule.DISTINCT_CHARACTERS]
    assert set(found[0].copy_ids) == {"copy0", "copyX"}
    same_copy = [*entries[:4], entries[0]]
    assert DeckRule.DISTINCT_COPIES in rules_broken(same_copy)


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
