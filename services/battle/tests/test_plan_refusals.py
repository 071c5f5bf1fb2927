"""A refused plan as its player reads it, from the request's actions (converted at the
edge, ``mapping.plan_back``, as the server does) to the refusal: every plan error numbers
the actions from 1 and names the card as the screens do ("your action 1 (Kira: Jolt)")."""

from __future__ import annotations

from dataclasses import replace

import pytest
from triad.v1 import common_pb2 as pb

from services.battle import domain, handlers, mapping
from services.battle.domain import BattleState
from services.battle.domain.errors import BadPlan
from services.battle.presenter import battle_view
from services.battle.rules import Action, Plan, Target
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


def _holding(state: BattleState, seat: int, *cards: str) -> BattleState:
    """``state`` with these cards in the seat's hand."""
    assert state.battle is not None
    teams = list(state.battle.teams)
    teams[seat] = replace(teams[seat], hand=cards)
    return replace(state, battle=replace(state.battle, teams=(teams[0], teams[1])))


async def _refused(plan: Plan) -> str:
    """Why bea (seat 1: sable, moss, volt) may not commit ``plan``."""
    ctx, clock, _ = context()
    state = _holding(await start(ctx), 1, "sable.vanish", "moss.sprout")
    with pytest.raises(BadPlan) as refused:
        domain.commit_plan(state, 1, state.turn, plan, ROSTER, clock(), ctx.timing)
    return str(refused.value)


async def test_a_card_aimed_at_its_user_given_a_square_is_told_to_send_no_target() -> None:
    told = await _refused((Action("sable", "sable.vanish", Target(0, 0)),))
    assert told == (
        "your action 1 (Sable Quill: Vanish): target {row 0, col 0} refused: "
        "Vanish targets its user: send no target"
    )


async def test_a_summon_sent_without_its_square_is_told_it_needs_one_of_its_field() -> None:
    told = await _refused((Action("moss", "moss.sprout", Target()),))
    assert told == (
        "your action 1 (Moss Warden: Sprout): no target refused: "
        "Sprout needs a square of your own field (row and col 0..2)"
    )


async def test_a_card_that_summons_is_shown_taking_a_square_and_one_aimed_at_its_user_not() -> None:
    """common.proto: BattleCard.range 'square' takes a square of your own field (a
    summon's), 'self' no target: the view says what the plan check asks."""
    ctx, _, _ = context()
    state = _holding(await start(ctx), 1, "sable.vanish", "moss.sprout")
    hand = {c.id: c.range for c in battle_view(state, 1, ROSTER).you.hand}
    assert hand == {"sable.vanish": "self", "moss.sprout": "square"}


async def _told(seat: int, plan: Plan, cooldowns: tuple[tuple[str, int], ...] = ()) -> str:
    """Why the seat (0 ann: ember, bastion, wisp, all in column 0; 1 bea: sable 0 0,
    moss 1 0, volt 2 1) may not commit ``plan``, its cards in hand."""
    ctx, clock, _ = context()
    state = _holding(await start(ctx), seat, *(a.card for a in plan))
    assert state.battle is not None
    teams = list(state.battle.teams)
    teams[seat] = replace(teams[seat], cooldowns=cooldowns)
    state = replace(state, battle=replace(state.battle, teams=(teams[0], teams[1])))
    with pytest.raises(BadPlan) as refused:
        domain.commit_plan(state, seat, state.turn, plan, ROSTER, clock(), ctx.timing)
    return str(refused.value)


async def test_a_single_target_card_aimed_at_an_empty_square_is_told_the_square_is_empty() -> None:
    """Found from outside: an empty square was refused with the formation's reason ("not
    one behind another unit in its row"). Ann's three stand in column 0: 2 2 is empty."""
    told = await _told(1, (Action("volt", "volt.jolt", Target(2, 2)),))
    assert told.startswith(
        "your action 1 (Kira Volt: Jolt): target {row 2, col 2} refused: "
        "that square of the enemy field is empty; Jolt targets one enemy unit"
    ), told


async def test_an_ally_card_aimed_at_an_empty_square_of_ones_field_is_told_it_is_empty() -> None:
    told = await _told(1, (Action("moss", "moss.bark", Target(0, 2)),))
    assert "target {row 0, col 2} refused: that square of your field is empty; " in told, told


async def test_a_line_card_aimed_at_an_empty_line_is_told_the_line_is_empty() -> None:
    told = await _told(0, (Action("bastion", "bastion.quake", Target(col=2)),))
    assert "target {col 2} refused: that enemy col 2 is empty; " in told, told


async def test_a_target_the_formation_bars_is_not_said_to_be_empty() -> None:
    """A unit behind another in its row keeps the formation's reason alone: bea's Moss
    moved to 2 0, in front of her Kira at 2 1."""
    ctx, clock, _ = context()
    state = _holding(await start(ctx), 0, "ember.spark")
    assert state.battle is not None
    bea = state.battle.teams[1]
    units = tuple(replace(u, square=(2, 0)) if u.ref == "moss" else u for u in bea.units)
    teams = (state.battle.teams[0], replace(bea, units=units))
    state = replace(state, battle=replace(state.battle, teams=teams))
    with pytest.raises(BadPlan) as refused:
        plan = (Action("ember", "ember.spark", Target(2, 1)),)
        domain.commit_plan(state, 0, state.turn, plan, ROSTER, clock(), ctx.timing)
    told = str(refused.value)
    assert "empty" not in told and "not one behind another unit in its row" in told, told


async def test_a_card_on_ct_says_in_how_many_turns_it_is_played_again() -> None:
    told = await _told(1, (Action("sable", "sable.vanish", Target()),), (("sable.vanish", 2),))
    assert told == "your action 1 (Sable Quill: Vanish): on CT, playable again in 2 turns"
