"""The timers a battle needs, a pure function of its state (disconnects are the
presence's, kept beside them by the store)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.battle.domain.state import BattleState, Phase


class DeadlineKind(StrEnum):
    """What a timer does when it fires (its value is the ``battle_timers.kind``)."""

    FORMATION = "formation"
    """Unplaced teams take the default formation; turn 1 begins."""
    SELECTION = "selection"
    """Seats that did not commit act with the plan they set (none if none); the turn
    resolves."""
    DISCONNECT = "disconnect"
    """A seat's player has had no session stream for 30 s: the CPU takes over."""


@dataclass(frozen=True, slots=True)
class Deadline:
    kind: DeadlineKind
    due: datetime
    seat: int = -1


def deadline(state: BattleState) -> Deadline | None:
    """The phase timer the state needs (None once over)."""
    if state.deadline is None or state.over:
        return None
    kind = DeadlineKind.FORMATION if state.phase is Phase.FORMATION else DeadlineKind.SELECTION
    return Deadline(kind, state.deadline)
