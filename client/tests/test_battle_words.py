"""The battle screen's words as the player reads them: a refusal of a plan in the words
typed, a card on CT with when it is played again, an opponent whose seat the CPU took,
two units of one kind told apart, whose a Cover unit is, whose each field is."""

from __future__ import annotations

import pytest
from triad.v1 import common_pb2 as pb

from client.battle_log import log_lines
from client.battle_names import team_labels
from client.battle_render import fields, screen
from client.battle_typed import parse_plan, refusal_words
from client.connection import ClientError
from client.tests.test_battle import views

EMPTY = (
    "invalid argument: your action 2 (Pax Ironleaf: Thrust): target {row 2, col 2} "
    "refused: that square of the enemy field is empty; Thrust targets one enemy unit, not "
    "one behind another unit in its row: one of [{row 0, col 0}, {row 1, col 0}]"
)


def test_a_refusal_names_the_card_by_its_number_and_squares_as_typed() -> None:
    """Found from outside: "action 1" for the card typed first (the hand counts from 0:
    it read as card 1), and squares written "{row 0, col 0}" where the player types 0 0."""
    told = refusal_words(EMPTY, "1 0 1; 3 2 2")
    assert told == (
        "invalid argument: your card 3 (Pax Ironleaf: Thrust): target 2 2 refused: that "
        "square of the enemy field is empty; Thrust targets one enemy unit, not one behind "
        "another unit in its row: one of 0 0, 1 0"
    )
    lines = refusal_words("your action 1 (Moss: Bramble): target {col 2} refused", "4 col 2")
    assert lines == "your card 4 (Moss: Bramble): target col 2 refused"


async def test_a_card_on_ct_is_refused_saying_when_it_is_played_again() -> None:
    mine, _ = await views()
    mine.you.hand[1].cooling = 2
    with pytest.raises(ClientError, match=r"card 1 \(Haste\) is on CT: playable again in 2 turns"):
        parse_plan("0; 1 0 0", mine)


async def test_an_opponent_whose_seat_the_cpu_took_is_said_plainly() -> None:
    """Found from outside: after the CPU took the opponent's seat the host saw "(CPU)"
    and no more."""
    mine, _ = await views()
    mine.opponent.cpu = True
    text = " ".join(" ".join(screen(mine, rows=24)).split())
    assert "bea left: the CPU plays their seat now (they lose this battle)." in text, text
    assert "Opponent bea: Energy" in text and "(played by the CPU)" in text, text
    mine.opponent.name = "CPU"  # a practice's CPU, from the start
    text = " ".join(" ".join(screen(mine, rows=24)).split())
    assert "left:" not in text and "Opponent CPU: Energy 12, hand 5 (CPU)" in text, text


async def test_two_summons_of_one_kind_are_told_apart_on_the_field_and_in_the_log() -> None:
    """Found from outside: two Thornlings both read "Thornl"."""
    mine, _ = await views()
    for n, row in ((3, 0), (12, 1)):
        mine.you.units.add(
            uid=f"{mine.seat}.s{n}",
            ref="thornling",
            name="Thornling",
            summon=True,
            hp=30,
            max_hp=30,
            square=pb.BattleSquare(row=row, col=1),
        )
    labels = team_labels(mine.you)
    assert labels[f"{mine.seat}.s3"] == "Thorn3" and labels[f"{mine.seat}.s12"] == "Thor12"
    grid = "\n".join(fields(mine))
    assert "Thorn3 30" in grid and "Thor12 30" in grid, grid
    mine.log.add(
        seat=mine.seat,
        actor=f"{mine.seat}.s12",
        card="thornling.thorn",
        card_name="Thorn",
        effects=[pb.BattleEffect(unit=mine.opponent.units[0].uid, change="damage", amount=5)],
    )
    assert log_lines(mine)[-1].startswith("Thor12 Thorn -> their Sable takes 5 damage")


async def test_a_cover_unit_is_said_yours_or_theirs() -> None:
    """Found from outside: "(covered by Pax Ironleaf)" with a Pax on both teams: whose?
    A Cover unit takes a hit aimed at its allies, so it stands against the actor."""
    mine, _ = await views()
    mine.ClearField("log")
    sable = mine.opponent.units[0]
    mine.log.add(
        seat=mine.seat,
        actor=mine.you.units[0].uid,
        card="ember.flare",
        effects=[pb.BattleEffect(unit=sable.uid, change="damage", amount=9)],
        note="covered by Sable Quill",
    )
    said = " ".join(line.strip() for line in log_lines(mine))
    assert said.endswith("their Sable takes 9 damage (covered by their Sable)"), said


async def test_the_fields_say_whose_each_is() -> None:
    mine, _ = await views()
    head = fields(mine)[0]
    assert head.split() == ["you", "|", "opponent"], head
    assert head.index("|") == fields(mine)[1].index("|"), "over the fields' divide"
