"""One test (or a few) per rule of BATTLE.md 2 to 5, on the fixed test roster."""

from __future__ import annotations

import pytest

from services.battle.rules import (
    Change,
    Fizzle,
    Outcome,
    Plan,
    PlanError,
    Reason,
    Step,
    TurnOutcome,
    resolve_turn,
)
from services.battle.rules.state import ENERGY_BY_TURN, MAX_ENERGY
from services.battle.rules.tests.helpers import ROSTER, A, B, act, battle, get, side, team, unit

ALL_A = ("a.hit", "a.swift", "a.slow", "a.sweep", "b.guard")


def _cards(outcome: TurnOutcome) -> list[tuple[str, str]]:
    return [(e.actor, e.card) for e in outcome.log if e.step is Step.CARD]


def test_groups_act_swift_then_normal_then_slow_and_a_character_keeps_its_first_cards_group() -> (
    None
):
    b = battle(hands=(ALL_A, ("echo.1", "fox.1")))
    plan0 = (act("b.guard"), act("a.slow", 0, 0), act("a.hit", 0, 0))
    plan1 = (act("echo.1", 0, 0), act("fox.1", 0, 0))
    out = resolve_turn(ROSTER, b, (plan0, plan1), 0)
    # bravo (swift) first; alpha's group is slow (its first card), so it acts after the
    # normal group (fox SPD 20, echo SPD 10) with its cards in the order set.
    assert _cards(out) == [
        ("0.bravo", "b.guard"),
        ("1.fox", "fox.1"),
        ("1.echo", "echo.1"),
        ("0.alpha", "a.slow"),
        ("0.alpha", "a.hit"),
    ]


def test_same_spd_goes_to_placement_order_in_a_team_and_to_the_first_committer_across() -> None:
    b = battle(hands=(("a.hit", "b.snipe"), ("echo.1",)))
    plans = ((act("b.snipe", 0, 0), act("a.hit", 0, 0)), (act("echo.1", 0, 0),))
    assert [a for a, _ in _cards(resolve_turn(ROSTER, b, plans, 1))] == [
        "1.echo",
        "0.alpha",
        "0.bravo",
    ]
    assert [a for a, _ in _cards(resolve_turn(ROSTER, b, plans, 0))] == [
        "0.alpha",
        "0.bravo",
        "1.echo",
    ]


def test_spd_changes_reorder_from_the_next_turn_for_their_turns() -> None:
    b = battle(hands=(("c.haste", "a.hit"), ("echo.1", "echo.2", "echo.3")))
    plan0 = (act("c.haste", 0, 0), act("a.hit", 0, 0))
    out = resolve_turn(ROSTER, b, (plan0, (act("echo.1", 0, 0),)), 1)
    # alpha and echo both SPD 10 this turn: the first committer (1) goes first
    assert [a for a, _ in _cards(out)] == ["0.charlie", "1.echo", "0.alpha"]
    b2 = team(team(out.battle, 0, hand=("a.swift",)), 1, hand=("echo.2",))
    out2 = resolve_turn(ROSTER, b2, ((act("a.swift", 0, 0),), (act("echo.2", 0, 0),)), 1)
    assert [a for a, _ in _cards(out2)] == ["0.alpha", "1.echo"]  # swift group anyway
    b3 = team(team(out.battle, 0, hand=("a.hit",)), 1, hand=("echo.2",))
    out3 = resolve_turn(ROSTER, b3, ((act("a.hit", 0, 0),), (act("echo.2", 0, 0),)), 1)
    assert [a for a, _ in _cards(out3)] == ["0.alpha", "1.echo"]  # SPD 20 now
    b4 = team(team(out3.battle, 0, hand=("a.slow", "a.hit")), 1, hand=("echo.3",))
    out4 = resolve_turn(ROSTER, b4, ((act("a.hit", 0, 0),), (act("echo.3", 0, 0),)), 1)
    assert [a for a, _ in _cards(out4)] == ["1.echo", "0.alpha"]  # the +10 lasted one turn


def test_formation_hides_a_unit_behind_another_from_single_target_cards() -> None:
    b = battle(
        formations=(None, ((0, 0), (0, 1), (2, 2))), hands=(("a.hit", "b.snipe", "a.sweep"), ())
    )
    with pytest.raises(PlanError, match="target"):
        resolve_turn(ROSTER, b, ((act("a.hit", 0, 1),), ()), 0)
    out = resolve_turn(ROSTER, b, ((act("b.snipe", 0, 1), act("a.hit", 2, 2)), ()), 0)
    assert get(out.battle, "1.echo").hp == 80 - 6  # ignore_formation reaches the back
    assert get(out.battle, "1.fox").hp == 80 - 10  # nothing in front of it in its row


