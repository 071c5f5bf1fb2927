"""The facts of a battle (past tense), as plain data. ``codec.py`` turns them into the
``triad.v1`` payloads of ``battle.proto``'s Skirmish block and back.

Outcomes are recorded: ``Started`` and ``TurnResolved`` carry the engine's battle after
them, and ``TurnResolved`` its action log, so folding the events never runs rule code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.battle.rules import Battle, Entry, Plan
from services.battle.rules.state import Square


class FinishReason(StrEnum):
    WIPEOUT = "wipeout"
    DECISION = "decision"
    GIVE_UP = "give_up"
    DISCONNECT = "disconnect"
    """The CPU took over the loser's seat (BATTLE.md 5): the battle went on, they lose."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat as recorded at the start: ``player_id`` "" and ``level`` set for the CPU."""

    player_id: str
    name: str
    level: str
    characters: tuple[str, str, str]
    deck: tuple[str, ...]
    """The deck order drawn for it (BATTLE.md 3, recorded)."""

    @property
    def cpu(self) -> bool:
        return not self.player_id


@dataclass(frozen=True, slots=True)
class Created:
    seats: tuple[SeatRecord, SeatRecord]
    content_version: str
    formation_deadline: datetime
    at: datetime


@dataclass(frozen=True, slots=True)
class FormationSet:
    seat: int
    squares: tuple[Square, ...]
    by_default: bool = False


@dataclass(frozen=True, slots=True)
class Started:
    battle: Battle
    selection_deadline: datetime


@dataclass(frozen=True, slots=True)
class PlanSet:
    """A seat set its plan without committing it (SetPlan): it replaces the one set
    before, and acts at the selection deadline unless the seat commits."""

    seat: int
    turn: int
    plan: Plan
    at: datetime


@dataclass(frozen=True, slots=True)
class PlanCommitted:
    seat: int
    turn: int
    plan: Plan
    at: datetime
    at_deadline: bool = False
    """Committed by the server at the deadline, with the plan set (none if none)."""
    by_cpu: bool = False


@dataclass(frozen=True, slots=True)
class TurnResolved:
    turn: int
    first: int
    battle: Battle
    log: tuple[Entry, ...]
    selection_deadline: datetime | None


@dataclass(frozen=True, slots=True)
class SeatAway:
    """The seat's player has no session open: the CPU takes the seat over ``until``
    unless they come back first (BATTLE.md 5)."""

    seat: int
    until: datetime


@dataclass(frozen=True, slots=True)
class SeatBack:
    """The seat's player, away, opened a session again before the takeover."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatTakenOver:
    seat: int
    level: str


NO_WINNER = -1
"""``Finished.winner`` when both players left and the CPU took both seats over: each
lost (BATTLE.md 5, "the disconnected player loses"), so nobody won."""


@dataclass(frozen=True, slots=True)
class Finished:
    winner: int
    """The winning seat, or ``NO_WINNER``."""
    reason: FinishReason
    at: datetime


Event = (
    Created
    | FormationSet
    | Started
    | PlanSet
    | PlanCommitted
    | TurnResolved
    | SeatAway
    | SeatBack
    | SeatTakenOver
    | Finished
)
