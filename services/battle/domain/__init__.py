"""The battle aggregate, pure (BATTLE.md 2 to 5): ``events`` (the facts), ``state``
(``BattleState``, ``evolve``, ``fold``), ``decide`` (the commands, each a ``Decision``),
``deadlines`` (which timers a state needs), ``errors``."""

from services.battle.domain.deadlines import Deadline, DeadlineKind, deadline
from services.battle.domain.decide import (
    Decision,
    Timing,
    commit_plan,
    create,
    formation_due,
    give_up,
    presence,
    selection_due,
    set_formation,
    set_plan,
    take_over,
)
from services.battle.domain.events import NO_WINNER, Event, FinishReason, SeatRecord
from services.battle.domain.state import SEATS, BattleState, Phase, fold

__all__ = [
    "NO_WINNER",
    "SEATS",
    "BattleState",
    "Deadline",
    "DeadlineKind",
    "Decision",
    "Event",
    "FinishReason",
    "Phase",
    "SeatRecord",
    "Timing",
    "commit_plan",
    "create",
    "deadline",
    "fold",
    "formation_due",
    "give_up",
    "presence",
    "selection_due",
    "set_formation",
    "set_plan",
    "take_over",
]
