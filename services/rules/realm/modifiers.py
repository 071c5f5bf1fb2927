"""The Realm modifiers that depend only on the two cards of a comparison: Type
Advantage and Alignment Clash (RULES.md section 17, "Modifiers").

The modifiers that depend on the match's state (Lair, Ember, Rot, Bind) are applied by
:mod:`services.rules.realm.resolve`, which knows that state.
"""

from __future__ import annotations

from services.rules.cards import Side
from services.rules.realm.cards import Alignment, CreatureType, Law, Moral

_C = CreatureType
_NONE: frozenset[CreatureType] = frozenset()

ADVANTAGE: dict[CreatureType, tuple[frozenset[CreatureType], ...]] = dict.fromkeys(
    CreatureType, (_NONE, _NONE, _NONE, _NONE)
)
"""Per type, per side (top, right, bottom, left): the foes that side gains +1 against,
attacking or defending."""
ADVANTAGE[_C.DRAGON] = (frozenset({_C.GIANT, _C.HUMANOID}), _NONE, _NONE, _NONE)
ADVANTAGE[_C.UNDEAD] = (_NONE, _NONE, _NONE, frozenset({_C.HUMANOID, _C.BEAST}))
ADVANTAGE[_C.FIEND] = (frozenset({_C.CELESTIAL}), _NONE, _NONE, _NONE)
ADVANTAGE[_C.CELESTIAL] = (_NONE, _NONE, _NONE, frozenset({_C.FIEND, _C.UNDEAD}))
ADVANTAGE[_C.ABERRATION] = (_NONE, _NONE, _NONE, frozenset({_C.HUMANOID}))

GUARD: dict[CreatureType, int] = dict.fromkeys(CreatureType, -1)
"""Per type, the side that gains +1 whenever it defends, whatever the foe (-1: none)."""
GUARD[_C.CONSTRUCT] = int(Side.BOTTOM)


def advantage(kind: CreatureType, side: int, foe: CreatureType) -> int:
    """Type Advantage of ``kind``'s ``side`` compared against a ``foe``, attacking or
    defending: a Dragon's top against a Giant or Humanoid, an Undead's left against a
    Humanoid or Beast, a Fiend's top against a Celestial, a Celestial's left against a
    Fiend or Undead, an Aberration's left against a Humanoid."""
    return 1 if foe in ADVANTAGE[kind][side] else 0


def guard(kind: CreatureType, side: int) -> int:
    """Type Advantage of a defending side regardless of the foe: a Construct's bottom."""
    return 1 if GUARD[kind] == side else 0


_LAW_CLASH = frozenset({(Law.LAWFUL, Law.CHAOTIC), (Law.CHAOTIC, Law.LAWFUL)})
_MORAL_CLASH = frozenset({(Moral.GOOD, Moral.EVIL), (Moral.EVIL, Moral.GOOD)})


def clashes(one: Alignment, other: Alignment) -> bool:
    """Alignment Clash: Lawful meets Chaotic, or Good meets Evil (or both)."""
    return (one.law, other.law) in _LAW_CLASH or (one.moral, other.moral) in _MORAL_CLASH


def clash(attack: int, defence: int) -> tuple[int, int]:
    """The higher of two clashing modified values gains +1 (once, even when both words
    clash); equal values stay equal. Applied last, it never changes which is higher."""
    if attack > defence:
        return attack + 1, defence
    if defence > attack:
        return attack, defence + 1
    return attack, defence