def test_cover_takes_single_target_hits_aimed_at_allies_but_not_area_hits() -> None:
    b = battle(hands=(("a.hit",), ("echo.1", "echo.2", "fox.3")))
    b = unit(b, "0.bravo", cover=1)
    out = resolve_turn(ROSTER, b, ((), (act("echo.1", 0, 0), act("fox.3", 1, 0))), 0)
    assert get(out.battle, "0.alpha").hp == 100
    assert get(out.battle, "0.bravo").hp == 100 - 1 - 3
    echo = next(e for e in out.log if e.card == "echo.1")
    assert echo.targets == ("0.bravo",) and "covered by 0.bravo" in echo.note


def test_shield_absorbs_damage_and_ends_with_the_turn() -> None:
    b = battle(hands=(("b.shield",), ("fox.4",)))
    out = resolve_turn(ROSTER, b, ((act("b.shield", 0, 0),), (act("fox.4", 0, 0),)), 0)
    alpha = get(out.battle, "0.alpha")
    assert (alpha.hp, alpha.shield) == (100, 0)
    effects = {(e.change, e.amount) for e in out.log[1].effects}
    assert (Change.ABSORBED, 4) in effects and (Change.DAMAGE, 0) in effects


def test_burn_deals_its_damage_at_each_of_its_turn_ends_and_can_defeat() -> None:
    b = battle(hands=(("b.burn",), ()))
    b = unit(b, "1.delta", hp=8)
    out = resolve_turn(ROSTER, b, ((act("b.burn", 0, 0),), ()), 0)
    assert get(out.battle, "1.delta").hp == 3
    out2 = resolve_turn(ROSTER, out.battle, ((), ()), 0)
    delta = get(out2.battle, "1.delta")
    assert delta.hp == 0 and not delta.alive
    assert any(e.step is Step.BURN for e in out2.log)


def test_a_card_on_ct_cannot_be_set_until_its_ct_has_passed() -> None:
    b = battle(hands=(("b.burn",), ()))
    b1 = resolve_turn(ROSTER, b, ((act("b.burn", 0, 0),), ()), 0).battle
    for _ in range(2):  # CT 2: out of the next two turns even when drawn
        b1 = team(b1, 0, hand=("b.burn",))
        with pytest.raises(PlanError, match="on CT"):
            resolve_turn(ROSTER, b1, ((act("b.burn", 0, 0),), ()), 0)
        b1 = resolve_turn(ROSTER, b1, ((), ()), 0).battle
    b1 = team(b1, 0, hand=("b.burn",))
    resolve_turn(ROSTER, b1, ((act("b.burn", 0, 0),), ()), 0)


def test_energy_recovers_by_the_table_carries_over_and_stops_at_12() -> None:
    b = battle()
    assert side(b, 0).energy == ENERGY_BY_TURN[0]
    for turn in range(2, 6):
        b = resolve_turn(ROSTER, b, ((), ()), 0).battle
        assert side(b, 0).energy == min(MAX_ENERGY, sum(ENERGY_BY_TURN[:turn]))


def test_energy_is_paid_for_every_set_card_and_gained_and_stolen_by_effects() -> None:
    b = battle(hands=(("c.steal", "c.heal"), ("d.charge",)))
    out = resolve_turn(
        ROSTER, b, ((act("c.steal", 0, 0), act("c.heal", 0, 0)), (act("d.charge"),)), 0
    )
    # player 0: 5 - 2 paid, +2 stolen; player 1: 5 + 2 charged - 2 stolen; +4 each at turn 2
    assert (side(out.battle, 0).energy, side(out.battle, 1).energy) == (5 + 4, 5 + 4)


