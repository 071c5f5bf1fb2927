"""BATTLE.md rules and Decisions that ``test_rules.py`` leaves unpinned, each read
literally from the text, on the fixed test roster."""

from __future__ import annotations

import pytest

from services.battle.rules import Change, Fizzle, PlanError, Reason, Step, resolve_turn
from services.battle.rules.resolve import _check_wipeout
from services.battle.rules.state import ENERGY_BY_TURN, MAX_ENERGY, Burn
from services.battle.rules.tests.helpers import ROSTER, act, battle, get, side, team, unit
from services.battle.rules.turns import draw
from services.battle.rules.work import Work


def test_the_energy_table_is_the_rulebooks_and_sudden_death_recovers_6() -> None:
    # BATTLE.md 3: 5, 4, 4, 4, 4, 4, 4, 6, 6, 6 (turns 8-10 include their +2)
    assert ENERGY_BY_TURN == (5, 4, 4, 4, 4, 4, 4, 6, 6, 6) and MAX_ENERGY == 12
    b = battle()
    for _ in range(6):
        b = resolve_turn(ROSTER, b, ((), ()), 0).battle
    assert b.turn == 7
    b = team(team(b, 0, energy=0), 1, energy=11)
    b8 = resolve_turn(ROSTER, b, ((), ()), 0).battle
    assert b8.turn == 8
    assert (side(b8, 0).energy, side(b8, 1).energy) == (6, 12)  # 11 + 6 stops at 12


def test_drawing_wraps_round_to_the_top_in_the_same_order_skipping_cards_in_hand() -> None:
    b = battle()
    deck = side(b, 0).deck
    # hand: deck[0], deck[2], deck[3], deck[4]; the cursor at the last card
    b = team(b, 0, hand=(deck[0], deck[2], deck[3], deck[4]), cursor=11)
    work = Work(b, ROSTER)
    draw(work.teams[0])
    assert work.teams[0].hand == [deck[0], deck[2], deck[3], deck[4], deck[11]]
    assert work.teams[0].cursor == 0
    work.teams[0].hand = [deck[0], deck[2], deck[3], deck[4]]
    draw(work.teams[0])  # from the top again: deck[0] is in hand, skipped; deck[1] taken
    assert work.teams[0].hand[-1] == deck[1] and work.teams[0].cursor == 2


def test_a_card_on_ct_is_drawn_but_cannot_be_set() -> None:
    b = battle(hands=(("b.burn",), ()))
    out = resolve_turn(ROSTER, b, ((act("b.burn", 0, 0),), ()), 0).battle
    assert dict(side(out, 0).cooldowns).get("b.burn")
    t0 = side(out, 0)
    # put b.burn next in deck order: the draw takes it although it is on CT
    deck = tuple(c for c in t0.deck if c != "b.burn")
    out = team(out, 0, deck=(*deck[: t0.cursor], "b.burn", *deck[t0.cursor :]), hand=())
    work = Work(out, ROSTER)
    draw(work.teams[0])
    assert "b.burn" in work.teams[0].hand
    drawn = team(out, 0, hand=tuple(work.teams[0].hand), cursor=work.teams[0].cursor)
    with pytest.raises(PlanError, match="on CT"):
        resolve_turn(ROSTER, drawn, ((act("b.burn", 0, 0),), ()), 0)


def test_a_defeated_users_card_does_nothing_and_its_energy_is_not_refunded() -> None:
    b = battle(hands=(("c.heal",), ("fox.4",)))
    b = unit(b, "0.charlie", hp=4)
    # fox (normal, SPD 20) acts before charlie (normal, SPD 15) and fells it
    out = resolve_turn(ROSTER, b, ((act("c.heal", 0, 0),), (act("fox.4", 2, 0),)), 0)
    heal = next(e for e in out.log if e.card == "c.heal")
    assert heal.fizzled is Fizzle.USER_DEFEATED and not heal.effects
    assert side(out.battle, 0).energy == 5 - 1 + ENERGY_BY_TURN[1]


def test_the_first_cover_unit_in_placement_order_takes_the_hit() -> None:
    b = battle(hands=((), ("echo.4",)))
    b = unit(unit(b, "0.bravo", cover=1), "0.charlie", cover=1)
    out = resolve_turn(ROSTER, b, ((), (act("echo.4", 0, 0),)), 0)
    hit = next(e for e in out.log if e.card == "echo.4")
    assert hit.targets == ("0.bravo",) and hit.note == "covered by 0.bravo"
    assert get(out.battle, "0.bravo").hp == 96 and get(out.battle, "0.charlie").hp == 60


def test_cover_ends_when_its_unit_falls() -> None:
    b = battle(hands=((), ("fox.4", "echo.4")))
    b = unit(unit(b, "0.bravo", cover=1, hp=4), "0.charlie", cover=0)
    # fox (SPD 20) fells bravo through the cover it holds; echo's hit then lands as aimed
    out = resolve_turn(ROSTER, b, ((), (act("fox.4", 0, 0), act("echo.4", 2, 0))), 0)
    assert not get(out.battle, "0.bravo").alive
    assert get(out.battle, "0.alpha").hp == 100
    assert get(out.battle, "0.charlie").hp == 60 - 4


