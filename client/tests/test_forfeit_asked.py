"""``q`` on the match screen asks before it forfeits (client/forfeiting.py): one key
slipped must not lose a match. On a real terminal (a pseudo-terminal read by pyte)
against the stand-in gateway of client/tests/forfeiting.py, which logs the calls."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from devtools.terminal import Terminal

ASKED = "Forfeit this match?"


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def match_screen(log: Path, columns: int = 80, rows: int = 24) -> Terminal:
    return Terminal(
        [sys.executable, "-m", "client.tests.forfeiting", str(log)],
        {"COLUMNS": str(columns), "LINES": str(rows)},
        columns=columns,
        rows=rows,
    )


@pytest.mark.parametrize("confirm", ["q", "y"])
async def test_q_asks_first_and_forfeits_only_once_confirmed(tmp_path: Path, confirm: str) -> None:
    """Found from outside: `q` and Enter forfeited the match at once, lost on a key
    slipped; the browser asks with a confirm button. Anything but q or y answered goes
    on: n keeps playing, a move is played."""
    log = tmp_path / "calls"
    terminal = match_screen(log)
    try:
        await terminal.until(lambda s: "card cell > " in s, "the match")
        terminal.type("q\r")
        asked = await terminal.until(lambda s: ASKED in s, "the question")
        assert "q or y confirms; anything else plays on" in " ".join(asked.split()), asked
        assert calls(log) == []
        terminal.type("n\r")
        await terminal.until(lambda s: "The match goes on." in s, "the match kept")
        terminal.type("q\r")
        await terminal.until(lambda s: ASKED in s, "the question again")
        terminal.type("0 4\r")  # a move: played, the question dropped
        await terminal.until(lambda s: ASKED not in s and bool(calls(log)), "the move")
        assert calls(log) == ["PlaceCard"]
        terminal.type("q\r")
        await terminal.until(lambda s: ASKED in s, "the question once more")
        terminal.type(f"{confirm}\r")
        ended = await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
        assert "You lose" in ended, ended
        assert terminal.process.wait(timeout=30) == 0
        assert calls(log) == ["PlaceCard", "Forfeit"]
    finally:
        terminal.close()


async def test_ctrl_c_at_the_question_leaves_the_match_running(tmp_path: Path) -> None:
    """Ctrl-C never forfeits: it leaves the screen, the match going on (client/leaving.py),
    the question asked or not."""
    log = tmp_path / "calls"
    terminal = match_screen(log)
    try:
        await terminal.until(lambda s: "card cell > " in s, "the match")
        terminal.type("q\r")
        await terminal.until(lambda s: ASKED in s, "the question")
        terminal.type("\x03")
        told = await terminal.until(lambda s: "takes it back" in s, "what goes on")
        assert terminal.process.wait(timeout=30) == 130
        assert "goes on" in told and calls(log) == [], told
    finally:
        terminal.close()


async def test_a_terminal_too_small_for_the_match_shows_the_question_too(tmp_path: Path) -> None:
    """A terminal too small for the board is told the size it needs, 'q forfeits' and
    the prompt: the question a q brings shows there as well (notes did not)."""
    log = tmp_path / "calls"
    terminal = match_screen(log, columns=50, rows=12)
    try:
        await terminal.until(lambda s: "Enlarge the window" in s, "the size needed")
        terminal.type("q\r")
        await terminal.until(lambda s: ASKED in s, "the question")
        terminal.type("y\r")
        assert terminal.process.wait(timeout=30) == 0
        assert calls(log) == ["Forfeit"]
    finally:
        terminal.close()
