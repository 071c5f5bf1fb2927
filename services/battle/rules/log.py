"""What a turn did, in order: the action log a turn's outcome carries (and the JSON the
``triad-battle resolve`` command writes). Every set card has an entry, in the order it
resolved, also when it fizzled (``fizzled`` says why).

``Entry`` and ``Effect`` are named tuples, as the match engine's ``Capture`` is: a turn
makes a dozen of them on the hot path, where a frozen dataclass costs twice as much."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from services.battle.rules.state import Battle
from services.battle.rules.targets import Target


class Step(StrEnum):
    CARD = "card"
    """A character's set card (BATTLE.md 4.3)."""
    SUMMON = "summon_action"
    """A summoned unit's fixed action (4.4)."""
    BURN = "burn"
    """Burn damage at the turn end (4.5)."""
    UNLOCK = "unlock"
    """A Special unlocked at the turn end."""
    APPEAR = "appear"
    """A reserved summon placed at the next turn's start."""


class Fizzle(StrEnum):
    USER_DEFEATED = "user defeated before the card resolved"
    NO_TARGET = "no legal target left"


class Change(StrEnum):
    DAMAGE = "damage"
    ABSORBED = "absorbed"
    HEAL = "heal"
    SHIELD = "shield"
    BURN = "burn"
    COVER = "cover"
    SPD = "spd"
    ENERGY = "energy"
    ENERGY_STEAL = "energy_steal"
    SUMMON = "summon"
    RESERVED = "reserved"
    DEFEATED = "defeated"


class Effect(NamedTuple):
    """One change to one unit (or, for Energy, to a team: ``unit`` is ``"team <n>"``)."""

    unit: str
    change: Change
    amount: int = 0


class Entry(NamedTuple):
    step: Step
    team: int
    actor: str = ""
    card: str = ""
    target: Target | None = None
    """The target as chosen in the plan (summons: as their rule chose it)."""
    targets: tuple[str, ...] = ()
    """The units the card reached."""
    effects: tuple[Effect, ...] = ()
    fizzled: Fizzle | None = None
    note: str = ""
    """Why the targets differ from the choice: a retarget or a Cover."""


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """A resolved turn: the battle at the next turn's selection (or over) and the log."""

    battle: Battle
    log: tuple[Entry, ...]
    first: int
    """The player who committed first (the recorded tie-break)."""
