"""Skirmish challenges, and a queue come back to, in a real browser (web/e2e/battles.mjs):
a challenge to a Skirmish battle is told as one, declined or accepted (joined with no
deck, the battle shown to both, the host even on a finished match's end screen) and
played; a reload while queued shows the queue at once, from the status the session
opens with, not at the queue's next push. The whole backend runs as processes; the
helpers (and what is skipped where Chromium or npm are missing) are
tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

from devtools.stack import Stack
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

TURN = re.compile(r"Skirmish · turn (\d+)/10 · (\w+)")
WAITED = re.compile(r"In the unranked queue for (\d+) s")


def test_a_battle_challenge_is_told_as_one_declined_or_accepted_and_played(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "challenged", tmp_path / "browser-challenged.png")
    ann, bea, _ = played["names"]
    # Ann's table is a challenge to a battle, and Bea is told it is one.
    assert f"Your challenge to {bea}: a Skirmish battle" in played["hosted"], played
    assert f"{ann} challenges you to a Skirmish battle." in played["offer"], played
    assert played["kind"] == "battle", played
    assert any(f"challenge from {ann}" in line for line in played["pushes"]), played
    # Both challenges are still shown after a reload; the declined one's host is told.
    assert played["reloaded"] == 2, played
    assert played["declined"] >= 1, played
    # Accepted: no challenge left, both in the battle, turn 1 played (Bea's card acted).
    assert played["left"] == 0, played
    first = TURN.fullmatch(played["turn"])
    assert first and first[1] == "1", played
    assert len(played["plan"]) == 1, played
    for status in played["after"]:
        seen = TURN.fullmatch(status)
        assert seen and (seen[1] == "2" or seen[2] == "over"), played
    assert played["log"], played
    assert any("battle: turn" in line for line in played["pushes"]), played
    # Ann gave up: she lost and Bea won.
    assert played["results"] == ["You gave up.", "You won (your opponent gave up)."]


def test_a_reload_while_queued_shows_the_queue_at_once(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "requeued", tmp_path / "browser-requeued.png")
    # Shown within two seconds of the reload, with no queue push since (Unranked alone
    # sends none for 20 s): from the ticket the session opened with.
    assert played["shownAfter"] is not None and played["shownAfter"] < 2_000, played
    assert not any("queue:" in line for line in played["pushes"]), played
    assert any("session opened" in line for line in played["pushes"]), played
    # Waiting since it was enqueued, not since the reload.
    before, after = WAITED.search(played["before"]), WAITED.search(played["after"])
    assert before and after and int(after[1]) >= int(before[1]), played


def test_a_battle_accepted_is_shown_to_a_host_on_a_finished_match(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "ended", tmp_path / "browser-ended.png")
    # Ann forfeited a practice match and stayed on its end screen ...
    assert played["result"].startswith("You lost"), played
    assert played["challenge"] == "0", played  # the battle challenge hosted
    # ... and when Bea accepted her battle challenge, the battle took its place.
    assert played["shown"], played
    assert TURN.fullmatch(played["status"]), played
    assert played["board"] == 0, played
    assert any("battle: turn 1, formation" in line for line in played["pushes"]), played


def test_a_battle_table_open_to_anyone_is_listed_and_joined(backend: Stack, tmp_path: Path) -> None:
    """BATTLE.md 6's custom battles in the lobby: a battle table opened with no one named
    is listed by Look for tables (ListTables gives battle tables only when asked) and
    joined with Join, and both players are in the battle (before: the page refused a
    battle table without a name, and listed none)."""
    played = play(backend, "lobbyBattle", tmp_path / "browser-lobby-battle.png")
    ann, _ = played["names"]
    assert "Your table: a Skirmish battle. Waiting for a guest." in played["hosted"], played
    assert f"{ann}: a Skirmish battle" in played["listed"], played
    assert played["both"] == [True, True], played
