"""What a Realm placement takes and gives back (RULES.md section 17): the table's
modules (:class:`RealmRules`), the per-match state that comes in and goes out
(:class:`RealmState`), and the result (:class:`RealmPlacement`: captures, the
comparisons with their modified values, the captures Ward or Resistance saved).
:mod:`.resolve` computes it; nothing here decides anything."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from services.rules.errors import RuleViolation
from services.rules.resolve import Capture, Cause


class LairSpent(RuleViolation):
    """A player declared Lair a second time in the match."""


@dataclass(frozen=True, slots=True)
class RealmRules:
    """The Realm modules a table picks; a module left out is off."""

    same: bool = False
    plus: bool = False
    combo: bool = False
    type_advantage: bool = False
    clash: bool = False
    lair: bool = False
    resistance: bool = False
    cursed: bool = False


class RealmState(NamedTuple):
    """What earlier placements of the match leave behind for the Realm modules.

    ``hex_spent`` and ``rot`` are per cell (a card never moves, so its cell names it):
    whether the card's Ward or Ember is used up, and how many -1s it takes on its next
    defence. ``resistance_spent`` and ``lair_spent`` are per seat (0, 1).

    A named tuple, like the result below, rather than a frozen dataclass: both are
    built on every placement, and a frozen dataclass's ``__init__`` cost a fifth of a
    simple Realm placement."""

    hex_spent: tuple[bool, ...]
    rot: tuple[int, ...]
    resistance_spent: tuple[bool, bool] = (False, False)
    lair_spent: tuple[bool, bool] = (False, False)

    @staticmethod
    def fresh(size: int) -> RealmState:
        """The state at the start of a match on a board of ``size`` cells."""
        return RealmState((False,) * size, (0,) * size)


class Protection(StrEnum):
    """What cancelled a capture."""

    WARD = "ward"
    RESISTANCE = "resistance"


class Saved(NamedTuple):
    """A capture that was cancelled: the card keeps its owner and starts no Combo."""

    cell: int
    cause: Cause
    by: Protection


class ModifierKind(StrEnum):
    """A Realm modifier that can change a compared value (RULES.md 17, "Modifiers")."""

    TYPE_ADVANTAGE = "type_advantage"
    GUARD = "guard"
    """Type Advantage's Construct: its bottom side +1 whenever it defends."""
    LAIR = "lair"
    EMBER = "ember"
    ROT = "rot"
    BIND = "bind"
    """The defending side reads 0: its amount is minus the printed value."""
    ALIGNMENT_CLASH = "alignment_clash"


class Modifier(NamedTuple):
    """One modifier applied to one side of a comparison, and by how much."""

    kind: ModifierKind
    amount: int


class Comparison(NamedTuple):
    """One basic or Combo comparison with both modified values as the rules read them
    (Alignment Clash included), for views that explain a capture. Each side's
    modifiers are listed in the order applied; the printed value is the modified value
    less their amounts."""

    attacker: int
    defender: int
    attack: int
    defence: int
    attack_modifiers: tuple[Modifier, ...] = ()
    defence_modifiers: tuple[Modifier, ...] = ()


class RealmPlacement(NamedTuple):
    """The outcome of one Realm placement. ``captures`` are in the order the attempts
    took them; ``owners`` and ``state`` are the board's owners and the match's Realm
    state after it (the placed card included)."""

    cell: int
    captures: tuple[Capture, ...]
    saved: tuple[Saved, ...]
    comparisons: tuple[Comparison, ...]
    owners: tuple[int | None, ...]
    state: RealmState
