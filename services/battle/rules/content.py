"""The content of Skirmish (BATTLE.md 1): characters, skill cards, Specials and summons,
read from versioned data and checked against the closed vocabulary.

A roster file is one JSON object::

    {"content_version": "skirmish-1",
     "summons": [{"id": "sprite", "name": "...", "hp": 20, "action": CARD}],
     "characters": [{"id": "ember", "name": "...", "hp": 80, "spd": 12,
                     "prefers": "front" | "back", "cards": [CARD x 4],
                     "special": CARD + {"unlock": UNLOCK}}]}

    CARD   = {"id": "ember.spark", "name": "...", "cost": 0..6, "ct": 0..3,
              "group": "swift" | "normal" | "slow", "range": RANGE,
              "flags": ["ignore_formation"], "effects": [EFFECT, ...]}
    EFFECT = {"damage": N} | {"heal": N} | {"shield": N} | {"burn": N, "turns": T}
           | {"cover": T} | {"energy": N} | {"energy_steal": N}
           | {"spd": +-N, "turns": T} | {"summon": "sprite"}
    UNLOCK = {"hp_below": P} | {"turn_at_least": N} | {"ally_defeated": true}
           | {"damage_dealt_at_least": N}

Decisions where BATTLE.md is silent:

- A card's unit effects (damage, heal, shield, burn, cover, spd) apply to every unit its
  range reaches; ``energy``, ``energy_steal`` and ``summon`` act once per card.
- A card with ``summon`` has range ``self``: its target names the square of its own field
  the unit goes to (a reservation if occupied); its other effects apply to the user.
- A summon's action card costs nothing, has CT 0 and never summons.
- Card ids are unique across the roster (characters' cards, Specials and summon actions).

Versions (BATTLE.md 1: "versioned; a battle records the content version it used"; 6: "a
battle replays to the same state after a code change"): ``data/roster.json`` is the
current content, what new battles use; every earlier version a battle in progress may
still need stays beside it as ``data/rosters/<content_version>.json``, unchanged.
:func:`load_rosters` reads them all into :class:`Rosters` (``current``, and
``for_version`` for a battle in progress), checking each file, that each earlier file
holds the version it is named for, and that no version is loaded twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from services.battle.rules.reading import Reader

ROSTER_PATH = Path(__file__).resolve().parent.parent / "data" / "roster.json"
ROSTERS_DIR = ROSTER_PATH.parent / "rosters"
"""The earlier content versions, one ``<content_version>.json`` each."""


class RosterError(ValueError):
    """The roster data breaks the vocabulary; the message names the place and the rule."""


class ContentNotLoaded(LookupError):
    """A battle's content version is none of the rosters loaded (not deployed)."""


_read = Reader(RosterError)
_obj, _list, _str, _int = _read.obj, _read.items, _read.text, _read.whole


class Group(StrEnum):
    SWIFT = "swift"
    NORMAL = "normal"
    SLOW = "slow"


GROUP_RANK = {Group.SWIFT: 0, Group.NORMAL: 1, Group.SLOW: 2}


class Range(StrEnum):
    SINGLE = "single"
    ROW = "row"
    COLUMN = "column"
    CROSS = "cross"
    ALL = "all"
    SELF = "self"
    ALLY = "ally"
    ALLIES = "allies"


class Kind(StrEnum):
    DAMAGE = "damage"
    HEAL = "heal"
    SHIELD = "shield"
    BURN = "burn"
    COVER = "cover"
    ENERGY = "energy"
    ENERGY_STEAL = "energy_steal"
    SPD = "spd"
    SUMMON = "summon"


TIMED = frozenset({Kind.BURN, Kind.SPD})
"""Effects with a ``turns`` field besides their amount."""


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect of the vocabulary: ``amount`` is N (T for cover), ``turns`` T of burn
    and spd, ``unit`` the summon's id."""

    kind: Kind
    amount: int = 0
    turns: int = 0
    unit: str = ""


class Unlock(StrEnum):
    HP_BELOW = "hp_below"
    TURN_AT_LEAST = "turn_at_least"
    ALLY_DEFEATED = "ally_defeated"
    DAMAGE_DEALT_AT_LEAST = "damage_dealt_at_least"


