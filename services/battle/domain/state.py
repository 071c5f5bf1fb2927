"""A battle between its events: ``BattleState``, and ``evolve`` / ``fold`` over the facts.

The engine's :class:`~services.battle.rules.Battle` is the field, hands and Energy; this
state adds what the service keeps around it: the seats, the formations, the plans set
and committed this turn (hidden from the opponent until the turn resolves), who committed
first, the deadline, the last turn's log, which seats the CPU plays, and the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from services.battle.domain import events as ev
from services.battle.rules import Battle, Entry, Plan
from services.battle.rules.state import Square

SEATS = (0, 1)


class Phase(StrEnum):
    FORMATION = "formation"
    SELECTION = "selection"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Result:
    winner: int
    reason: ev.FinishReason


@dataclass(frozen=True, slots=True)
class BattleState:
    battle_id: str
    version: int
    seats: tuple[ev.SeatRecord, ev.SeatRecord]
    content_version: str
    phase: Phase
    deadline: datetime | None
    formations: tuple[tuple[Square, ...] | None, tuple[Square, ...] | None] = (None, None)
    battle: Battle | None = None
    """The engine's battle once turn 1 began."""
    plans: tuple[Plan | None, Plan | None] = (None, None)
    """This turn's committed plans (None: not committed)."""
    set_plans: tuple[Plan, Plan] = ((), ())
    """This turn's plans set but not committed (SetPlan): what a seat acts with at the
    deadline if it does not commit; () once it commits."""
    first: int | None = None
    """The seat that committed first this turn."""
    log: tuple[Entry, ...] = ()
    """The last resolved turn's actions."""
    cpu: tuple[str, str] = ("", "")
    """The CPU level playing each seat ("" for a human)."""
    taken_over: tuple[int, ...] = ()
    """Seats the CPU took over after a disconnect, in that order."""
    away: tuple[datetime | None, datetime | None] = (None, None)
    """For each seat whose player has no session open: when the CPU takes it over."""
    result: Result | None = None
    sets: tuple[int, int] = (0, 0)
    """How many plans each seat has set (SetPlan) in the battle: events its opponent is
    never told of, so they do not count in the opponent's view version."""

    def seen_version(self, seat: int) -> int:
        """The version as ``seat`` sees it: the stream's, less the opponent's plans set
        (else a poll would tell when, and how often, the opponent set a plan)."""
        return self.version - self.sets[1 - seat]

    @property
    def turn(self) -> int:
        return 0 if self.battle is None else self.battle.turn

    @property
    def over(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def winner_id(self) -> str:
        """The winner's player id: "" for the CPU, when nobody won, or before the end."""
        if self.result is None or self.result.winner == ev.NO_WINNER:
            return ""
        return self.seats[self.result.winner].player_id

    def seat_of(self, player_id: str) -> int | None:
        for seat in SEATS:
            if player_id and self.seats[seat].player_id == player_id:
                return seat
        return None

    def humans(self) -> list[tuple[int, str]]:
        return [(s, self.seats[s].player_id) for s in SEATS if self.seats[s].player_id]


def _pair(values: tuple[object, object], seat: int, value: object) -> tuple[object, object]:
    return (value, values[1]) if seat == 0 else (values[0], value)


def evolve(state: BattleState | None, event: ev.Event, battle_id: str = "") -> BattleState:
    """The state after one event (``state`` is None before ``Created``)."""
    if isinstance(event, ev.Created):
        return BattleState(
            battle_id,
            1,
            event.seats,
            event.content_version,
            Phase.FORMATION,
            event.formation_deadline,
            cpu=(event.seats[0].level, event.seats[1].level),
        )
    assert state is not None, f"{type(event).__name__} before the battle was created"
    state = replace(state, version=state.version + 1)
    if isinstance(event, ev.FormationSet):
        return replace(state, formations=_pair(state.formations, event.seat, event.squares))  # type: ignore[arg-type]
    if isinstance(event, ev.Started):
        return replace(
            state,
            phase=Phase.SELECTION,
            battle=event.battle,
            deadline=event.selection_deadline,
        )
    if isinstance(event, ev.PlanSet):
        set_plans = _pair(state.set_plans, event.seat, event.plan)
        sets = _pair(state.sets, event.seat, state.sets[event.seat] + 1)
        return replace(state, set_plans=set_plans, sets=sets)  # type: ignore[arg-type]
    if isinstance(event, ev.PlanCommitted):
        first = state.first if state.first is not None else event.seat
        plans = _pair(state.plans, event.seat, event.plan)
        set_plans = _pair(state.set_plans, event.seat, ())
        return replace(state, plans=plans, first=first, set_plans=set_plans)  # type: ignore[arg-type]
    if isinstance(event, ev.TurnResolved):
        return replace(
            state,
            battle=event.battle,
            plans=(None, None),
            set_plans=((), ()),
            first=None,
            log=event.log,
            deadline=event.selection_deadline,
        )
    if isinstance(event, ev.SeatAway | ev.SeatBack):
        until = event.until if isinstance(event, ev.SeatAway) else None
        return replace(state, away=_pair(state.away, event.seat, until))  # type: ignore[arg-type]
    if isinstance(event, ev.SeatTakenOver):
        cpu = _pair(state.cpu, event.seat, event.level)
        away = _pair(state.away, event.seat, None)
        return replace(state, cpu=cpu, taken_over=(*state.taken_over, event.seat), away=away)  # type: ignore[arg-type]
    if isinstance(event, ev.Finished):
        return replace(
            state,
            phase=Phase.FINISHED,
            deadline=None,
            plans=(None, None),
            set_plans=((), ()),
            result=Result(event.winner, event.reason),
        )
    raise TypeError(f"not a battle event: {event!r}")


def fold(battle_id: str, events: list[ev.Event]) -> BattleState | None:
    state: BattleState | None = None
    for event in events:
        state = evolve(state, event, battle_id)
    return state
