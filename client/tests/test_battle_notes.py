"""The notes under the battle screen: what a line typed while it is not the player's
move is told, and that a note said of a turn gone by leaves with it."""

from __future__ import annotations

import sys
from pathlib import Path

from triad.v1 import common_pb2 as pb

from client.battle_render import waiting
from devtools.terminal import Terminal

SIZE = {"COLUMNS": "80", "LINES": "24"}


async def test_a_wait_told_in_one_turn_is_not_shown_in_the_next(tmp_path: Path) -> None:
    """Found from outside: a line typed once the formation was placed was told "Your
    plan is in: waiting for the turn to resolve", and the note stayed under turn 1's
    screen, where the player had still to plan. A note of a turn gone by is cleared."""
    log = tmp_path / "commits"
    argv = [sys.executable, "-m", "client.tests.battle_turned", str(log), "committed"]
    terminal = Terminal(argv, SIZE)
    try:
        await terminal.until(lambda s: "turn 2/10" in s and "ready" in s, "turn 2, committed")
        terminal.type("\r")
        await terminal.until(lambda s: "Your plan is in" in s, "the wait told")
        log.with_suffix(".turned").touch()  # the turn resolves: turn 3, to plan
        shown = await terminal.until(lambda s: "turn 3/10" in s and "plan (card" in s, "turn 3")
        assert "Your plan is in" not in shown, shown
    finally:
        terminal.close()


def test_a_line_typed_once_the_formation_is_placed_says_the_formation_is_in() -> None:
    view = pb.BattleView(status=pb.BATTLE_STATUS_FORMATION)
    view.you.committed = True
    assert waiting(view).startswith("Your formation is in"), waiting(view)
