"""Realm cards: creature types, alignments, Legendary, and the hex each type carries
(RULES.md section 17, "Card attributes" and "Cursed")."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from services.rules.cards import Card


class CreatureType(StrEnum):
    """The thirteen creature types; every catalog character has one."""

    DRAGON = "dragon"
    GIANT = "giant"
    HUMANOID = "humanoid"
    UNDEAD = "undead"
    BEAST = "beast"
    FIEND = "fiend"
    CELESTIAL = "celestial"
    ABERRATION = "aberration"
    CONSTRUCT = "construct"
    ELEMENTAL = "elemental"
    OOZE = "ooze"
    PLANT = "plant"
    FEY = "fey"


class Law(StrEnum):
    LAWFUL = "lawful"
    NEUTRAL = "neutral"
    CHAOTIC = "chaotic"


class Moral(StrEnum):
    GOOD = "good"
    NEUTRAL = "neutral"
    EVIL = "evil"


class Alignment(NamedTuple):
    """Two words, as the rulebook writes them: ``lawful evil``, ``neutral neutral``."""

    law: Law
    moral: Moral


NEUTRAL = Alignment(Law.NEUTRAL, Moral.NEUTRAL)


def parse_alignment(text: str) -> Alignment:
    """``"lawful evil"`` -> ``Alignment(LAWFUL, EVIL)`` (the catalog's spelling);
    raises ValueError otherwise."""
    words = text.split()
    if len(words) != 2:
        raise ValueError(f"an alignment is two words (law, then moral), not {text!r}")
    return Alignment(Law(words[0]), Moral(words[1]))


def alignment_words(value: Alignment | None) -> str:
    """``"lawful evil"``; "" for none."""
    return "" if value is None else f"{value.law.value} {value.moral.value}"


class Hex(StrEnum):
    """The curse a card carries under the Cursed module, decided by its creature type."""

    WARD = "ward"
    EMBER = "ember"
    ROT = "rot"
    SILENCE = "silence"
    BIND = "bind"


HEX_OF_TYPE: dict[CreatureType, Hex] = {
    CreatureType.CONSTRUCT: Hex.WARD,
    CreatureType.CELESTIAL: Hex.WARD,
    CreatureType.DRAGON: Hex.EMBER,
    CreatureType.ELEMENTAL: Hex.EMBER,
    CreatureType.FIEND: Hex.EMBER,
    CreatureType.UNDEAD: Hex.ROT,
    CreatureType.OOZE: Hex.ROT,
    CreatureType.PLANT: Hex.ROT,
    CreatureType.ABERRATION: Hex.SILENCE,
    CreatureType.FEY: Hex.SILENCE,
    CreatureType.GIANT: Hex.BIND,
    CreatureType.HUMANOID: Hex.BIND,
    CreatureType.BEAST: Hex.BIND,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RealmCard(Card):
    """A card at a Realm table: a standard :class:`Card` (printed sides, holo included;
    the element plays no part) with its creature type, alignment and Legendary mark.
    Being a ``Card``, it stands on the standard :class:`~services.rules.Board`."""

    kind: CreatureType
    alignment: Alignment = NEUTRAL
    legendary: bool = False
    hex: Hex = field(init=False, repr=False, compare=False)
    """The hex of its type (looked up once: the resolver reads it on every comparison)."""

    def __post_init__(self) -> None:
        Card.__post_init__(self)
        object.__setattr__(self, "hex", HEX_OF_TYPE[self.kind])