@dataclass(frozen=True, slots=True)
class Card:
    """A skill card, a Special (with ``unlock``) or a summon's action."""

    id: str
    name: str
    owner: str
    cost: int
    ct: int
    group: Group
    range: Range
    ignore_formation: bool
    effects: tuple[Effect, ...]
    unlock: Unlock | None = None
    unlock_value: int = 0
    summons: str = ""
    """The summon's id, or "" when the card summons nothing (read on the hot path)."""


@dataclass(frozen=True, slots=True)
class Character:
    id: str
    name: str
    hp: int
    spd: int
    prefers_front: bool
    cards: tuple[str, ...]
    special: str


@dataclass(frozen=True, slots=True)
class Summon:
    id: str
    name: str
    hp: int
    action: str


@dataclass(frozen=True, slots=True)
class Roster:
    version: str
    characters: dict[str, Character]
    summons: dict[str, Summon]
    cards: dict[str, Card]


@dataclass(frozen=True, slots=True)
class Rosters:
    """Every content version a battle may still need: ``current`` for new battles, and by
    version the roster each battle in progress started under."""

    current: Roster
    by_version: dict[str, Roster]

    def for_version(self, version: str) -> Roster:
        found = self.by_version.get(version)
        if found is None:
            raise ContentNotLoaded(
                f"content {version!r} is not deployed (loaded: {sorted(self.by_version)})"
            )
        return found

    def __contains__(self, version: object) -> bool:
        return version in self.by_version


def rosters_of(current: Roster, *earlier: Roster) -> Rosters:
    """The rosters by version; a version loaded twice raises :class:`RosterError`."""
    by_version: dict[str, Roster] = {}
    for roster in (current, *earlier):
        if roster.version in by_version:
            raise RosterError(f"content version {roster.version!r} is loaded twice")
        by_version[roster.version] = roster
    return Rosters(current, by_version)


def load_rosters(current: Path = ROSTER_PATH, earlier: Path = ROSTERS_DIR) -> Rosters:
    """Read and check the current roster and every ``<content_version>.json`` in
    ``earlier`` (no such folder: no earlier version); a bad file raises
    :class:`RosterError`."""
    found = []
    for path in sorted(earlier.glob("*.json")) if earlier.is_dir() else []:
        roster = load_roster(path)
        if roster.version != path.stem:
            raise RosterError(
                f"{path}: content_version {roster.version!r}, but the file is named for "
                f"{path.stem!r} (an earlier roster is <content_version>.json)"
            )
        found.append(roster)
    return rosters_of(load_roster(current), *found)


