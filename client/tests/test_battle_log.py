"""The last turn's actions on the battle screen (BATTLE.md 6: every resolved action is
shown with its effects): a taller terminal's rows hold more of them, and ``log`` shows
the whole turn a page at a time when they do not fit. On a real terminal (a
pseudo-terminal read by pyte) against client/tests/battling.py's stand-in, whose last
turn has "Move 1" to "Move N", each action two lines."""

from __future__ import annotations

import sys
from pathlib import Path

from triad.v1 import common_pb2 as pb

from client.battle_log import log_block, ran_out
from client.tests.battling import logged, selection
from devtools.terminal import Terminal


def stand_in(actions: int, columns: int, rows: int) -> Terminal:
    argv = [sys.executable, "-m", "client.tests.battling", "logged", str(actions)]
    return Terminal(argv, {"COLUMNS": str(columns), "LINES": str(rows)}, columns, rows)


def moves(shown: str) -> list[int]:
    """The numbers of the actions on the screen whose first line shows."""
    return [n for n in range(1, 13) if f"Move {n} -> " in shown]


async def test_a_100x30_terminal_shows_a_whole_turn_the_24_rows_cut() -> None:
    """Found from outside: "Last turn: (the last 5 lines)" in a 100x30 terminal, the
    turn's first actions (the swift ones) cut: the screen drew 24 rows whatever the
    terminal's."""
    terminal = stand_in(5, 100, 30)
    try:
        shown = await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        assert moves(shown) == [1, 2, 3, 4, 5], shown
        assert "type log" not in shown, shown
    finally:
        terminal.close()


async def test_log_shows_the_whole_turn_page_by_page_and_sends_nothing() -> None:
    """At 80x24 twelve actions do not fit: the screen says how to read them all, and
    ``log`` does, a page at a time, each ending with an action; Enter after the last
    page is the battle again, no plan sent (the stand-in has no CommitPlan: a commit
    would end it)."""
    terminal = stand_in(12, 80, 24)
    try:
        shown = await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        assert "type log for all" in shown and 1 not in moves(shown), shown
        terminal.type("log\r")
        first = await terminal.until(lambda s: "The last turn in full" in s, "the first page")
        assert "lines 1-20 of 24" in first and moves(first) == list(range(1, 11)), first
        assert "Enter: more" in first, first
        terminal.type("\r")
        last = await terminal.until(lambda s: "lines 21-24 of 24" in s, "the last page")
        assert moves(last) == [11, 12] and "Enter: back to the battle" in last, last
        terminal.type("\r")
        back = await terminal.until(lambda s: "plan (card" in s, "the battle again")
        assert "type log for all" in back and terminal.process.poll() is None, back
    finally:
        terminal.close()


async def test_the_log_area_takes_the_rows_it_is_given_and_says_when_it_is_cut() -> None:
    view = await selection()
    logged(view, 3)  # six lines
    whole = log_block(view, 7)
    assert whole[0] == "Last turn:" and len(whole) == 7, whole
    cut = log_block(view, 6)
    assert cut[0] == "Last turn (its last 4 of 6 lines; type log for all):", cut
    assert not cut[1].startswith(" "), "from an action's first line"


async def test_a_turn_passed_for_want_of_a_plan_is_said_first_in_the_log_area() -> None:
    view = await selection()
    logged(view, 1)
    said = log_block(view, 5, late="Time ran out: you passed (no plan was committed).")
    assert said[:2] == ["Last turn:", "Time ran out: you passed (no plan was committed)."]
    view.ClearField("log")
    assert log_block(view, 5, late="Time ran out: you passed.")[1:] == ["Time ran out: you passed."]


async def test_a_turn_the_timer_ended_without_her_commit_says_she_passed() -> None:
    """Found from outside: a turn passed because the time ran out, and nothing said so.
    The view says nothing of it; the screen knows: she had not committed, and the turn
    is over."""
    before = await selection()
    after = pb.BattleView()
    after.CopyFrom(before)
    after.turn += 1
    assert ran_out(before, after) == "Time ran out: you passed (no plan was committed)."
    before.set_actions.add(character="ember", card="ember.kindle")
    assert ran_out(before, after).startswith("Time ran out: the plan you had set played")
    before.you.committed = True
    assert ran_out(before, after) == ""
    before.you.committed = False
    assert ran_out(before, before) == "", "the same turn: nothing ran out"
    before.you.cpu = True
    assert ran_out(before, after) == "", "the CPU plays her seat: its plan, not her pass"


async def test_the_screen_says_her_time_ran_out_and_not_after_her_commit(
    tmp_path: Path,
) -> None:
    """On a real terminal against client/tests/battle_turned.py's stand-in, whose turn 2
    resolves (its deadline passes) while she sits at the prompt."""
    for committed in (False, True):
        log = tmp_path / f"commits{committed}"
        extra = ["committed"] if committed else []
        argv = [sys.executable, "-m", "client.tests.battle_turned", str(log), *extra]
        terminal = Terminal(argv, {"COLUMNS": "80", "LINES": "24"})
        try:
            await terminal.until(lambda s: "turn 2/10" in s, "turn 2")
            log.with_suffix(".turned").touch()
            shown = await terminal.until(lambda s: "turn 3/10" in s, "turn 3")
            told = "Time ran out: you passed (no plan was committed)."
            assert (told in shown) is not committed, shown
        finally:
            terminal.close()
