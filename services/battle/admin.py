"""``triad-admin battle show BATTLE_ID``: a battle's events, one line each (formations
set, plans committed with their cards, turns resolved with what each action did, seats
the CPU took over, the winner and why), then the battle as its log leaves it: the turn,
each team's units with their HP, and the outcome. The state is rebuilt from the log
alone: each stored event decoded by ``codec`` and folded by the domain's ``evolve``,
as the service loads a battle (GetBattleEvents, with the operator token from
TRIAD_ADMIN_TOKEN).

The tool itself (its options, its other commands, how a refusal is told) is
``services/admin.py``, which no service owns: it takes this module's :func:`show`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from triad.v1 import battle_pb2 as b
from triad.v1 import battle_pb2_grpc
from triad.v1 import events_pb2 as ev

from services.battle import codec
from services.battle.domain import BattleState
from services.battle.domain.events import (
    NO_WINNER,
    Created,
    Event,
    FormationSet,
    PlanCommitted,
    PlanSet,
    SeatAway,
    SeatBack,
    SeatTakenOver,
    Started,
    TurnResolved,
)
from services.battle.domain.state import evolve
from services.battle.rules import Change, Entry, Plan, Step, Target, Team
from services.battle.rules.log import Effect
from services.battle.rules.state import Square
from services.platform.eventpages import event_line, operator_events


async def fetch_events(address: str, token: str, battle_id: str) -> list[ev.EventEnvelope]:
    """Every stored event of the battle, page after page."""
    return await operator_events(
        address,
        token,
        lambda channel: battle_pb2_grpc.BattleServiceStub(channel).GetBattleEvents,
        lambda version: b.BattleServiceGetBattleEventsRequest(
            battle_id=battle_id, from_version=version
        ),
    )


def seat_name(state: BattleState, seat: int) -> str:
    """``seat 0 (ann)``; a CPU seat by its level (``seat 1 (CPU greedy)``)."""
    record = state.seats[seat]
    who = record.name or (f"CPU {record.level}" if record.cpu else record.player_id)
    return f"seat {seat} ({who})"


def winner_words(state: BattleState, winner: int) -> str:
    if winner == NO_WINNER:
        return "nobody wins: both players left"
    return f"{seat_name(state, winner)} wins"


def square(value: Square | None) -> str:
    return "off the field" if value is None else f"({value[0]},{value[1]})"


def aim(target: Target) -> str:
    """Where an action aims: a square, a row, a column, or nothing to choose."""
    if target.square is not None:
        return f" at {square(target.square)}"
    if target.row is not None:
        return f" at row {target.row}"
    if target.col is not None:
        return f" at column {target.col}"
    return ""


def plan_text(plan: Plan) -> str:
    return "; ".join(f"{a.character} plays {a.card}{aim(a.target)}" for a in plan) or "no cards"


def effect_text(effect: Effect) -> str:
    """``1.volt damage 12``, ``0.ember spd -4``, ``1.volt defeated``."""
    if effect.change is Change.DEFEATED:
        return f"{effect.unit} defeated"
    amount = f"{effect.amount:+}" if effect.change is Change.SPD else str(effect.amount)
    return f"{effect.unit} {effect.change.value} {amount}"


def entry_text(entry: Entry) -> str:
    """One action of a resolved turn: who did what, and what it did to whom."""
    head = {
        Step.BURN: f"{entry.actor} burns",
        Step.UNLOCK: f"{entry.actor} unlocks {entry.card}",
        Step.APPEAR: f"{entry.actor} appears",
    }.get(entry.step, f"{entry.actor} {entry.card}{aim(entry.target or Target())}")
    if entry.fizzled is not None:
        return f"{head}: fizzled ({entry.fizzled.value})"
    if entry.step is Step.UNLOCK:
        return head
    done = ", ".join(effect_text(e) for e in entry.effects) or "nothing"
    return f"{head} -> {done}" + (f" ({entry.note})" if entry.note else "")


def describe(event: Event, state: BattleState) -> str:
    """What the event says, ``state`` being the battle after it (for the seats' names)."""
    if isinstance(event, Created):
        teams = [
            f"{seat_name(state, s)} {', '.join(r.characters)}" for s, r in enumerate(event.seats)
        ]
        return f"{teams[0]} vs {teams[1]}; content {event.content_version}"
    if isinstance(event, FormationSet):
        placed = zip(state.seats[event.seat].characters, event.squares, strict=False)
        where = ", ".join(f"{character} at {square(at)}" for character, at in placed)
        return f"{seat_name(state, event.seat)} places {where}" + (
            " (the default formation)" if event.by_default else ""
        )
    if isinstance(event, Started):
        return f"turn {event.battle.turn} begins"
    if isinstance(event, PlanSet):
        return f"{seat_name(state, event.seat)} sets turn {event.turn}: {plan_text(event.plan)}"
    if isinstance(event, PlanCommitted):
        how = " (by the CPU)" if event.by_cpu else ""
        how += " (at the deadline)" if event.at_deadline else ""
        plan = plan_text(event.plan)
        return f"{seat_name(state, event.seat)} commits turn {event.turn}{how}: {plan}"
    if isinstance(event, TurnResolved):
        actions = "; ".join(entry_text(e) for e in event.log) or "nothing happened"
        first = seat_name(state, event.first)
        return f"turn {event.turn} resolved, {first} committed first: {actions}"
    if isinstance(event, SeatAway):
        when = event.until.strftime("%H:%M:%S UTC")
        return f"{seat_name(state, event.seat)} is away: the CPU takes the seat at {when}"
    if isinstance(event, SeatBack):
        return f"{seat_name(state, event.seat)} is back"
    if isinstance(event, SeatTakenOver):
        return f"the CPU ({event.level}) takes over {seat_name(state, event.seat)}"
    return f"{winner_words(state, event.winner)} ({event.reason.value})"


def team_lines(state: BattleState, seat: int, team: Team) -> Iterator[str]:
    yield f"{seat_name(state, seat)}: energy {team.energy}"
    for unit in team.units:
        kind = f" (summon {unit.ref})" if unit.summon else ""
        where = f"at {square(unit.square)}" if unit.alive else "defeated"
        yield f"  {unit.uid:14} {unit.hp:3}/{unit.max_hp:<3} {where}{kind}"


def outcome_line(state: BattleState) -> str:
    if state.result is not None:
        result = state.result
        return f"outcome: {winner_words(state, result.winner)} ({result.reason.value})"
    return f"outcome: none yet ({state.phase.value})"


def final_lines(state: BattleState) -> Iterator[str]:
    """The battle as the log leaves it: turn, the teams' units with HP, the outcome."""
    if state.battle is None:
        yield f"turn 0: no turn began ({state.phase.value})"
    else:
        yield f"turn {state.battle.turn}"
        for seat, team in enumerate(state.battle.teams):
            yield from team_lines(state, seat, team)
    yield outcome_line(state)


def report(battle_id: str, envelopes: Iterable[ev.EventEnvelope]) -> Iterator[str]:
    """A line per event, then (after a blank line) the battle rebuilt from them."""
    state: BattleState | None = None
    for envelope in envelopes:
        event = codec.decode(envelope.event_type, envelope.schema_version, envelope.payload)
        state = evolve(state, event, battle_id)
        yield event_line(envelope, describe(event, state))
    if state is not None:
        yield ""
        yield from final_lines(state)


async def show(address: str, token: str, battle_id: str) -> None:
    """Print the battle's events and its state as the log leaves it. A refused or
    unanswered call raises ``grpc.aio.AioRpcError``."""
    for line in report(battle_id, await fetch_events(address, token, battle_id)):
        print(line)
