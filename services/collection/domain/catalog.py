"""The catalog: every character a copy can be an instance of (RULES.md section 1).

The characters live in ``data/characters.json``, shipped with the package and loaded
once at start; they are our own inventions. A character's id is stable and never
reused, so copies, decks and events can name it forever.

**Stat budget.** Sides are balanced by rank: the four printed sides of a character
add up to a sum within its rank's band, and each side stays within its rank's range.
Only 5★ characters may print an A; the bands do not overlap, so a higher rank is always
stronger in total, and within a rank the shape of the sides (even or lopsided) is
what sets characters apart.

| stars | sum of sides | each side |
| ----- | ------------ | --------- |
| 1★    | 12..15       | 1..6      |
| 2★    | 16..19       | 1..7      |
| 3★    | 20..23       | 2..8      |
| 4★    | 24..27       | 2..9      |
| 5★    | 28..31       | 3..10     |

**Realm attributes** (catalog version 2, RULES.md section 17): every character also has
a creature type and an alignment (two words, ``"lawful evil"``), and is Legendary when
it is 5★; each of the thirteen types is used by at least four characters.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from services.rules import Element, Sides
from services.rules.realm import Alignment, CreatureType, parse_alignment

DATA_PACKAGE = "services.collection.data"
DATA_FILE = "characters.json"
CATALOG_VERSION = 2
"""The data file's ``version``: 2 added the Realm attributes (type and alignment)."""
MIN_PER_TYPE = 4
"""RULES.md 17: each creature type is used by at least this many characters."""


@dataclass(frozen=True, slots=True)
class Character:
    """A character: an id, a name, a star rank 1..5, an element or none, four sides."""

    id: str
    name: str
    stars: int
    element: Element | None
    sides: Sides
    kind: CreatureType
    alignment: Alignment

    @property
    def legendary(self) -> bool:
        """RULES.md 17: a character is Legendary when it is 5★."""
        return self.stars == 5


@dataclass(frozen=True, slots=True)
class StarBudget:
    """What the sides of a character of one rank may add up to, and each be."""

    min_sum: int
    max_sum: int
    min_side: int
    max_side: int

    def broken_by(self, character: Character) -> str | None:
        """Why ``character`` breaks this budget, or None if it keeps it."""
        total = sum(character.sides)
        if not self.min_sum <= total <= self.max_sum:
            return (
                f"{character.id} ({character.stars}★) has sides adding up to {total}, "
                f"outside {self.min_sum}..{self.max_sum}"
            )
        if not all(self.min_side <= side <= self.max_side for side in character.sides):
            return (
                f"{character.id} ({character.stars}★) has a side outside "
                f"{self.min_side}..{self.max_side}: {character.sides}"
            )
        return None


STAR_BUDGET: Mapping[int, StarBudget] = {
    1: StarBudget(12, 15, 1, 6),
    2: StarBudget(16, 19, 1, 7),
    3: StarBudget(20, 23, 2, 8),
    4: StarBudget(24, 27, 2, 9),
    5: StarBudget(28, 31, 3, 10),
}


class CatalogError(ValueError):
    """The catalog data is malformed or breaks a catalog rule."""


@dataclass(frozen=True, slots=True)
class CatalogFilter:
    """Every filter that is set must hold; empty means any."""

    stars: frozenset[int] = frozenset()
    elements: frozenset[Element | None] = frozenset()
    """``None`` in the set selects characters without an element."""
    name_contains: str = ""

    def matches(self, character: Character) -> bool:
        return (
            (not self.stars or character.stars in self.stars)
            and (not self.elements or character.element in self.elements)
            and self.name_contains.casefold() in character.name.casefold()
        )


class Catalog:
    """The characters, ordered by star rank then name, and looked up by id."""

    def __init__(self, characters: Iterable[Character], version: int = CATALOG_VERSION) -> None:
        self.version = version
        ordered = sorted(characters, key=lambda c: (c.stars, c.name.casefold(), c.id))
        self._by_id = {c.id: c for c in ordered}
        if len(self._by_id) != len(ordered):
            raise CatalogError("character ids must be unique")
        if len({c.name.casefold() for c in ordered}) != len(ordered):
            raise CatalogError("character names must be unique")
        self._ordered = tuple(ordered)
        self._by_stars = {
            stars: tuple(sorted((c for c in ordered if c.stars == stars), key=lambda c: c.id))
            for stars in STAR_BUDGET
        }

    def __len__(self) -> int:
        return len(self._ordered)

    def __iter__(self) -> Iterator[Character]:
        return iter(self._ordered)

    def __contains__(self, character_id: object) -> bool:
        return character_id in self._by_id

    def get(self, character_id: str) -> Character | None:
        return self._by_id.get(character_id)

    def of_rank(self, stars: int) -> tuple[Character, ...]:
        """The characters of one rank ordered by id: the order booster draws index into."""
        return self._by_stars.get(stars, ())

    def unknown(self, character_ids: Collection[str]) -> list[str]:
        return [i for i in character_ids if i not in self._by_id]

    def select(self, where: CatalogFilter) -> list[Character]:
        return [c for c in self._ordered if where.matches(c)]


def _character(row: Mapping[str, Any]) -> Character:
    try:
        sides = tuple(int(s) for s in row["sides"])
        if len(sides) != 4:
            raise CatalogError(f"{row['id']}: a character has four sides")
        element = Element(row["element"]) if row.get("element") else None
        character = Character(
            id=str(row["id"]),
            name=str(row["name"]),
            stars=int(row["stars"]),
            element=element,
            sides=(sides[0], sides[1], sides[2], sides[3]),
            kind=CreatureType(row["type"]),
            alignment=parse_alignment(str(row["alignment"])),
        )
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, CatalogError):
            raise
        raise CatalogError(f"malformed character {row!r}: {error}") from None
    budget = STAR_BUDGET.get(character.stars)
    if budget is None:
        raise CatalogError(f"{character.id}: stars run from 1 to 5")
    broken = budget.broken_by(character)
    if broken is not None:
        raise CatalogError(broken)
    return character


def parse_catalog(text: str) -> Catalog:
    """A catalog from the JSON text of a data file; every character keeps its budget,
    and every creature type is used by at least :data:`MIN_PER_TYPE` characters."""
    document = json.loads(text)
    version = document.get("version")
    if version != CATALOG_VERSION:
        raise CatalogError(f"catalog data version {version!r}; this code reads {CATALOG_VERSION}")
    catalog = Catalog((_character(row) for row in document["characters"]), version)
    rare = [t.value for t in CreatureType if sum(c.kind is t for c in catalog) < MIN_PER_TYPE]
    if rare:
        raise CatalogError(f"creature types used by fewer than {MIN_PER_TYPE}: {rare}")
    return catalog


def load_catalog() -> Catalog:
    """The catalog shipped with the service."""
    text = resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text(encoding="utf-8")
    return parse_catalog(text)


@cache
def shipped_catalog() -> Catalog:
    """The shipped catalog, loaded once: events written before catalog version 2 carry
    characters without Realm attributes, and read back they take these."""
    return load_catalog()
