"""Skirmish challenges, and a queue come back to, in a real browser (web/e2e/battles.mjs):
a challenge to a Skirmish battle is told as one, with when it expires (to its host too),
declined or accepted (joined with no deck, the battle shown to both, the host even on a
finished match's end screen) and played; a reload while queued shows the queue at once,
from the status the session opens with, not at the queue's next push. The whole backend
runs as processes; the helpers (and what is skipped where Chromium or npm are missing)
are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from devtools.stack import Stack
from tests.e2e.push_log import sessions
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

TURN = re.compile(r"Skirmish · turn (\d+)/10 · (\w+)")
WAITED = re.compile(r"In the roulette queue for (\d+) s")
EXPIRES = re.compile(r" It expires at (?:.+, )?(\d{1,2}):(\d\d):(\d\d)(?:\s?([AP]M))?\.")
TABLE_TTL = timedelta(seconds=600)  # the matchmaker's default: an open table's life


def expires_in_time(said: str, zone: str, opened: datetime, read: datetime) -> bool:
    """``said`` tells a table's expiry on the clock of ``zone`` (the page's), and it is a
    table's life after a moment between ``opened`` and ``read``."""
    found = EXPIRES.search(said)
    if not found:
        return False
    hour, minute, second = (int(n) for n in found.group(1, 2, 3))
    if found[4]:
        hour = hour % 12 + (12 if found[4] == "PM" else 0)
    shown = hour * 3600 + minute * 60 + second
    earliest = (opened + TABLE_TTL).astimezone(ZoneInfo(zone))
    early = earliest.hour * 3600 + earliest.minute * 60 + earliest.second
    return (shown - early) % 86_400 <= (read - opened).total_seconds() + 1


def test_a_battle_challenge_is_told_as_one_declined_or_accepted_and_played(
    backend: Stack, tmp_path: Path
) -> None:
    opened = datetime.now(ZoneInfo("UTC")) - timedelta(seconds=1)
    played = play(backend, "challenged", tmp_path / "browser-challenged.png")
    read = datetime.now(ZoneInfo("UTC"))
    ann, bea, _ = played["names"]
    # Ann's table is a challenge to a battle, and Bea is told it is one.
    assert f"Your challenge to {bea}: a Skirmish battle" in played["hosted"], played
    assert f"{ann} challenges you to a Skirmish battle." in played["offer"], played
    # Both are told when it expires unanswered, each on her own clock (Ann's 5:30 ahead
    # of UTC, Bea's 9 hours). Before, the challenger's "Waiting for them" never said it.
    assert expires_in_time(played["hosted"], "Asia/Kolkata", opened, read), played
    assert expires_in_time(played["offer"], "Asia/Tokyo", opened, read), played
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
        assert seen and (seen[1] == "2" or seen[2] == "finished"), played
    assert played["log"], played
    assert any("battle: turn" in line for line in played["pushes"]), played
    # Ann gave up: she lost and Bea won.
    assert played["results"] == ["You gave up: you lost.", "You won (your opponent gave up)."]


def test_a_reload_while_queued_shows_the_queue_at_once(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "requeued", tmp_path / "browser-requeued.png")
    # Shown within two seconds of the reload, with no queue push since (Roulette alone
    # sends none): from the ticket the session opened with.
    assert played["shownAfter"] is not None and played["shownAfter"] < 2_000, played
    # Found in review: after a reload the lobby's mode read "unranked" beside the queue.
    assert played["mode"] == "roulette", played
    reloaded = sessions(played["pushes"])[0]  # what the page was told since the reload
    assert not any("queue:" in line for line in reloaded), played
    assert any("session opened" in line for line in reloaded), played
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
    opened = datetime.now(ZoneInfo("UTC")) - timedelta(seconds=1)
    played = play(backend, "lobbyBattle", tmp_path / "browser-lobby-battle.png")
    read = datetime.now(ZoneInfo("UTC"))
    ann, _ = played["names"]
    assert "Your table: a Skirmish battle. Waiting for a guest." in played["hosted"], played
    # Its host is told when it expires if nobody joins, as a challenged player is.
    assert expires_in_time(played["hosted"], "Asia/Kolkata", opened, read), played
    assert f"{ann}: a Skirmish battle" in played["listed"], played
    # The tables looked for say when each expires, on the looker's clock.
    assert expires_in_time(played["listed"], "Asia/Tokyo", opened, read), played
    assert played["both"] == [True, True], played


DECIDED = re.compile(
    r"You (won|lost) \(after turn 10: (more HP left, (\d+) to (\d+)"
    r"|level at 3 characters and \d+ HP each, the side whose action resolved last wins)\)\."
)
SUDDEN = "Sudden Death: +2 Energy a turn (turns 8–10)"


def test_a_battle_decided_after_turn_10_says_which_tie_break_settled_it(
    backend: Stack, tmp_path: Path
) -> None:
    """BATTLE.md 5's decision after turn 10 in the facts that settled it, as the terminal
    says it (client/battle_render.py decided()), Sudden Death's Energy on turns 8 to 10,
    and the plan committed with its targets. Before, every decision read "after turn 10:
    survivors, then HP" (found from outside on the terminal: both sides at full HP were
    told that), Sudden Death was not said, and a plan committed named its cards only
    (web/e2e/battle_lines.mjs's ``decided``: one card on turn 1, then passes)."""
    played = play(backend, "decided", tmp_path / "browser-battle-decided.png")
    # Turn 1 on both pages: every character by SPD (both formations placed).
    for lines in played["first"]:
        assert lines["battle-spd"].startswith("SPD, fastest first: "), lines
        listed, _, note = lines["battle-spd"].partition(" (same SPD: ")
        parts = listed.split(": ", 1)[1].split(", ")
        assert len(parts) == 6, lines
        # A tie across the teams says who acts first (BATTLE.md 4.3), and only then.
        spds = [(p.split()[0], re.search(r" (\d+)(?: for \d+ turns?)?$", p)) for p in parts]
        speeds = [(side, int(found[1])) for side, found in spds if found]
        assert len(speeds) == 6, lines
        tie = any(s != t and a == b for s, a in speeds for t, b in speeds)
        assert bool(note) == tie, lines
    # Bea's plan committed says where its card aims, as it did while she set it (and as
    # the terminal says it): before, the card's name alone. (The list says when it acts
    # besides, after a "·".)
    set_as = re.fullmatch(r"(.+) \(\d+E\)( → .+?) · .+ ×", played["planned"][0])
    assert set_as and played["committed"] == [f"Your plan: {set_as[1]}{set_as[2]}"], played
    # Turns 8, 9 and 10 say Sudden Death to both; the end says it no more, nor the SPD.
    turns = [TURN.fullmatch(s["status"]) for s in played["sudden"]]
    assert [t and t[1] for t in turns] == ["8", "9", "10"], played["sudden"]
    said = [lines for s in played["sudden"] for lines in s["said"]]
    assert all(lines["battle-sudden-death"] == SUDDEN for lines in said), said
    ended = played["ended"]
    assert all(not lines["battle-sudden-death"] and not lines["battle-spd"] for lines in ended)
    # The decision: more HP left (each side's own first), or level and the last action.
    ann, bea = (DECIDED.fullmatch(result) for result in played["results"])
    assert ann and bea and {ann[1], bea[1]} == {"won", "lost"}, played["results"]
    if ann[3] is not None:
        assert bea.group(3, 4) == ann.group(4, 3), played["results"]
        assert (int(ann[3]) > int(ann[4])) == (ann[1] == "won"), played["results"]
    else:
        assert ann[2] == bea[2], played["results"]
