"""The battle's commands (BATTLE.md 2 to 5), each returning a :class:`Decision`: the
events it produces and the state after them. Pure: the handler passes the time, the
roster, the drawn decks and the CPU's plans in.

Decisions where BATTLE.md is silent:

- The formation (30 s) ends when both seats have placed their characters or at its
  deadline, where an unplaced team takes the default (front column).
- A plan is committed once per turn; the second commit resolves the turn at once.
- A plan may be set (SetPlan) before it is committed, as often as the player likes: each
  set is checked as a commit's plan is and replaces the one set before (an empty plan
  clears it). A commit's plan is what acts; a seat that has not committed at the deadline
  acts with the plan it set (BATTLE.md 4.2: "the cards set so far"). A seat the CPU takes
  over plays the CPU's plan, not the one its player set.
- The time limits hold to the second, whenever the timer fires: a formation sent at or
  after the formation's deadline, or a plan set or committed at or after the selection's,
  is refused (the default formation, the plan set so far stand: BATTLE.md 2 and 4.2).
  The CPU is not held to them: it moves as a seat is taken over, whenever that is.
- A seat the CPU took over after a disconnect loses when the battle ends, whatever the
  field says (BATTLE.md 5: "the battle goes on, but the disconnected player loses"); if
  both were taken over, the first one taken over loses. Their opponent giving up then
  ends the battle, still as the disconnected player's loss.
- Seats that both reach the selection's deadline uncommitted commit at one moment; for
  the SPD tie-break between teams (BATTLE.md 4.3: "the player who committed first")
  seat 0 then counts as first, as ``TurnResolved.first`` records. A seat that committed
  before the deadline is first over one committed at it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from services.battle.domain.errors import BadFormation, BadPlan, BattleOver, NotNow
from services.battle.domain.events import (
    NO_WINNER,
    Created,
    Event,
    Finished,
    FinishReason,
    FormationSet,
    PlanCommitted,
    PlanSet,
    SeatAway,
    SeatBack,
    SeatRecord,
    SeatTakenOver,
    Started,
    TurnResolved,
)
from services.battle.domain.state import SEATS, BattleState, Phase, evolve
from services.battle.rules import (
    Battle,
    Plan,
    PlanError,
    Reason,
    Roster,
    check_plan,
    new_battle,
    resolve_turn,
)
from services.battle.rules.state import DEFAULT_FORMATION, SQUARES, Square

SELECTION_SECONDS = 60.0
FORMATION_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Timing:
    formation: timedelta = timedelta(seconds=FORMATION_SECONDS)
    selection: timedelta = timedelta(seconds=SELECTION_SECONDS)


@dataclass(frozen=True, slots=True)
class Decision:
    events: list[Event]
    state: BattleState
    before: int = 0
    """The stream version the events were decided at (the expected version)."""
    resolved: list[TurnResolved] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return any(isinstance(e, Finished) for e in self.events)

    @property
    def seen_by(self) -> tuple[int, ...]:
        """The seats whose view the events change: a plan set changes nothing the
        opponent sees, so only its own seat is told (not even that it happened)."""
        if all(isinstance(e, PlanSet) for e in self.events):
            return tuple(sorted({e.seat for e in self.events if isinstance(e, PlanSet)}))
        return SEATS


def _decide(state: BattleState | None, events: list[Event], battle_id: str = "") -> Decision:
    before = 0 if state is None else state.version
    current = state
    for event in events:
        current = evolve(current, event, battle_id)
    assert current is not None
    resolved = [e for e in events if isinstance(e, TurnResolved)]
    return Decision(events, current, before, resolved)


def also(decision: Decision, then: Decision) -> Decision:
    """Two decisions in a row, saved as one."""
    return Decision(
        [*decision.events, *then.events],
        then.state,
        decision.before,
        [*decision.resolved, *then.resolved],
    )


def create(
    battle_id: str, seats: tuple[SeatRecord, SeatRecord], roster: Roster, now: datetime, t: Timing
) -> Decision:
    return _decide(None, [Created(seats, roster.version, now + t.formation, now)], battle_id)


def _open(state: BattleState) -> None:
    if state.over:
        raise BattleOver("the battle is over")


def check_squares(squares: tuple[Square, ...]) -> tuple[Square, ...]:
    if len(squares) != 3 or len(set(squares)) != 3:
        raise BadFormation(
            f"a formation is 3 different squares, one per character, got {list(squares)}"
        )
    for square in squares:
        if square not in SQUARES:
            raise BadFormation(f"square {square} is off the 3x3 field (rows and columns 0..2)")
    return squares


def _in_time(state: BattleState, now: datetime, what: str) -> None:
    """Refuse a player's move at or after the phase's deadline (the timer's own moment)."""
    if state.deadline is not None and now >= state.deadline:
        raise NotNow(f"the {what} time is up: what was set when it ended stands")


def set_formation(
    state: BattleState,
    seat: int,
    squares: tuple[Square, ...],
    roster: Roster,
    now: datetime,
    t: Timing,
    *,
    by_cpu: bool = False,
) -> Decision:
    check_squares(squares)  # malformed whatever the state: said before the battle's end
    _open(state)
    if state.phase is not Phase.FORMATION:
        raise NotNow("the formation is over: the battle has begun")
    if state.formations[seat] is not None:
        raise NotNow("your formation is set already")
    if not by_cpu:
        _in_time(state, now, "formation")
    decision = _decide(state, [FormationSet(seat, squares)])
    if all(f is not None for f in decision.state.formations):
        decision = also(decision, _start(decision.state, roster, now, t))
    return decision


def formation_due(state: BattleState, roster: Roster, now: datetime, t: Timing) -> Decision:
    """The formation's deadline: unplaced teams take the default, and turn 1 begins."""
    if state.phase is not Phase.FORMATION:
        return _decide(state, [])
    events: list[Event] = [
        FormationSet(seat, DEFAULT_FORMATION, by_default=True)
        for seat in SEATS
        if state.formations[seat] is None
    ]
    decision = _decide(state, events)
    return also(decision, _start(decision.state, roster, now, t))


def _start(state: BattleState, roster: Roster, now: datetime, t: Timing) -> Decision:
    s0, s1 = state.seats
    battle = new_battle(
        roster, (s0.characters, s1.characters), (s0.deck, s1.deck), state.formations
    )
    return _decide(state, [Started(battle, now + t.selection)])


def _check_selection(
    state: BattleState,
    seat: int,
    turn: int,
    plan: Plan,
    roster: Roster,
    now: datetime,
    by_cpu: bool = False,
) -> None:
    """What a plan set or committed must meet: the selection of this turn and in its
    time (but the CPU's), the seat not committed yet, and the plan legal (BATTLE.md 4.2)."""
    _open(state)
    if state.phase is not Phase.SELECTION or state.battle is None:
        if state.formations[seat] is not None:
            raise NotNow(
                "the battle has not begun: turn 1 starts once your opponent's formation "
                "is placed (or at the formation's deadline)"
            )
        raise NotNow("the battle has not begun: set your formation first")
    if turn != state.battle.turn:
        raise NotNow(f"the plan is for turn {turn}, the battle is at turn {state.battle.turn}")
    if state.plans[seat] is not None:
        raise NotNow(f"your plan for turn {turn} is committed already")
    if not by_cpu:
        _in_time(state, now, "selection")
    try:
        check_plan(roster, state.battle, seat, plan)
    except PlanError as error:
        raise BadPlan(error.to_player()) from error


def set_plan(
    state: BattleState, seat: int, turn: int, plan: Plan, roster: Roster, now: datetime
) -> Decision:
    """The seat's plan so far, not committed: it replaces the one set before and acts at
    the deadline unless the seat commits; hidden from the opponent like a commit."""
    _check_selection(state, seat, turn, plan, roster, now)
    return _decide(state, [PlanSet(seat, turn, plan, now)])


def commit_plan(
    state: BattleState,
    seat: int,
    turn: int,
    plan: Plan,
    roster: Roster,
    now: datetime,
    t: Timing,
    *,
    by_cpu: bool = False,
) -> Decision:
    _check_selection(state, seat, turn, plan, roster, now, by_cpu)
    decision = _decide(state, [PlanCommitted(seat, turn, plan, now, by_cpu=by_cpu)])
    if all(p is not None for p in decision.state.plans):
        decision = also(decision, _resolve(decision.state, roster, now, t))
    return decision


def selection_due(state: BattleState, roster: Roster, now: datetime, t: Timing) -> Decision:
    """The selection's deadline: a seat that did not commit acts with the plan it set
    (none if none; BATTLE.md 4.2), committed for it, and the turn resolves.

    Decision: the plan set is checked again here, and a plan that no longer passes acts
    as none. It cannot happen: a plan was checked when set against this turn's battle,
    and the battle (hands, Energy, CT, the fields) changes only when the turn resolves;
    during the selection only plans and takeovers are recorded. The check is a guard,
    so that such a plan could never reach the engine nor leave the timer failing."""
    if state.phase is not Phase.SELECTION or state.battle is None:
        return _decide(state, [])
    turn = state.battle.turn
    events: list[Event] = [
        PlanCommitted(seat, turn, _still_legal(state, seat, roster), now, at_deadline=True)
        for seat in SEATS
        if state.plans[seat] is None
    ]
    decision = _decide(state, events)
    return also(decision, _resolve(decision.state, roster, now, t))


def _still_legal(state: BattleState, seat: int, roster: Roster) -> Plan:
    plan = state.set_plans[seat]
    assert state.battle is not None
    try:
        check_plan(roster, state.battle, seat, plan)
    except PlanError:
        return ()
    return plan


def _resolve(state: BattleState, roster: Roster, now: datetime, t: Timing) -> Decision:
    battle = state.battle
    p0, p1 = state.plans
    assert battle is not None and p0 is not None and p1 is not None
    first = state.first if state.first is not None else 0
    outcome = resolve_turn(roster, battle, (p0, p1), first)
    after = outcome.battle
    deadline = None if after.outcome is not None else now + t.selection
    events: list[Event] = [TurnResolved(battle.turn, first, after, outcome.log, deadline)]
    decision = _decide(state, events)
    if after.outcome is not None:
        decision = also(decision, _finish(decision.state, after, now))
    return decision


def _finish(state: BattleState, battle: Battle, now: datetime) -> Decision:
    assert battle.outcome is not None
    if state.taken_over:
        return _decide(state, [Finished(_left_behind(state), FinishReason.DISCONNECT, now)])
    reason = {
        Reason.WIPEOUT: FinishReason.WIPEOUT,
        Reason.DECISION: FinishReason.DECISION,
        Reason.GIVE_UP: FinishReason.GIVE_UP,
    }[battle.outcome.reason]
    return _decide(state, [Finished(battle.outcome.winner, reason, now)])


def give_up(state: BattleState, seat: int, now: datetime) -> Decision:
    """The seat gives up and loses; but if the CPU took the other seat over, its player
    lost first (they left): the battle ends as their loss by disconnect."""
    _open(state)
    if 1 - seat in state.taken_over:
        return _decide(state, [Finished(seat, FinishReason.DISCONNECT, now)])
    return _decide(state, [Finished(1 - seat, FinishReason.GIVE_UP, now)])


def take_over(state: BattleState, seat: int, level: str, now: datetime) -> Decision:
    """The player of ``seat`` has been away too long: the CPU plays on (they lose).

    **Decision:** when the CPU has taken both seats over, both players left and both have
    lost (BATTLE.md 5): the battle ends there with no winner, nobody left to play it for.
    """
    if state.over or state.cpu[seat] or seat in state.taken_over:
        return _decide(state, [])
    decision = _decide(state, [SeatTakenOver(seat, level)])
    if 1 - seat not in decision.state.taken_over:
        return decision
    return also(
        decision, _decide(decision.state, [Finished(NO_WINNER, FinishReason.DISCONNECT, now)])
    )


def _left_behind(state: BattleState) -> int:
    """The winner of a battle the CPU took a seat of: the other seat's player, unless
    they left too."""
    if len(state.taken_over) > 1:
        return NO_WINNER
    return 1 - state.taken_over[0]


def presence(state: BattleState, seat: int, away_until: datetime | None) -> Decision:
    """The player of ``seat`` left (``away_until``: when the CPU takes the seat over) or
    came back (None), told to both seats' views; nothing once the battle is over or the
    CPU plays the seat, nor when it changes nothing."""
    if state.over or state.cpu[seat] or state.away[seat] == away_until:
        return _decide(state, [])
    if away_until is None:
        return _decide(state, [SeatBack(seat)])
    return _decide(state, [SeatAway(seat, away_until)])
