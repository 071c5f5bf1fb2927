"""The ranges of BATTLE.md 1 (single, row, column, cross, all, self, ally, allies) and
the caps of the unit effects (HP, Energy)."""

from __future__ import annotations

from services.battle.rules import resolve_turn
from services.battle.rules.state import MAX_ENERGY
from services.battle.rules.tests.helpers import ROSTER, act, battle, get, side, team, unit

SPREAD = ((0, 0), (1, 1), (1, 2))
"""delta at the front of row 0, echo mid row 1, fox behind echo in row 1."""


def _hp(b: object, *uids: str) -> tuple[int, ...]:
    return tuple(get(b, uid).hp for uid in uids)  # type: ignore[arg-type]


def test_cross_reaches_the_target_and_the_occupied_squares_beside_it() -> None:
    b = battle(hands=((), ("d.cross",)), formations=(((0, 0), (1, 0), (0, 1)), None))
    out = resolve_turn(ROSTER, b, ((), (act("d.cross", 0, 0),)), 0)
    assert _hp(out.battle, "0.alpha", "0.bravo", "0.charlie") == (90, 90, 50)
    assert out.log[0].targets == ("0.alpha", "0.charlie", "0.bravo")  # square order


def test_cross_may_be_centred_on_a_unit_behind_another() -> None:
    """BATTLE.md 2's formation binds single-target cards, and Cover takes single-target
    hits: ``cross`` is neither (found in review: the engine refused Arc centred behind a
    front unit, while Cover let its hit through)."""
    b = battle(hands=((), ("d.cross",)), formations=(((0, 0), (1, 0), (0, 1)), None))
    out = resolve_turn(ROSTER, b, ((), (act("d.cross", 0, 1),)), 0)  # charlie, behind alpha
    assert out.log[0].targets == ("0.alpha", "0.charlie")
    assert _hp(out.battle, "0.alpha", "0.bravo", "0.charlie") == (90, 100, 50)


def test_row_and_column_reach_every_unit_in_the_line_whatever_the_formation() -> None:
    b = battle(hands=(("a.sweep",), ("d.col",)), formations=(None, SPREAD))
    out = resolve_turn(ROSTER, b, ((act("a.sweep", row=1),), (act("d.col", col=0),)), 0)
    assert _hp(out.battle, "1.delta", "1.echo", "1.fox") == (40, 76, 76)
    assert _hp(out.battle, "0.alpha", "0.bravo", "0.charlie") == (95, 95, 55)


def test_all_reaches_every_enemy_unit_summons_included() -> None:
    teams = (("alpha", "bravo", "delta"), ("charlie", "echo", "fox"))
    b = unit(battle(teams=teams, hands=((), ("c.summon",))), "0.alpha", hp=49)
    with_imp = resolve_turn(ROSTER, b, ((), (act("c.summon", 2, 2),)), 0).battle
    assert side(with_imp, 0).specials == ("a.ult",)
    out = resolve_turn(ROSTER, with_imp, ((act("a.ult"),), ()), 0)
    ult = out.log[0]
    assert ult.targets == ("1.charlie", "1.echo", "1.fox", "1.s3")  # square order
    assert _hp(out.battle, "1.charlie", "1.echo", "1.fox") == (40, 60, 60)
    assert all(u.uid != "1.s3" for u in side(out.battle, 1).units)  # the imp fell
    assert _hp(out.battle, "0.bravo") == (100,)


def test_ally_and_allies_reach_ones_own_units_and_heal_stops_at_max_hp() -> None:
    b = battle(hands=(("c.heal", "b.shield"), ()))
    b = unit(unit(b, "0.alpha", hp=90), "0.bravo", hp=50)
    out = resolve_turn(ROSTER, b, ((act("c.heal", 0, 0), act("b.shield", 1, 0)), ()), 0)
    assert _hp(out.battle, "0.alpha") == (100,)
    heal = next(e for e in out.log if e.card == "c.heal")
    assert heal.effects[0].amount == 10  # what was healed, not the card's 20


def test_energy_gains_stop_at_12() -> None:
    b = team(battle(hands=((), ("d.charge",))), 1, energy=11)
    out = resolve_turn(ROSTER, b, ((), (act("d.charge"),)), 0)
    assert out.log[0].effects[0].amount == 1
    assert side(out.battle, 1).energy == MAX_ENERGY  # 12, and turn 2's +4 is lost too


def test_self_cards_need_no_target_and_summons_need_a_square_of_their_own_field() -> None:
    b = battle(hands=(("b.guard", "c.summon"), ()))
    out = resolve_turn(ROSTER, b, ((act("b.guard"), act("c.summon", 0, 2)), ()), 0)
    assert get(out.battle, "0.s3").square == (0, 2)
    assert out.log[0].targets == ("0.bravo",)
