"""Protobuf <-> domain values at the battle service's edges: squares, targets, plans,
the action log, bot levels, outcomes. The per-player ``BattleView`` is ``presenter.py``."""

from __future__ import annotations

from collections.abc import Iterable

from triad.v1 import common_pb2 as pb

from services.battle.bots.levels import Level
from services.battle.domain.errors import BadPlan
from services.battle.rules import Action, Change, Entry, Fizzle, Plan, Step, Target
from services.battle.rules.log import Effect
from services.battle.rules.state import Square
from services.platform.errors import InvalidArgument

LEVELS: dict[str, pb.BattleBotLevel.ValueType] = {
    "": pb.BATTLE_BOT_LEVEL_UNSPECIFIED,
    Level.RANDOM: pb.BATTLE_BOT_LEVEL_RANDOM,
    Level.GREEDY: pb.BATTLE_BOT_LEVEL_GREEDY,
    Level.SEARCH: pb.BATTLE_BOT_LEVEL_SEARCH,
}
LEVELS_BACK = {v: k for k, v in LEVELS.items()}


def level_back(value: int) -> str:
    for level, number in LEVELS.items():
        if number == value:
            return str(level)
    raise InvalidArgument(f"bot_level {value} is not a level: random, greedy or search")


def square(value: Square) -> pb.BattleSquare:
    return pb.BattleSquare(row=value[0], col=value[1])


def squares_back(messages: Iterable[pb.BattleSquare]) -> tuple[Square, ...]:
    return tuple((m.row, m.col) for m in messages)


def target(value: Target) -> pb.BattleTarget:
    message = pb.BattleTarget()
    if value.row is not None:
        message.row = value.row
    if value.col is not None:
        message.col = value.col
    return message


def target_back(message: pb.BattleTarget) -> Target:
    """The target as sent; one off the field is refused by the plan check, which names
    the action as every plan error does."""
    return Target(
        message.row if message.HasField("row") else None,
        message.col if message.HasField("col") else None,
    )


def plan(value: Plan) -> list[pb.BattleAction]:
    return [
        pb.BattleAction(character=a.character, card=a.card, target=target(a.target)) for a in value
    ]


def plan_back(messages: Iterable[pb.BattleAction]) -> Plan:
    """The plan as sent. Its actions are numbered from 1 in a refusal, as in the plan
    check's (``your action 1 (Kira: Jolt): ...``)."""
    actions = []
    for i, m in enumerate(messages, 1):
        if not m.card or not m.character:
            raise BadPlan(f"your action {i}: each action names its character and card")
        actions.append(Action(m.character, m.card, target_back(m.target)))
    return tuple(actions)


def entry(value: Entry) -> pb.BattleLogEntry:
    # The enums are StrEnums: protobuf takes a member as its value (no ``.value`` on
    # the hot path of every view and turn).
    message = pb.BattleLogEntry(
        step=value.step,
        seat=value.team,
        actor=value.actor,
        card=value.card,
        targets=value.targets,
        effects=[
            pb.BattleEffect(unit=e.unit, change=e.change, amount=e.amount) for e in value.effects
        ],
        fizzled=value.fizzled or "",
        note=value.note,
    )
    if value.target is not None:
        message.target.CopyFrom(target(value.target))
    return message


def entry_back(message: pb.BattleLogEntry) -> Entry:
    return Entry(
        Step(message.step),
        message.seat,
        message.actor,
        message.card,
        target_back(message.target) if message.HasField("target") else None,
        tuple(message.targets),
        tuple(Effect(e.unit, Change(e.change), e.amount) for e in message.effects),
        Fizzle(message.fizzled) if message.fizzled else None,
        message.note,
    )
