"""Draft boosters and the deadline's completion (RULES.md 8 Decisions)."""

from __future__ import annotations

from itertools import combinations
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.collection.domain.catalog import Character
from services.collection.domain.draft import (
    HOLO_CHANCE,
    SLOT_MIN_STARS,
    complete_at_deadline,
    draw_booster,
    draw_pool,
    legal_completions,
    slot_odds,
)
from services.rules import DeckEntry, validate_deck
from services.rules.realm import Alignment, CreatureType, Law, Moral

BEAST, LN = CreatureType.BEAST, Alignment(Law.LAWFUL, Moral.NEUTRAL)

CATALOG = [
    Character(
        f"ch{stars}-{i}", f"Test {stars}-{i}", stars, None, (stars, stars, stars, 10), BEAST, LN
    )
    for stars in range(1, 6)
    for i in range(6)
]


def test_a_booster_holds_three_any_one_3star_plus_one_4star_plus() -> None:
    rng = Random(2)
    for booster in range(2000):
        cards = draw_booster(CATALOG, booster, rng)
        assert len(cards) == 5
        assert all(c.character.stars >= m for c, m in zip(cards, SLOT_MIN_STARS, strict=True))
        assert len({c.id for c in cards}) == 5


def test_the_published_odds_of_each_slot_are_those_the_boosters_are_drawn_with() -> None:
    """GetBoosterOdds' draft_slots (found from outside: the Draft's odds were nowhere):
    each slot's ranks and their shares, checked against 6,000 drawn boosters. A catalog
    with as many characters of each rank would hide a wrong weight: these differ."""
    uneven = [c for c in CATALOG if int(c.id.split("-")[1]) < c.stars]  # 1, 2, ... 5 a rank
    published = slot_odds(uneven)
    assert [min(s for s, _ in slot) for slot in published] == list(SLOT_MIN_STARS)
    rng = Random(6)
    drawn = [draw_booster(uneven, b, rng) for b in range(6000)]
    for index, slot in enumerate(published):
        total = sum(count for _, count in slot)
        for stars, count in slot:
            seen = sum(b[index].character.stars == stars for b in drawn) / len(drawn)
            assert abs(seen - count / total) < 0.025, (index, stars, seen, count / total)


def test_each_card_is_holographic_with_probability_five_percent() -> None:
    rng = Random(4)
    cards = [c for b in range(4000) for c in draw_booster(CATALOG, b, rng)]
    rate = sum(c.holo for c in cards) / len(cards)
    assert abs(rate - HOLO_CHANCE) < 0.006
    for c in cards:
        if c.holo:
            assert c.holo_side is not None and c.character.sides[c.holo_side] < 10
            assert sum(c.sides) == sum(c.character.sides) + 1


def test_a_draft_pool_always_holds_a_legal_deck() -> None:
    """Decision: boosters are redrawn until a legal deck exists among the fifteen."""
    # Four low characters among six 5★: most pools hold no legal deck.
    scarce = [*CATALOG[0:2], *CATALOG[6:8], *(c for c in CATALOG if c.stars == 5)]
    rng = Random(9)
    for _ in range(20):
        pool = draw_pool(scarce, rng)
        assert legal_completions((), pool)


@settings(max_examples=30)
@given(st.integers(0, 2**32), st.integers(0, 4))
def test_the_deadline_completes_any_completable_picks_with_a_legal_deck(
    seed: int, n_picked: int
) -> None:
    rng = Random(seed)
    pool = draw_pool(CATALOG, rng)
    deck = rng.choice(legal_completions((), pool))
    picked = deck[:n_picked]
    completed = (*picked, *complete_at_deadline(picked, pool, rng))
    assert validate_deck([c.entry() for c in completed]) == ()
    assert completed[:n_picked] == picked


def test_completions_agree_with_brute_force_over_the_deck_rules() -> None:
    rng = Random(12)
    pool = draw_pool(CATALOG, rng)
    entries = [DeckEntry(c.id, c.character.id, c.character.stars) for c in pool]
    brute = 0
    for combo in combinations(entries, 5):
        chars = {e.character_id for e in combo}
        fives = sum(e.stars == 5 for e in combo)
        fours = sum(e.stars == 4 for e in combo)
        stars_ok = (fives <= 1 and fours <= 1) or (fours == 2 and fives == 0)
        brute += len(chars) == 5 and stars_ok
    assert len(legal_completions((), pool)) == brute
