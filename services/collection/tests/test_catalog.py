"""The catalog: original characters, sensible ranks and elements, every side in budget."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from triad.v1 import common_pb2 as pb

from services.collection import mapping
from services.collection.domain.catalog import (
    STAR_BUDGET,
    CatalogError,
    CatalogFilter,
    Character,
    load_catalog,
    parse_catalog,
)
from services.rules import Element
from services.rules.realm import CreatureType, Law, Moral

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
    with pytest.raises(CatalogError, match="adding up to 40"):
        parse_catalog(_one_row(sides=[10, 10, 10, 10]))


def test_every_character_has_a_creature_type_an_alignment_and_5_stars_are_legendary() -> None:
    kinds = Counter(c.kind for c in CATALOG)
    assert set(kinds) == set(CreatureType)
    assert min(kinds.values()) >= 4
    assert {c.legendary for c in CATALOG if c.stars == 5} == {True}
    assert {c.legendary for c in CATALOG if c.stars < 5} == {False}
    assert {c.alignment.law for c in CATALOG} == set(Law)
    assert {c.alignment.moral for c in CATALOG} == set(Moral)
    assert CATALOG.version == 2


def _one_row(**changes: object) -> str:
    row = {"id": "chr-x", "name": "Newt", "stars": 1, "element": None, "sides": [3, 3, 3, 3]}
    row |= {"type": "beast", "alignment": "lawful good"} | changes
    return json.dumps({"version": 2, "characters": [row]})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"type": "kraken"}, "kraken"),
        ({"alignment": "lawful"}, "two words"),
        ({"alignment": "good lawful"}, "good"),
    ],
)
def test_a_character_with_a_bad_type_or_alignment_is_refused(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(CatalogError, match=message):
        parse_catalog(_one_row(**changes))


def test_a_data_file_of_another_version_or_with_a_type_used_by_under_four_is_refused() -> None:
    with pytest.raises(CatalogError, match="version 1"):
        parse_catalog(_one_row().replace('"version": 2', '"version": 1'))
    with pytest.raises(CatalogError, match="fewer than 4"):
        parse_catalog(_one_row())


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


def test_a_character_round_trips_its_realm_attributes_and_an_old_message_takes_the_catalogs() -> (
    None
):
    legend = next(c for c in CATALOG if c.stars == 5)
    message = mapping.character(legend)
    assert message.legendary and message.creature_type != 0 and message.alignment.law != 0
    assert mapping.character_back(message) == legend
    message.ClearField("alignment")
    message.creature_type = pb.CREATURE_TYPE_UNSPECIFIED  # before catalog version 2
    assert mapping.character_back(message) == legend