def test_a_plan_costing_more_than_the_energy_held_is_refused() -> None:
    b = battle(hands=((), ("d.nuke",)))
    with pytest.raises(PlanError, match="costs 6 Energy, 5 held"):
        resolve_turn(ROSTER, b, ((), (act("d.nuke"),)), 0)


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ((act("a.hit", 0, 0), act("a.hit", 0, 0)), "once per turn"),
        ((act("b.snipe", 0, 0),), "not in the hand"),
        ((act("a.hit", 5, 5),), "target"),
        ((act("a.hit"),), "target"),
    ],
)
def test_an_illegal_plan_is_refused_with_its_reason(plan: Plan, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        resolve_turn(ROSTER, battle(hands=(("a.hit",), ())), (plan, ()), 0)


def test_summoning_on_a_free_square_places_the_unit_which_acts_this_turn() -> None:
    b = battle(hands=(("c.summon",), ()))
    out = resolve_turn(ROSTER, b, ((act("c.summon", 1, 1),), ()), 0)
    imp = get(out.battle, "0.s3")
    assert imp.square == (1, 1) and imp.summon
    assert [e.step for e in out.log] == [Step.CARD, Step.SUMMON]
    assert get(out.battle, "1.delta").hp == 40 - 3  # the least HP, then square order


def test_summoning_on_an_occupied_square_reserves_it_until_the_square_is_free() -> None:
    b = battle(hands=(("c.summon", "a.hit"), ("fox.4",)))
    b = unit(b, "0.alpha", hp=4)
    out = resolve_turn(ROSTER, b, ((act("c.summon", 1, 0),), ()), 0)
    assert side(out.battle, 0).reservations and all(not u.summon for u in side(out.battle, 0).units)
    out2 = resolve_turn(ROSTER, out.battle, ((), ()), 0)  # bravo still on (1, 0): waits
    assert side(out2.battle, 0).reservations
    moved = unit(out2.battle, "0.bravo", square=(1, 2))
    out3 = resolve_turn(ROSTER, moved, ((), ()), 0)
    assert get(out3.battle, "0.s3").square == (1, 0)
    assert out3.log[-1].step is Step.APPEAR and not side(out3.battle, 0).reservations


def test_a_card_whose_user_is_defeated_first_does_nothing_and_its_energy_is_spent() -> None:
    b = battle(hands=(("a.slow",), ("fox.4",)))
    b = unit(b, "0.alpha", hp=4)
    out = resolve_turn(ROSTER, b, ((act("a.slow", 0, 0),), (act("fox.4", 0, 0),)), 0)
    slow = next(e for e in out.log if e.card == "a.slow")
    assert slow.fizzled is Fizzle.USER_DEFEATED and not slow.effects
    assert get(out.battle, "1.delta").hp == 40


def test_a_gone_target_is_replaced_by_the_nearest_legal_one() -> None:
    b = battle(hands=(("a.swift", "a.hit"), ()))
    b = unit(b, "1.delta", hp=5)
    out = resolve_turn(ROSTER, b, ((act("a.swift", 0, 0), act("a.hit", 0, 0)), ()), 0)
    assert out.log[1].targets == ("1.echo",) and "retargeted" in out.log[1].note


def test_a_target_still_there_is_hit_though_a_summon_arrived_in_front_of_it() -> None:
    # BATTLE.md 2 limits what a card may choose; 4.3 replaces only a target that is gone
    front_open = ((0, 1), (1, 0), (2, 0))  # alpha at the back of row 0, nothing before it
    b = battle(teams=(B, A), hands=(("echo.4",), ("c.summon",)), formations=(None, front_open))
    plans = ((act("echo.4", 0, 1),), (act("c.summon", 0, 0),))
    out = resolve_turn(ROSTER, b, plans, 0)
    summoned, hit = out.log[0], out.log[1]
    assert (summoned.card, hit.card) == ("c.summon", "echo.4")  # charlie (SPD 15) first
    assert hit.targets == ("1.alpha",) and not hit.note
    assert get(out.battle, "1.alpha").hp == 96
    later = team(out.battle, 0, hand=("echo.3",))
    with pytest.raises(PlanError, match=r"refused: .* one of"):  # the next choice is bound
        resolve_turn(ROSTER, later, ((act("echo.3", 0, 1),), ()), 0)


def test_a_defeated_characters_cards_leave_the_deck_and_the_hand() -> None:
    b = battle(hands=((), ("d.cross", "echo.1", "fox.1")))
    b = unit(b, "0.alpha", hp=10)
    out = resolve_turn(ROSTER, b, ((), (act("d.cross", 0, 0),)), 0)
    t0 = side(out.battle, 0)
    assert not any(c.startswith("a.") for c in (*t0.deck, *t0.hand))
    assert len(t0.deck) == 8 and len(t0.hand) == 5


def test_with_two_characters_defeated_the_deck_and_hand_limit_are_four() -> None:
    b = battle(hands=((), ("d.col",)))
    b = unit(unit(b, "0.alpha", hp=1), "0.bravo", hp=1)
    out = resolve_turn(ROSTER, b, ((), (act("d.col", col=0),)), 0)
    assert out.battle.outcome is None
    t0 = side(out.battle, 0)
    assert len(t0.deck) == 4 and sorted(t0.hand) == sorted(t0.deck)


def test_drawing_follows_deck_order_from_the_top_again_skipping_cards_in_hand() -> None:
    b = battle(hands=(ALL_A, ()))
    out = resolve_turn(ROSTER, b, ((act("a.hit", 0, 0), act("a.sweep", row=0)), ()), 0)
    assert side(out.battle, 0).hand == ("a.swift", "a.slow", "b.guard", "b.shield", "b.snipe")


def test_specials_unlock_at_turn_end_outside_the_hand_limit_and_are_used_once() -> None:
    b = battle(hands=((), ("fox.4",)))
    b = unit(b, "0.alpha", hp=52)
    out = resolve_turn(ROSTER, b, ((), (act("fox.4", 0, 0),)), 0)
    t0 = side(out.battle, 0)
    assert t0.specials == ("a.ult",) and len(t0.hand) == 5
    assert any(e.step is Step.UNLOCK and e.card == "a.ult" for e in out.log)
    used = resolve_turn(ROSTER, out.battle, ((act("a.ult"),), ()), 0).battle
    assert side(used, 0).specials == () and side(used, 0).used_specials == ("a.ult",)
    assert all(u.hp == u.max_hp - 20 or u.hp == 0 for u in side(used, 1).units)


@pytest.mark.parametrize(
    ("setup", "special"),
    [
        (lambda b: unit(b, "0.alpha", hp=0, square=None), "c.ult"),
        (lambda b: b, ""),
    ],
)
def test_ally_defeated_unlocks_only_after_a_defeat(setup: object, special: str) -> None:
    out = resolve_turn(ROSTER, setup(battle()), ((), ()), 0)  # type: ignore[operator]
    assert ("c.ult" in side(out.battle, 0).specials) == bool(special)


def test_turn_and_damage_dealt_conditions_unlock() -> None:
    b = battle(
        teams=(("bravo", "delta", "echo"), ("alpha", "charlie", "fox")), hands=(("d.col",), ())
    )
    b = unit(b, "0.delta", damage_dealt=25)
    out = resolve_turn(ROSTER, b, ((act("d.col", col=0),), ()), 0)
    assert "d.ult" in side(out.battle, 0).specials and "b.ult" not in side(out.battle, 0).specials
    b3 = resolve_turn(ROSTER, resolve_turn(ROSTER, out.battle, ((), ()), 0).battle, ((), ()), 0)
    assert "b.ult" in side(b3.battle, 0).specials


def test_wipeout_ends_the_battle_at_once() -> None:
    b = battle(hands=(("a.sweep", "a.hit"), ("d.nuke",)))
    b = team(b, 1, energy=6)
    b = unit(unit(unit(b, "0.alpha", hp=5), "0.bravo", hp=5), "0.charlie", hp=5)
    out = resolve_turn(ROSTER, b, ((act("a.hit", 0, 0),), (act("d.nuke"),)), 0)
    assert out.battle.outcome is not None
    assert (out.battle.outcome.winner, out.battle.outcome.reason) == (1, Reason.WIPEOUT)
    assert out.log[-1].card == "d.nuke" and out.battle.turn == 1


def test_after_turn_10_more_characters_then_more_hp_then_the_last_actor_wins() -> None:
    b = battle()
    for _ in range(9):
        b = resolve_turn(ROSTER, b, ((), ()), 0).battle
    assert b.turn == 10
    fewer = unit(b, "0.alpha", hp=0, square=None)
    assert resolve_turn(ROSTER, fewer, ((), ()), 0).battle.outcome.winner == 1  # type: ignore[union-attr]
    weaker = unit(b, "1.fox", hp=79)
    assert resolve_turn(ROSTER, weaker, ((), ()), 0).battle.outcome.winner == 0  # type: ignore[union-attr]
    even = team(team(b, 0, hand=("a.sweep",)), 1, hand=("fox.4",))
    even = unit(unit(even, "0.alpha", hp=40), "0.bravo", hp=80)
    even = unit(unit(even, "1.fox", hp=60), "1.echo", hp=80)
    last = resolve_turn(ROSTER, even, ((act("a.sweep", row=0),), (act("fox.4", 0, 0),)), 1)
    # 180 HP a side, 4 damage each: level; fox (SPD 20) acted first, alpha last
    assert last.battle.outcome == Outcome(0, Reason.DECISION)
