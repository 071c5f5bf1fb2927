"""The engine's API as a service will use it: building a battle, legal plans, purity,
giving up, and the errors that say what to change."""

from __future__ import annotations

import itertools

import pytest

from services.battle.rules import (
    BattleError,
    PlanError,
    Reason,
    check_plan,
    give_up,
    legal_actions,
    legal_plans,
    new_battle,
    resolve_turn,
    set_formation,
)
from services.battle.rules.tests.helpers import ROSTER, A, B, act, battle, team, unit


def test_every_plan_legal_plans_yields_passes_the_plan_check() -> None:
    b = battle(hands=(("a.hit", "a.sweep", "c.summon", "c.heal", "b.guard"), ()))
    plans = list(itertools.islice(legal_plans(ROSTER, b, 0), 400))
    assert plans[0] == () and len(plans) == 400
    for plan in plans:
        check_plan(ROSTER, b, 0, plan)
    assert len(set(plans)) == len(plans)


def test_legal_actions_leave_out_cards_on_ct_and_cards_beyond_the_energy() -> None:
    b = battle(hands=(("b.burn", "c.summon", "a.hit"), ()))
    b = team(b, 0, hand=("b.burn", "c.summon", "a.hit"), cooldowns=(("b.burn", 2),), energy=1)
    cards = {a.card for a in legal_actions(ROSTER, b, 0)}
    assert cards == {"a.hit"}


def test_resolving_is_pure_the_same_inputs_give_the_same_outcome_and_the_input_is_unchanged() -> (
    None
):
    b = battle(hands=(("a.hit", "b.burn", "c.summon"), ("d.cross", "echo.1")))
    plans = (
        (act("a.hit", 0, 0), act("b.burn", 1, 0), act("c.summon", 1, 1)),
        (act("d.cross", 1, 0),),
    )
    before = repr(b)
    first, second = resolve_turn(ROSTER, b, plans, 0), resolve_turn(ROSTER, b, plans, 0)
    assert first == second and repr(b) == before


def test_giving_up_loses_and_a_finished_battle_takes_no_plan() -> None:
    over = give_up(battle(), 0)
    assert over.outcome is not None and (over.outcome.winner, over.outcome.reason) == (
        1,
        Reason.GIVE_UP,
    )
    with pytest.raises(PlanError, match="over"):
        resolve_turn(ROSTER, over, ((), ()), 0)
    with pytest.raises(BattleError, match="over"):
        give_up(over, 1)


@pytest.mark.parametrize(
    ("teams", "formations", "message"),
    [
        ((("alpha", "alpha", "bravo"), B), (None, None), "three different characters"),
        ((("alpha", "bravo", "zulu"), B), (None, None), "unknown characters"),
        ((A, B), (((0, 0), (0, 0), (1, 1)), None), "3 distinct squares"),
        ((A, B), (((0, 0), (0, 3), (1, 1)), None), "off the 3x3 field"),
    ],
)
def test_a_bad_team_or_formation_is_refused(teams, formations, message) -> None:  # type: ignore[no-untyped-def]
    decks: tuple[tuple[str, ...], tuple[str, ...]] = tuple(  # type: ignore[assignment]
        tuple(c for m in t if m in ROSTER.characters for c in ROSTER.characters[m].cards)
        for t in teams
    )
    with pytest.raises(BattleError, match=message):
        new_battle(ROSTER, teams, decks, formations)


def test_a_deck_that_is_not_the_teams_twelve_cards_is_refused() -> None:
    deck = tuple(c for m in A for c in ROSTER.characters[m].cards)
    other = tuple(c for m in B for c in ROSTER.characters[m].cards)
    with pytest.raises(BattleError, match="12 cards"):
        new_battle(ROSTER, (A, B), (deck[:-1] + deck[:1], other))


def test_first_must_name_a_player() -> None:
    with pytest.raises(PlanError, match="first"):
        resolve_turn(ROSTER, battle(), ((), ()), 2)


def test_a_defeated_characters_card_cannot_be_set_even_if_a_state_still_holds_it() -> None:
    b = unit(battle(hands=(("a.hit",), ())), "0.alpha", hp=0, square=None)
    with pytest.raises(PlanError, match="Alpha is defeated"):
        resolve_turn(ROSTER, b, ((act("a.hit", 0, 0),), ()), 0)


def test_a_formation_can_be_set_until_turn_1_resolves() -> None:
    b = set_formation(battle(), 1, ((2, 2), (0, 0), (1, 1)))
    assert [u.square for u in b.teams[1].units] == [(2, 2), (0, 0), (1, 1)]
    with pytest.raises(BattleError, match="distinct"):
        set_formation(b, 0, ((0, 0), (0, 0), (1, 1)))
    after = resolve_turn(ROSTER, b, ((), ()), 0).battle
    with pytest.raises(BattleError, match="before turn 1 resolves"):
        set_formation(after, 0, ((0, 0), (1, 0), (2, 0)))
