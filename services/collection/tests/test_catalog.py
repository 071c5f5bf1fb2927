"""The catalog: original characters, sensible ranks and elements, every side in budget."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from services.collection.domain.catalog import (
    STAR_BUDGET,
    CatalogError,
    CatalogFilter,
    Character,
    load_catalog,
    parse_catalog,
)
from services.match.rules import Element

CATALOG = load_catalog()


def test_the_catalog_holds_at_least_110_characters_with_unique_ids_and_names() -> None:
    assert len(CATALOG) >= 110
    assert len({c.id for c in CATALOG}) == len(CATALOG)
    assert len({c.name.casefold() for c in CATALOG}) == len(CATALOG)


def test_every_rank_has_characters_and_higher_ranks_are_rarer() -> None:
    counts = Counter(c.stars for c in CATALOG)
    assert sorted(counts) == [1, 2, 3, 4, 5]
    assert [counts[s] for s in range(1, 6)] == sorted(counts.values(), reverse=True)
    assert counts[5] >= 8  # enough 5★ for boosters to feel varied


def test_elements_cover_all_eight_and_none() -> None:
    found = Counter(c.element for c in CATALOG)
    assert set(found) == {*Element, None}
    assert all(n >= 5 for n in found.values())


@pytest.mark.parametrize("character", list(CATALOG), ids=lambda c: c.id)
def test_every_character_keeps_the_stat_budget_of_its_rank(character: Character) -> None:
    assert STAR_BUDGET[character.stars].broken_by(character) is None


def test_rank_budgets_do_not_overlap_so_a_higher_rank_is_stronger_in_total() -> None:
    for low, high in zip(range(1, 5), range(2, 6), strict=True):
        assert STAR_BUDGET[low].max_sum < STAR_BUDGET[high].min_sum
    assert all(STAR_BUDGET[s].max_side < 10 for s in range(1, 5))  # only 5★ print an A


def test_a_data_file_with_a_character_outside_its_budget_is_refused() -> None:
    row = {"id": "chr-x", "name": "Overcharged Newt", "stars": 1, "element": None}
    with pytest.raises(CatalogError, match="adding up to 40"):
        parse_catalog(json.dumps({"characters": [{**row, "sides": [10, 10, 10, 10]}]}))


def test_filters_select_by_rank_element_none_and_name() -> None:
    fives = CATALOG.select(CatalogFilter(stars=frozenset({5})))
    assert fives and all(c.stars == 5 for c in fives)
    plain = CATALOG.select(CatalogFilter(elements=frozenset({None})))
    assert plain and all(c.element is None for c in plain)
    fire_low = CATALOG.select(CatalogFilter(frozenset({1, 2}), frozenset({Element.FIRE})))
    assert fire_low and all(c.element is Element.FIRE and c.stars <= 2 for c in fire_low)
    named = CATALOG.select(CatalogFilter(name_contains="NEWT"))
    assert [c.name for c in named] == ["Mossback Newt"]
    ordered = CATALOG.select(CatalogFilter())
    assert ordered == sorted(ordered, key=lambda c: (c.stars, c.name.casefold(), c.id))
