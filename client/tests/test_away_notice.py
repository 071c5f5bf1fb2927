"""The notice of a match that ended while the player was away (MATCH_ENDED_AWAY), told
as ``triad-client play`` opens in another match, on a real terminal (a pseudo-terminal
read by pyte) against a stand-in for the gateway (client/tests/away.py): it is never
read as the match on the screen, and the 5x5 match still fits 80x24."""

from __future__ import annotations

import sys
from pathlib import Path

from devtools.terminal import Terminal

SAID = "ended while you were away"


async def test_a_match_ended_away_is_not_told_under_another_match_nor_costs_its_80x24(
    tmp_path: Path,
) -> None:
    """Found from outside: the notice stayed as the screen's note, read as the result
    of the match on the screen ('You lose. (...)' then 'Your match against ... ended
    while you were away: you won'), and took a line a 5x5 board needs at 80x24."""
    log = tmp_path / "log"
    terminal = Terminal(
        [sys.executable, "-m", "client.tests.away", str(log)], {"COLUMNS": "80", "LINES": "24"}
    )
    try:
        playing = await terminal.until(lambda s: "card cell > " in s, "the 5x5 match")
        assert "This terminal is" not in playing and "Rules:" in playing, playing
        log.with_suffix(".go").touch()  # the match on the screen ends, lost
        stake = await terminal.until(lambda s: "choice." in s, "the trade's stake")
        lines = stake.splitlines()
        result = next(n for n, line in enumerate(lines) if line.startswith("You lose."))
        assert not any(SAID in line for line in lines[result:]), stake
        assert "your match resumes" not in stake, "the resumed match is over"
    finally:
        terminal.close()
