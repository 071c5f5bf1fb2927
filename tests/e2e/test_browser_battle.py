"""Skirmish in a real browser: headless Chromium (web/e2e/battles.mjs's ``battle``
scenario) registers on a phone's viewport, starts a practice battle against the CPU,
taps a formation, plays every turn by tapping cards and their targets and committing,
reloads on the way, and reads the final screen; then starts a second battle on the
default formation and gives it up. The whole backend runs as processes;
the helpers (and what is skipped where Chromium or npm are missing) are
tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

from devtools.stack import Stack
from tests.e2e.push_log import sessions
from tests.e2e.test_browser import RESULTS, backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

TURN = re.compile(r"Skirmish · turn (\d+)/10 · (\w+)")


def test_a_whole_practice_battle_played_by_tapping(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "battle", tmp_path / "browser-battle.png")
    # Turn 1 with its plan set, beside the final screen in bench/results/.
    shutil.copyfile(tmp_path / "browser-battle-turn.png", RESULTS / "browser-battle-turn.png")
    phone = played["viewport"]
    # The formation tapped is the one the battle began with, once set (found from
    # outside: "Your formation is ready" beside the button, a player waited, and the
    # deadline played the front column instead).
    assert "press Set the formation" in played["ready"], played["ready"]
    assert sorted(played["placed"]) == ["0,1", "1,0", "2,2"], played["placed"]
    turns = played["turns"]
    assert turns, played
    numbers = [int(TURN.fullmatch(t["status"]).group(1)) for t in turns]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(turns) + 1))  # one commit a turn, in order
    assert len(turns) <= 10
    # Cards were set (with their targets) and every turn's actions came back in the log.
    assert sum(t["set"] for t in turns) >= len(turns) // 2, turns
    assert all(len(t["plan"]) == t["set"] for t in turns), turns
    assert all(t["energy"].startswith("Your plan: ") for t in turns), turns
    assert all(t["log"] for t in turns), turns
    # Each turn's log whole, as the end's is (found from outside: on a phone a turn's
    # last line, a Burn at the turn's end, was under the box's fold, no sign it scrolled).
    assert not any(t["folded"] for t in turns), turns
    # A planned card says what was tapped: a unit by its name, not "-> 0 1".
    plans = [line for t in turns for line in t["plan"]]
    assert not re.search(r"-> \d", " ".join(plans)), plans
    assert any(re.search(r"→ (their|your) [A-Z]", line) for line in plans), plans
    planned = {line.split(" (")[0] for t in turns for line in t["plan"]}
    logged = " ".join(line for t in turns for line in t["log"])
    assert any(name in logged for name in planned), (planned, logged)
    # ... in words: not the API's codes ("damage 6", "team 1", "energy_steal", "@0,2")
    assert not re.search(r" damage \d|\bteam [01]\b|energy_steal|@\d,\d", logged), logged
    assert re.search(r"takes \d+ damage", logged), logged
    if len(turns) >= 2:
        assert TURN.fullmatch(played["resumed"]), played["resumed"]  # came back on reload
    # The end, in words, on a phone: both fields side by side, in view.
    result = played["result"]
    assert re.fullmatch(r"You (won|lost) \(.+\)\.", result), result
    final = played["final"]
    assert TURN.fullmatch(final["status"]).group(2) == "finished"  # type: ignore[union-attr]
    if len(turns) < 10:
        assert re.search(r"all (your|their) characters are down|both teams fell", result), result
    else:
        assert "after turn 10" in result or "down" in result
    assert final["squares"] == 18
    mine, theirs = final["mine"], final["theirs"]
    assert 0 <= mine["x"] < theirs["x"] and theirs["x"] + theirs["width"] <= phone["width"]
    assert mine["width"] > phone["width"] / 3 and mine["y"] == theirs["y"]
    assert any(line.startswith("You ") and "Energy" in line for line in final["lines"])
    assert any(line.startswith("Opponent CPU") for line in final["lines"]), final["lines"]
    assert final["log"]
    # The last turn whole at the end: found from outside, its last line (what ended the
    # battle) was under a scroll box's fold on a phone, with no sign that it scrolled.
    assert final["logFolded"] is False, final
    # The battle's pushes reached the session and were listed.
    assert any("battle: turn" in line for line in played["pushes"]), played["pushes"]
    # ... its end too, which the last commit's reply brings (found from outside: the
    # list ended at "battle: turn 10, selection").
    assert any(line.endswith("finished") for line in played["pushes"]), played["pushes"]
    # Back in the lobby, a second battle starts on the front column (nothing tapped) and
    # is given up on turn 1: lost.
    assert sorted(played["front"]) == ["0,0", "1,0", "2,0"], played["front"]
    assert played["gaveUp"] == "You gave up: you lost.", played["gaveUp"]
    # Found from outside: on a phone each unit's name was cut to one line ("Rook M...",
    # "Pax Iro..."), where the skills and the log name them in full; now it wraps, and
    # its square grows rather than cutting the name or the marks under it.
    assert played["cutNames"] == [], played["cutNames"]
    assert played["outside"] == [], played["outside"]
    # Found from outside: the log read "battle: turn 1, selection" two or three times in
    # the same second (each readiness a new version of the turn): once a turn and phase.
    # (Within a session: the log is kept over a reload, after which the new session
    # is told the battle as it is, under its "session opened".)
    for told in sessions(played["pushes"]):
        said = [line.split(" battle: ", 1)[1] for line in told if " battle: " in line]
        assert all(a != b for a, b in itertools.pairwise(said)), played["pushes"]


SPD_ENTRY = re.compile(r"(your|their) (.+) (\d+)( for \d turns?)?")
SUMMON_ACTS = "summon · acts after characters"


def test_a_battle_says_its_marks_spd_order_and_reserved_summons_in_words(
    backend: Stack, tmp_path: Path
) -> None:
    """As the terminal's screen says them (client/battle_render.py): each unit's Burn with
    the turn ends it has left, the characters by SPD with how long a change holds (a
    summon, which has none, says when it acts instead), and the summons waiting for a
    square that was taken. Before, the page showed a Burn's amount and each cell's SPD
    only (a summon's "spd 0"), and no reservation at all (web/e2e/battle_lines.mjs's
    ``marked``: Wither, Haste, and Raise Wraith onto a square of the team, then onto a
    free one, played until each was seen)."""
    played = play(backend, "marked", tmp_path / "browser-battle-marked.png")
    assert played["started"] == "0", played  # the team asked for, through the API
    seen = played["seen"]
    # No SPD order before turn 1 (the opponent's formation is hidden) nor after the end.
    assert played["formation"]["battle-spd"] == "" and played["ended"]["battle-spd"] == ""
    # Turn 1: the six characters, fastest first, the player's named as theirs.
    first = seen[0]["battle-spd"]
    assert first.startswith("SPD, fastest first: "), seen[0]
    listed = first.split(" (same SPD: ")[0]  # a tie across the teams is said after
    entries = [SPD_ENTRY.fullmatch(e) for e in listed.split(": ", 1)[1].split(", ")]
    assert all(entries) and len(entries) == 6, first
    spds = [int(e[3]) for e in entries if e]
    assert spds == sorted(spds, reverse=True), first
    mine = {e[2] for e in entries if e and e[1] == "your"}
    assert mine == {"Hollis Grave", "Lio Wisp", "Pax Ironleaf"}, first
    # A SPD changed says for how long; a Burn how many turn ends; a reserved summon where.
    spd = " ".join(s["battle-spd"] for s in seen)
    assert re.search(r"(your|their) [A-Z][\w ]+ \d+ for \d turns?", spd), seen
    marks = " ".join(s["battle-marks"] for s in seen)
    burning = r"Marks: .*(your|their) [A-Z][^;]* burn \d+ a turn, \d turn ends? left"
    assert re.search(burning, marks), seen
    reserved = next((s["battle-reserved"] for s in seen if "your" in s["battle-reserved"]), "")
    assert re.fullmatch(r"Reserved: (.+; )?your Wraith for square \d \d(; .+)?", reserved), seen
    # A summon on the field has no SPD (BATTLE.md 4.4: summons act after the characters,
    # in placement order): its square says so, where a character's says its SPD. Before,
    # the Wraith's square read "spd 0", as if it were the slowest unit of a SPD order.
    summons = [said for s in seen for said in s["summons"]]
    assert summons and all(said.startswith(SUMMON_ACTS) for said in summons), seen
    assert not any("spd" in said for said in summons), seen
    characters = [said for s in seen for said in s["characters"]]
    assert characters and all(re.match(r"spd \d+( · |$)", said) for said in characters), seen
