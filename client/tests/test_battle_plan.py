"""When each character acts with the plan typed (BATTLE.md 4.3, Decision: a character's
group is that of its first set card this turn; its cards resolve in the order set).
Found from outside: a swift card then a slow one for one character acted in the swift
group, and the plan line said nothing of it."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from client.battle_plan import plan_lines
from client.battle_render import screen
from client.tests.test_battle import views


def planned(view: pb.BattleView, *cards: str) -> pb.BattleView:
    """``view`` with these cards of the hand committed, each aimed at nothing."""
    hand = {card.id: card for card in view.you.hand}
    for card in cards:
        view.plan.add(character=hand[card].owner, card=card, target=pb.BattleTarget())
    view.you.committed = True
    return view


def said(view: pb.BattleView) -> str:
    return " ".join(" ".join(plan_lines(view)).split())


async def test_a_slower_card_after_a_swift_one_is_said_to_act_in_the_swift_group() -> None:
    # ann's hand: Tor Quake (slow), Lio Haste (swift), Ember Kindle (swift), Lio Needle
    # (swift), Lio Mend (normal)
    mine, _ = await views()
    told = said(planned(mine, "wisp.needle", "wisp.mend", "bastion.quake"))
    assert "Acts: Lio swift: Needle, Mend (a normal card); Tor slow: Quake." in told, told
    assert "A character acts in the group of its first card" in told, told


async def test_a_character_acts_in_its_first_cards_group_the_groups_in_their_order() -> None:
    mine, _ = await views()
    told = said(planned(mine, "bastion.quake", "wisp.mend", "wisp.needle", "ember.kindle"))
    # Ember swift first; Lio normal (Mend first, the swift Needle with it); Tor slow last
    assert "Acts: Ember swift: Kindle; Lio normal: Mend, Needle (a swift card); Tor slow" in told
    assert "Acts:" in " ".join(" ".join(screen(mine, rows=24)).split())


async def test_a_plan_in_one_group_says_each_characters_group_and_nothing_more() -> None:
    mine, _ = await views()
    told = said(planned(mine, "wisp.haste", "ember.kindle"))
    # both swift: Lio (SPD 14) before Ember (12)
    assert told.endswith("Acts: Lio swift: Haste; Ember swift: Kindle."), told
