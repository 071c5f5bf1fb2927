"""A player's wealth decided by pure functions: starter, decks, Random, currency, locks."""

from __future__ import annotations

from itertools import combinations
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.collection.domain import decks, seeds, wealth
from services.collection.domain.events import (
    CopySource,
    CurrencyReason,
    Holder,
    HolderKind,
    OwnedCopy,
)
from services.collection.tests.builders import CATALOG, T0, copy, legal_copies, of_rank
from services.platform.errors import InvalidArgument
from services.rules import DeckEntry, DeckRule, validate_deck
from services.rules.deck import within_star_limits

MATCH = Holder(HolderKind.MATCH, "m1")


@settings(max_examples=200)
@given(st.integers(0, 2**32))
def test_a_starter_collection_always_allows_a_legal_deck(seed: int) -> None:
    rng = Random(seed)
    characters = wealth.starter_characters(CATALOG, rng)
    holos = [wealth.draw_holo(c, rng) for c in characters]
    granted = wealth.grant("p1", "g1", characters, holos, CopySource.STARTER, T0)
    copies = [g.copy for g in granted]
    assert len({c.copy_id for c in copies}) == len(copies) == len(wealth.STARTER_RANKS)
    for deck in combinations(copies, 5):  # any five of them, in fact
        entries = [DeckEntry(c.copy_id, c.character.id, c.character.stars) for c in deck]
        assert validate_deck(entries, owned={c.copy_id for c in copies}) == ()


def test_grants_derive_copy_ids_from_the_grant_so_a_retry_makes_the_same_ones() -> None:
    characters = [of_rank(1), of_rank(2)]
    holos = [(False, None), (False, None)]
    first = wealth.grant("p1", "g1", characters, holos, CopySource.GRANT, T0)
    again = wealth.grant("p1", "g1", characters, holos, CopySource.GRANT, T0)
    assert [g.copy.copy_id for g in first] == [g.copy.copy_id for g in again]


def test_spending_more_than_the_balance_is_refused_with_the_rule() -> None:
    with pytest.raises(wealth.InsufficientFunds, match="never goes negative"):
        wealth.spend("p1", 99, 100, CurrencyReason.BOOSTER_PURCHASE, "d1")
    assert wealth.spend("p1", 100, 100, CurrencyReason.BOOSTER_PURCHASE, "d1").balance_after == 0
    with pytest.raises(InvalidArgument):
        wealth.spend("p1", 100, 0, CurrencyReason.BOOSTER_PURCHASE, "d1")


def _save(copy_ids: list[str], owned: list[OwnedCopy], locked: tuple[str, ...] = ()) -> None:
    held = dict.fromkeys(locked, MATCH)
    decks.save_deck("p1", "d1", "Main", copy_ids, {c.copy_id: c for c in owned}, held, None, 0)


def test_a_deck_breaking_a_rule_is_refused_naming_the_rule_and_the_cards() -> None:
    five = legal_copies()
    ids = [c.copy_id for c in five]
    _save(ids, five)  # legal
    with pytest.raises(decks.DeckBroken) as repeated:
        _save([*ids[:4], ids[0]], five)
    assert {v.rule for v in repeated.value.violations} >= {DeckRule.DISTINCT_COPIES}
    twin = copy("twin", five[0].character)
    with pytest.raises(decks.DeckBroken, match="are the same character") as same:
        _save([*ids[:4], "twin"], [*five, twin])
    assert set(same.value.violations[0].copy_ids) == {"c0", "twin"}
    stars = [copy("s5a", of_rank(5, 0)), copy("s5b", of_rank(5, 1))]
    with pytest.raises(decks.DeckBroken, match="a deck may hold at most one") as over:
        _save([*ids[:3], "s5a", "s5b"], [*five, *stars])
    assert {"s5a", "s5b"} <= set(over.value.violations[0].copy_ids)
    with pytest.raises(decks.DeckUnavailable, match="copy c4 is not in your collection"):
        _save(ids, five[:4])
    with pytest.raises(decks.DeckUnavailable, match=r"\(c2\) is locked"):
        _save(ids, five, locked=("c2",))


def test_replacing_a_deck_that_holds_a_locked_copy_is_refused() -> None:
    five = legal_copies()
    others = legal_copies(prefix="o")
    with pytest.raises(decks.CopiesLockedError, match="deck change"):
        decks.save_deck(
            "p1",
            "d1",
            "New",
            [c.copy_id for c in others],
            {c.copy_id: c for c in others},
            {"c1": MATCH},
            [c.copy_id for c in five],
            1,
        )


def _has_legal_deck(copies: list[OwnedCopy]) -> bool:
    for deck in combinations(copies, 5):
        stars = [c.character.stars for c in deck]
        if len({c.character.id for c in deck}) == 5 and within_star_limits(
            stars.count(5), stars.count(4)
        ):
            return True
    return False


@settings(max_examples=150)
@given(st.lists(st.tuples(st.integers(1, 5), st.integers(0, 3)), min_size=0, max_size=9))
def test_random_draws_a_legal_deck_exactly_when_one_exists(picks: list[tuple[int, int]]) -> None:
    copies = [copy(f"x{i}", of_rank(s, n)) for i, (s, n) in enumerate(picks)]
    if not _has_legal_deck(copies):
        with pytest.raises(decks.NoRandomDeck):
            decks.draw_random_deck(copies, Random(1))
        return
    for seed in range(5):
        deck = decks.draw_random_deck(copies, Random(seed))
        entries = [DeckEntry(c.copy_id, c.character.id, c.character.stars) for c in deck]
        assert validate_deck(entries) == ()


def test_locks_are_all_or_nothing_and_name_the_holder() -> None:
    owned = {"a", "b", "c"}
    locked = decks.lock("p1", ["a", "b"], owned, {}, MATCH)
    assert locked is not None and locked.copy_ids == ("a", "b")
    assert decks.lock("p1", ["a", "b"], owned, {"a": MATCH, "b": MATCH}, MATCH) is None
    trade = Holder(HolderKind.TRADE, "t9")
    with pytest.raises(decks.CopiesLockedError, match="trade t9"):
        decks.lock("p1", ["a", "c"], owned, {"a": trade}, MATCH)
    with pytest.raises(decks.UnknownCopies, match="zz"):
        decks.lock("p1", ["a", "zz"], owned, {}, MATCH)


def test_client_seeds_are_1_to_64_printable_ascii_characters() -> None:
    assert seeds.valid_client_seed("lucky-7") == "lucky-7"
    for bad in ("", "x" * 65, "tab\there", "ünïcode"):
        with pytest.raises(InvalidArgument):
            seeds.valid_client_seed(bad)
