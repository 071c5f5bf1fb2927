"""A refused plan as its player reads it, from the request's actions (converted at the
edge, ``mapping.plan_back``, as the server does) to the refusal: every plan error numbers
the actions from 1 and names the card as the screens do ("your action 1 (Kira: Jolt)")."""

from __future__ import annotations

import pytest
from triad.v1 import common_pb2 as pb

from services.battle import handlers, mapping
from services.battle.domain import BattleState
from services.battle.domain.errors import BadPlan
from services.battle.tests.builders import ANN, ROSTER, context, key, start


def _first_card(state: BattleState) -> tuple[str, str, str]:
    """(card id, owner id, the words naming it) of seat 0's first card in hand."""
    assert state.battle is not None
    card = ROSTER.cards[state.battle.teams[0].hand[0]]
    return card.id, card.owner, f"{ROSTER.characters[card.owner].name}: {card.name}"


async def _refusal(actions: list[pb.BattleAction]) -> str:
    ctx, _, _ = context()
    state = await start(ctx)
    with pytest.raises(BadPlan) as refused:
        plan = mapping.plan_back(actions)
        await handlers.commit_plan(ctx, key(ANN), "b1", ANN, state.turn, plan)
    return str(refused.value)


async def test_a_target_off_the_field_is_refused_naming_the_action_as_every_plan_error() -> None:
    ctx, _, _ = context()
    card, owner, named = _first_card(await start(ctx))
    off = pb.BattleTarget(row=-1, col=0)
    told = await _refusal([pb.BattleAction(character=owner, card=card, target=off)])
    assert told == f"your action 1 ({named}): target row -1 is off the 3x3 field (0..2)"


async def test_an_action_without_its_card_is_counted_from_1_too() -> None:
    told = await _refusal([pb.BattleAction(character="ember")])
    assert told.startswith("your action 1: "), told