def load_roster(path: Path = ROSTER_PATH) -> Roster:
    """Read and check a roster file; a bad file raises :class:`RosterError`."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RosterError(f"{path}: cannot read the roster: {exc}") from exc
    return parse_roster(raw, str(path))


def parse_roster(raw: Any, where: str = "roster") -> Roster:
    """Build a :class:`Roster` from parsed JSON, checking every field."""
    obj = _obj(raw, where)
    version = obj.get("content_version")
    if not isinstance(version, str) or not version:
        raise RosterError(f"{where}: content_version must be a non-empty string")
    cards: dict[str, Card] = {}
    summons: dict[str, Summon] = {}
    for i, s in enumerate(_list(obj.get("summons", []), f"{where}.summons")):
        summon = _summon(s, f"{where}.summons[{i}]", cards)
        if summon.id in summons:
            raise RosterError(f"{where}.summons[{i}]: duplicate summon id {summon.id!r}")
        summons[summon.id] = summon
    characters: dict[str, Character] = {}
    for i, c in enumerate(_list(obj.get("characters"), f"{where}.characters")):
        character = _character(c, f"{where}.characters[{i}]", cards)
        if character.id in characters:
            raise RosterError(f"{where}.characters[{i}]: duplicate character {character.id!r}")
        characters[character.id] = character
    if len(characters) < 3:
        raise RosterError(f"{where}: a team needs 3 characters, the roster has {len(characters)}")
    for card in cards.values():
        if card.summons and card.summons not in summons:
            raise RosterError(f"card {card.id!r}: summons unknown unit {card.summons!r}")
    return Roster(version, characters, summons, cards)


def _summon(raw: Any, where: str, cards: dict[str, Card]) -> Summon:
    obj = _obj(raw, where)
    sid = _str(obj, "id", where)
    action = _card(obj.get("action"), f"{where}.action", sid, cards)
    if action.cost or action.ct or action.summons:
        raise RosterError(f"{where}.action: a summon's action has cost 0, ct 0, no summon")
    return Summon(sid, _str(obj, "name", where), _int(obj, "hp", where, 1, 120), action.id)


def _character(raw: Any, where: str, cards: dict[str, Card]) -> Character:
    obj = _obj(raw, where)
    cid = _str(obj, "id", where)
    prefers = obj.get("prefers")
    if prefers not in ("front", "back"):
        raise RosterError(f"{where}.prefers: must be 'front' or 'back', got {prefers!r}")
    deck = _list(obj.get("cards"), f"{where}.cards")
    if len(deck) != 4:
        raise RosterError(f"{where}.cards: a character has exactly 4 skill cards, got {len(deck)}")
    own = tuple(_card(c, f"{where}.cards[{i}]", cid, cards).id for i, c in enumerate(deck))
    special = _card(obj.get("special"), f"{where}.special", cid, cards, special=True)
    return Character(
        cid,
        _str(obj, "name", where),
        _int(obj, "hp", where, 40, 120),
        _int(obj, "spd", where, 1, 20),
        prefers == "front",
        own,
        special.id,
    )


def _card(raw: Any, where: str, owner: str, cards: dict[str, Card], special: bool = False) -> Card:
    obj = _obj(raw, where)
    cid = _str(obj, "id", where)
    if cid in cards:
        raise RosterError(f"{where}: duplicate card id {cid!r}")
    try:
        group, rng = Group(str(obj.get("group"))), Range(str(obj.get("range")))
    except ValueError as exc:
        raise RosterError(f"{where}: {exc} (groups {list(Group)}, ranges {list(Range)})") from exc
    flags = _list(obj.get("flags", []), f"{where}.flags")
    if any(f != "ignore_formation" for f in flags):
        raise RosterError(f"{where}.flags: only 'ignore_formation' exists, got {flags}")
    effects = tuple(
        _effect(e, f"{where}.effects[{i}]")
        for i, e in enumerate(_list(obj.get("effects"), f"{where}.effects"))
    )
    if not effects:
        raise RosterError(f"{where}.effects: a card needs at least one effect")
    if any(e.kind is Kind.SUMMON for e in effects) and rng is not Range.SELF:
        raise RosterError(f"{where}: a card that summons has range 'self' (its target: a square)")
    unlock, value = None, 0
    if special:
        unlock, value = _unlock(obj.get("unlock"), f"{where}.unlock")
    card = Card(
        cid,
        _str(obj, "name", where),
        owner,
        _int(obj, "cost", where, 0, 6),
        _int(obj, "ct", where, 0, 3),
        group,
        rng,
        bool(flags),
        effects,
        unlock,
        value,
        next((e.unit for e in effects if e.kind is Kind.SUMMON), ""),
    )
    cards[cid] = card
    return card


def _effect(raw: Any, where: str) -> Effect:
    obj = _obj(raw, where)
    kinds = [k for k in obj if k != "turns"]
    if len(kinds) != 1 or kinds[0] not in Kind.__members__.values():
        raise RosterError(f"{where}: one effect of {[k.value for k in Kind]} per entry, got {obj}")
    kind = Kind(kinds[0])
    if kind is Kind.SUMMON:
        return Effect(kind, unit=_str(obj, "summon", where))
    amount = _int(obj, kind.value, where, -20 if kind is Kind.SPD else 1, 99)
    if kind is Kind.SPD and amount == 0:
        raise RosterError(f"{where}: spd must change SPD, got 0")
    turns = _int(obj, "turns", where, 1, 9) if kind in TIMED else 0
    if kind not in TIMED and "turns" in obj:
        raise RosterError(f"{where}: {kind.value} takes no 'turns'")
    return Effect(kind, amount, turns)


def _unlock(raw: Any, where: str) -> tuple[Unlock, int]:
    obj = _obj(raw, where)
    if len(obj) != 1:
        raise RosterError(f"{where}: one condition of {[u.value for u in Unlock]}, got {obj}")
    key = next(iter(obj))
    try:
        unlock = Unlock(key)
    except ValueError as exc:
        raise RosterError(f"{where}: unknown condition {key!r}") from exc
    if unlock is Unlock.ALLY_DEFEATED:
        if obj[key] is not True:
            raise RosterError(f"{where}: ally_defeated takes true")
        return unlock, 0
    top = 99 if unlock is Unlock.HP_BELOW else 10 if unlock is Unlock.TURN_AT_LEAST else 999
    return unlock, _int(obj, key, where, 1, top)
