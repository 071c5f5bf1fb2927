"""The Skirmish field's marks on the terminal: shield, cover and burn beside a unit's
HP, said in words under the fields (views built by the battle service's presenter)."""

from __future__ import annotations

import re
from datetime import datetime

from triad.v1 import common_pb2 as pb

from client.battle_names import label
from client.battle_render import WIDTH, screen, spd_line
from client.tests.test_battle import views


async def test_shield_cover_and_burn_are_marked_on_the_field_and_said_in_words() -> None:
    """Found from outside: a burning unit looked like any other on the terminal's field
    (only shield and cover had a mark, and neither was explained)."""
    mine, _ = await views()
    ours, theirs = mine.you.units[0], mine.opponent.units[1]
    ours.shield, ours.burn = 4, 2
    theirs.cover = 1
    lines = screen(mine, rows=24)
    assert len(lines) <= 22 and all(len(line) <= WIDTH for line in lines)
    text = "\n".join(lines)
    assert f" {ours.hp}+~" in text and f" {theirs.hp}*" in text, text
    said = " ".join(text.split())
    first, second = ours.name.split()[0][:6], theirs.name.split()[0][:6]
    assert f"Marks: your {first} shield 4, burn 2 a turn; their {second} cover 1 turn" in said
    plain = await views()
    assert "Marks:" not in "\n".join(screen(plain[0], rows=24))


async def test_a_summon_waiting_for_its_square_is_said_under_the_fields() -> None:
    """Found from outside: a summon sent to a taken square was in that turn's log only;
    after it the screen showed nothing of it, until it appeared."""
    mine, _ = await views()
    mine.you.reservations.add(summon="thornling", name="Thornling", square={"row": 0, "col": 0})
    mine.opponent.reservations.add(summon="wraith", name="Wraith", square={"row": 2, "col": 1})
    said = " ".join(" ".join(screen(mine, rows=24)).split())
    assert "Reserved: your Thornling for 0 0; their Wraith for 2 1" in said, said
    plain = await views()
    assert "Reserved:" not in "\n".join(screen(plain[0], rows=24))
    # Wrapped, a square stays whole on its line (found from outside: 'for 0' / '    0'),
    # wherever the names put the break.
    for length in range(1, 12):
        waiting, _ = await views()
        for _ in range(6):
            waiting.opponent.reservations.add(name="W" * length, square={"row": 0, "col": 0})
        lines = screen(waiting, rows=24)
        assert all(re.search(r"for \d$", line) is None for line in lines), lines


async def test_every_character_standing_is_listed_by_spd_fastest_first() -> None:
    mine, _ = await views()
    lines = screen(mine, rows=24)
    said = next((line for line in lines if line.startswith("Spd: ")), None)
    assert said is not None, "\n".join(lines)
    standing = [u for t in (mine.you, mine.opponent) for u in t.units if u.HasField("square")]
    fastest = max(standing, key=lambda u: u.spd)
    assert said.startswith("Spd: ") and f"{fastest.name.split()[0][:6]} {fastest.spd}" in said
    assert len(lines) <= 22 and all(len(line) <= WIDTH for line in lines), "\n".join(lines)
    spds = [int(part.rsplit(" ", 1)[1]) for part in said.removeprefix("Spd: ").split(", ")]
    assert spds == sorted(spds, reverse=True) and len(spds) == len(standing), said
    mine.status = pb.BATTLE_STATUS_FINISHED  # the result stands last: no order to read
    assert not any(line.startswith("Spd: ") for line in screen(mine, rows=24))


async def test_a_burn_and_a_changed_spd_say_how_long_they_last() -> None:
    mine, _ = await views()
    ours, theirs = mine.you.units[0], mine.opponent.units[0]
    ours.burn, ours.burn_turns = 2, 1
    theirs.spd, theirs.spd_turns = theirs.spd - 4, 2
    said = " ".join(" ".join(screen(mine, rows=24)).split())
    # Found in review: "1 turn end" read as the moment it ends, not how many remain.
    assert f"your {ours.name.split()[0][:6]} burn 2 a turn, 1 turn end left" in said, said
    assert f"their {theirs.name.split()[0][:6]} {theirs.spd} for 2 turns" in said, said


async def test_a_crowded_screen_keeps_every_card_of_the_hand_before_the_spd_line() -> None:
    """The lines added under the fields (SPD, reservations) never push a card of the hand
    off the 24 rows: the plan is typed by the cards' numbers."""
    mine, _ = await views()
    mine.you.committed = False
    for unit in (*mine.you.units, *mine.opponent.units):
        unit.shield, unit.cover, unit.burn, unit.burn_turns, unit.spd_turns = 9, 2, 3, 2, 2
    for n in range(3):
        mine.you.hand.add(id=f"x.{n}", name=f"Special {n}", owner=mine.you.units[n].ref)
    mine.you.reservations.add(summon="thornling", name="Thornling", square={"row": 0, "col": 0})
    lines = screen(mine, rows=24)
    assert len(lines) <= 22, "\n".join(lines)
    last = len(mine.you.hand) - 1
    assert any(line.startswith(f"{last} ") for line in lines), "\n".join(lines)


async def test_a_card_the_player_never_held_is_named_as_the_server_names_it() -> None:
    """Found from outside: named from its id, the opponent's Barkskin read "Bark"."""
    mine, _ = await views()
    del mine.log[:]
    mine.log.add(step="card", seat=1 - mine.seat, actor="x", card="moss.bark", card_name="Barkskin")
    said = " ".join(screen(mine, rows=24))
    assert "Barkskin" in said and "Bark " not in said, said


async def test_an_opponent_who_left_is_said_away_until_the_cpu_takes_their_seat() -> None:
    """BATTLE.md 5. Found from outside: nothing said the opponent had left until the CPU
    took their seat 30 s later."""
    mine, _ = await views()
    mine.opponent.name = "bea"
    mine.opponent.takeover_time.FromDatetime(datetime(2026, 12, 7, 1, 2, 3))
    lines = screen(mine, rows=24)
    assert len(lines) <= 22 and all(len(line) <= WIDTH for line in lines)
    said = " ".join(" ".join(lines).split())
    assert "bea is away: the CPU takes their seat at 01:02:03 UTC unless they come back." in said
    plain, _ = await views()
    assert "is away" not in "\n".join(screen(plain, rows=24))


async def test_a_tie_in_spd_across_teams_goes_to_the_side_that_committed_first() -> None:
    """BATTLE.md 4.3: same SPD, different teams, the player who committed first acts
    first. Found from outside: the line put the player's unit first, while the CPU,
    which commits at once, acted first."""
    mine, _ = await views()
    ours = next(u for u in mine.you.units if u.HasField("square"))
    theirs = next(u for u in mine.opponent.units if u.HasField("square"))
    theirs.spd = ours.spd
    mine.you.committed = mine.opponent.committed = False
    a, b = label(ours), f"their {label(theirs)}"

    def said() -> str:
        line = spd_line(mine)
        assert line is not None
        return line

    assert said().index(a) < said().index(b), said()
    assert said().endswith(" (same SPD: whoever commits first acts first)"), said()
    mine.opponent.committed = True
    assert said().index(b) < said().index(a), said()
    assert said().endswith(" (same SPD: theirs act first as they committed first)"), said()
    mine.opponent.committed, mine.you.committed = False, True
    assert said().index(a) < said().index(b), said()
    assert said().endswith(" (same SPD: yours act first as you committed first)"), said()
    theirs.spd = ours.spd + 1
    assert "same SPD" not in said(), said()