def test_a_special_not_unlocked_or_already_used_cannot_be_set() -> None:
    b = battle()
    with pytest.raises(PlanError, match="not in the hand"):
        resolve_turn(ROSTER, b, ((act("a.ult"),), ()), 0)
    unlocked = team(b, 0, specials=("a.ult",))
    used = resolve_turn(ROSTER, unlocked, ((act("a.ult"),), ()), 0).battle
    assert side(used, 0).used_specials == ("a.ult",)
    with pytest.raises(PlanError, match="not in the hand"):
        resolve_turn(ROSTER, used, ((act("a.ult"),), ()), 0)


def test_burn_comes_before_the_special_unlock_check_at_the_turn_end() -> None:
    b = battle(
        teams=(("bravo", "echo", "fox"), ("alpha", "charlie", "delta")), hands=(("b.burn",), ())
    )
    b = unit(b, "1.alpha", hp=52)  # alpha's Special unlocks below 50% HP
    out = resolve_turn(ROSTER, b, ((act("b.burn", 0, 0),), ()), 0)
    steps = [e.step for e in out.log]
    assert steps.index(Step.BURN) < steps.index(Step.UNLOCK)
    assert "a.ult" in side(out.battle, 1).specials and get(out.battle, "1.alpha").hp == 47


def test_a_shield_still_up_at_the_turn_end_absorbs_burn_and_then_ends() -> None:
    # BATTLE.md 1: shield N "absorbs damage this turn"; burn is "damage at turn end"
    b = battle(hands=(("b.burn", "b.shield"), ()))
    b = unit(b, "1.delta", burns=(Burn(4, 2),))  # 4 more at this turn end (b.burn adds 5)
    plans = ((act("b.burn", 0, 0),), ())
    bare = resolve_turn(ROSTER, b, plans, 0)
    shielded = resolve_turn(ROSTER, unit(b, "1.delta", shield=6), plans, 0)
    assert get(bare.battle, "1.delta").hp == 40 - 9
    assert get(shielded.battle, "1.delta").hp == 40 - 3
    burn = next(e for e in shielded.log if e.step is Step.BURN and e.actor == "1.delta")
    assert [(e.change, e.amount) for e in burn.effects] == [
        (Change.ABSORBED, 6),
        (Change.DAMAGE, 3),
    ]
    assert get(shielded.battle, "1.delta").shield == 0  # shields end after the Burn


def test_a_burn_that_wipes_out_a_team_at_the_turn_end_ends_the_battle() -> None:
    b = battle(hands=(("b.burn",), ()))
    b = unit(
        unit(unit(b, "1.delta", hp=5), "1.echo", hp=0, square=None), "1.fox", hp=0, square=None
    )
    out = resolve_turn(ROSTER, b, ((act("b.burn", 0, 0),), ()), 0)
    assert out.battle.outcome is not None
    assert (out.battle.outcome.winner, out.battle.outcome.reason) == (0, Reason.WIPEOUT)
    assert out.log[-1].step is Step.BURN and out.battle.turn == 1


def test_a_summons_action_that_wipes_out_a_team_ends_the_battle_before_the_turn_end() -> None:
    b = battle(hands=(("c.summon", "b.burn"), ()))
    b = unit(
        unit(unit(b, "1.delta", hp=3), "1.echo", hp=0, square=None), "1.fox", hp=0, square=None
    )
    out = resolve_turn(ROSTER, b, ((act("c.summon", 1, 1), act("b.burn", 0, 0)), ()), 0)
    assert out.battle.outcome is not None and out.battle.outcome.winner == 0
    assert out.log[-1].step is Step.SUMMON  # no burn step: the battle ended at once


def test_both_teams_wiped_out_by_one_card_the_team_that_played_it_wins() -> None:
    b = battle()
    for t in (0, 1):
        for u in side(b, t).units:
            b = unit(b, u.uid, hp=0, square=None)
    for acting in (0, 1):
        work = Work(b, ROSTER)
        work.defeats = 6
        _check_wipeout(work, acting)
        assert work.outcome is not None
        assert (work.outcome.winner, work.outcome.reason) == (acting, Reason.WIPEOUT)


def test_a_gone_line_is_replaced_by_the_nearest_line_of_the_same_range() -> None:
    b = battle(hands=(("a.swift", "a.sweep"), ()))
    b = unit(b, "1.delta", hp=5)  # alone in row 0: the swift hit empties the row
    out = resolve_turn(ROSTER, b, ((act("a.swift", 0, 0), act("a.sweep", row=0)), ()), 0)
    sweep = next(e for e in out.log if e.card == "a.sweep")
    assert sweep.targets == ("1.echo",) and "retargeted" in sweep.note
    assert get(out.battle, "1.echo").hp == 80 - 4 and get(out.battle, "1.fox").hp == 80
