"""BATTLE.md 4.4: "Summoned units act in placement order" (the order they were placed
on the field in the battle, whichever team placed them)."""

from __future__ import annotations

from services.battle.rules import Entry, Step, resolve_turn
from services.battle.rules.codec import decode_battle, encode_battle
from services.battle.rules.tests.helpers import ROSTER, act, battle

TEAMS = (("alpha", "bravo", "charlie"), ("charlie", "delta", "echo"))


def _summons(log: tuple[Entry, ...]) -> list[str]:
    return [e.actor for e in log if e.step is Step.SUMMON]


def test_summons_act_in_the_order_they_were_placed_across_both_teams() -> None:
    b = battle(teams=TEAMS, hands=(("c.summon",), ("c.summon",)))
    # turn 1: only team 1 summons; turn 2: team 0 summons and commits first
    turn1 = resolve_turn(ROSTER, b, ((), (act("c.summon", 1, 1),)), 0)
    assert _summons(turn1.log) == ["1.s3"]
    turn2 = resolve_turn(ROSTER, turn1.battle, ((act("c.summon", 1, 1),), ()), 0)
    # 1.s3 was placed a turn before 0.s3: it acts first, though team 0 committed first
    assert _summons(turn2.log) == ["1.s3", "0.s3"]
    # the order survives the battle's JSON (recorded events) and the next turn
    again = decode_battle(encode_battle(turn2.battle))
    assert again == turn2.battle
    assert _summons(resolve_turn(ROSTER, again, ((), ()), 0).log) == ["1.s3", "0.s3"]


def test_summons_placed_in_one_turn_act_in_the_order_their_cards_resolved() -> None:
    b = battle(teams=TEAMS, hands=(("c.summon",), ("c.summon",)))
    # same SPD: the first committer's charlie summons first, and its imp acts first
    for first in (0, 1):
        out = resolve_turn(ROSTER, b, ((act("c.summon", 1, 1),), (act("c.summon", 1, 1),)), first)
        assert _summons(out.log) == [f"{first}.s3", f"{1 - first}.s3"]
