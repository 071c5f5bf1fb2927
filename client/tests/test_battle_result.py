"""The end of a battle on the terminal: which of BATTLE.md 5's tie-breaks settled a
decision, read from the final field; and Sudden Death, turns 8 to 10, in the title."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from client.battle_render import WIDTH, hand_lines, result_line, screen
from services.battle.presenter import battle_view
from services.battle.tests.builders import ANN, BEA, ROSTER, commit, context, start


async def passed_to_the_end() -> pb.BattleView:
    """Ann's final view of a battle both players passed through: three characters each,
    at full HP (her team's 208, Bea's 226)."""
    ctx, _, _ = context()
    state = await start(ctx)
    while not state.over:
        await commit(ctx, "b1", ANN)
        state = await commit(ctx, "b1", BEA)
    return battle_view(state, 0, ROSTER)


async def test_a_decision_on_hp_says_so_and_by_how_much() -> None:
    """Found from outside: a decision read "after turn 10: survivors, then HP", whichever
    settled it, or neither."""
    ann = await passed_to_the_end()
    assert ann.outcome.reason == "decision"
    assert result_line(ann) == "You lost (after turn 10: more HP left, 208 to 226)."


async def test_a_decision_on_characters_standing_says_so() -> None:
    ann = await passed_to_the_end()
    ann.outcome.winner_seat = ann.seat
    ann.opponent.units[0].hp = 0
    ann.opponent.units[0].ClearField("square")
    assert result_line(ann) == "You won (after turn 10: more characters standing, 3 to 2)."


async def test_a_decision_level_on_characters_and_hp_says_the_last_to_act_won() -> None:
    """Level on both counts, the third tie-break settles it: the loser read "You lost
    (after turn 10: survivors, then HP)", though both had as many of each."""
    ann = await passed_to_the_end()
    ann.opponent.units[0].hp -= 18  # 226 - 18: 208, as Ann's team
    said = result_line(ann)
    assert said.startswith("You lost (after turn 10: level at 3 characters and 208 HP"), said
    assert said.endswith("the side whose action resolved last wins)."), said


async def test_both_teams_felled_at_once_say_the_last_to_act_won() -> None:
    ann = await passed_to_the_end()
    for unit in (*ann.you.units, *ann.opponent.units):
        unit.hp = 0
        unit.ClearField("square")
    assert "both teams fell at once" in result_line(ann), result_line(ann)


async def test_turns_8_to_10_say_sudden_death_in_the_title() -> None:
    ann = await passed_to_the_end()
    ann.status, ann.turn = pb.BATTLE_STATUS_SELECTION, 8
    title = screen(ann, rows=24)[0]
    assert "turn 8/10" in title and "Sudden Death (+2 Energy)" in title, title
    assert len(title) <= WIDTH
    ann.turn = 7
    assert "Sudden Death" not in screen(ann, rows=24)[0]


async def test_a_wipeout_says_whose_characters_are_all_down() -> None:
    """Found from outside: "You lost (every character of the loser is down)"."""
    ann = await passed_to_the_end()
    ann.outcome.reason = "wipeout"
    for unit in ann.you.units:
        unit.hp = 0
        unit.ClearField("square")
    ann.outcome.winner_seat = 1 - ann.seat
    assert result_line(ann) == "You lost (all your characters are down)."
    ann.outcome.winner_seat = ann.seat  # as the opponent reads their own loss
    ann.you.CopyFrom(ann.opponent)
    for unit in ann.opponent.units:
        unit.hp = 0
        unit.ClearField("square")
    assert result_line(ann) == "You won (all their characters are down)."
    for unit in ann.you.units:
        unit.ClearField("square")
    assert result_line(ann) == (
        "You won (both teams fell to one card, yours: the side that played it wins)."
    )


def test_every_card_shows_its_ct_and_one_cooling_how_long_still() -> None:
    """Found from outside: a card's CT was shown only once the card was cooling, so a
    player learnt of it by playing it."""
    view = pb.BattleView()
    view.you.units.add(ref="ember", name="Ember")
    view.you.hand.add(owner="ember", name="Wildfire", cost=3, ct=1, range="row", group="normal")
    view.you.hand.add(owner="ember", name="Quake", cost=4, ct=2, range="all", group="slow")
    view.you.hand.add(owner="ember", name="Jab", cost=1, range="single", group="swift")
    view.you.hand[1].cooling = 1
    lines = hand_lines(view)
    assert lines[0].startswith("0 Ember: Wildfire 3E CT 1 row normal -"), lines
    assert lines[1].startswith("1 Ember: Quake 4E CT 2 all slow (on CT 1 more turn) -"), lines
    assert lines[2].startswith("2 Ember: Jab 1E single swift -"), lines
