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
from tests.e2e.test_browser import RESULTS, backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

TURN = re.compile(r"Skirmish · turn (\d+)/10 · (\w+)")


def test_a_whole_practice_battle_played_by_tapping(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "battle", tmp_path / "browser-battle.png")
    # Turn 1 with its plan set, beside the final screen in bench/results/.
    shutil.copyfile(tmp_path / "browser-battle-turn.png", RESULTS / "browser-battle-turn.png")
    phone = played["viewport"]
    # The formation tapped is the one the battle began with.
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
    assert TURN.fullmatch(final["status"]).group(2) == "over"  # type: ignore[union-attr]
    if len(turns) < 10:
        assert "every character of the loser is down" in result
    else:
        assert "after turn 10" in result or "down" in result
    assert final["squares"] == 18
    mine, theirs = final["mine"], final["theirs"]
    assert 0 <= mine["x"] < theirs["x"] and theirs["x"] + theirs["width"] <= phone["width"]
    assert mine["width"] > phone["width"] / 3 and mine["y"] == theirs["y"]
    assert any(line.startswith("You ") and "Energy" in line for line in final["lines"])
    assert any(line.startswith("Opponent CPU") for line in final["lines"]), final["lines"]
    assert final["log"]
    # The battle's pushes reached the session and were listed.
    assert any("battle: turn" in line for line in played["pushes"]), played["pushes"]
    # Back in the lobby, a second battle starts on the front column (nothing tapped) and
    # is given up on turn 1: lost.
    assert sorted(played["front"]) == ["0,0", "1,0", "2,0"], played["front"]
    assert played["gaveUp"] == "You gave up.", played["gaveUp"]
    # Found from outside: on a phone each unit's name was cut to one line ("Rook M...",
    # "Pax Iro..."), where the skills and the log name them in full; now it wraps, and
    # its square grows rather than cutting the name or the marks under it.
    assert played["cutNames"] == [], played["cutNames"]
    assert played["outside"] == [], played["outside"]
    # Found from outside: the log read "battle: turn 1, selection" two or three times in
    # the same second (each readiness a new version of the turn): once a turn and phase.
    said = [line.split(" battle: ", 1)[1] for line in played["pushes"] if " battle: " in line]
    assert all(a != b for a, b in itertools.pairwise(said)), played["pushes"]
