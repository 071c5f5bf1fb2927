"""Away from a page, in a real browser (web/e2e/notices.mjs). ``missed``: her page
closes mid-match, the disconnect grace (3 s here) runs out, and when she logs in again
her page shows that match's end and says in words what happened
(SessionOpened.missed_match and the MATCH_ENDED_AWAY notice); ``battleMissed``: the
same of a practice battle the CPU played out for her (missed_battle, BATTLE_ENDED_AWAY).
``elsewhere``: a second
page takes the session; the first says so and takes it back on request. The helpers
(and what is skipped where Chromium or npm are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

from devtools.stack import Overrides, Stack
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built


STACK_OVERRIDES: Overrides = {
    "match": {"TRIAD_DISCONNECT_SECONDS": "3"},
    "battle": {"TRIAD_BATTLE_DISCONNECT_SECONDS": "2", "TRIAD_TIMER_POLL_SECONDS": "0.2"},
}
"""This module's settings for its backend (test_browser.py's ``backend``)."""


def test_a_player_back_after_the_grace_is_shown_the_match_she_lost_away(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "missed", tmp_path / "browser-missed.png")
    ann, bea = played["names"]
    # Found from outside: neither client showed the view's connected flag, so an
    # opponent who never opened a session went untold until the forfeit.
    assert re.fullmatch(
        rf"{ann} is not connected: they forfeit unless back by \d+:\d\d:\d\d( [AP]M)?",
        played["awayLine"],
    ), played
    # Found from outside: the notice above said "back by 07:45:11 UTC" while the line
    # under it said "back by 4:45:11 PM" (her own clock): one time, in her clock.
    by = played["awayLine"].rsplit("back by ", 1)[1]
    assert played["awayNotice"] == (
        f"{ann} lost their connection; they forfeit unless they are back by {by}."
    ), played
    assert played["beaResult"].startswith("You won"), played
    assert played["result"].startswith("You lost"), played
    assert played["notice"] == (
        f"Your match against {bea} ended while you were away: you lost, "
        "by a disconnection past the grace."
    ), played
    assert not played["failures"], played


def test_a_player_back_after_the_cpu_played_out_her_battle_is_shown_its_end(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: a player whose battle the CPU had played out (and lost) after
    her page closed came back to the lobby, told nothing."""
    played = play(backend, "battleMissed", tmp_path / "browser-battle-missed.png")
    assert played["result"].startswith("You lost"), played
    assert played["notice"].startswith("Your battle against "), played
    assert played["notice"].endswith(
        "ended while you were away: you lost, the CPU played your side after you left."
    ), played
    assert not played["failures"], played


def test_a_page_whose_session_moved_to_another_says_so_and_takes_the_game_back(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: a second tab's login silently froze the first one, its match
    drawn as it stood (a turn clock still counting) while the game went on elsewhere."""
    played = play(backend, "elsewhere", tmp_path / "browser-elsewhere.png")
    assert played["told"].startswith("You opened the game in another tab or device"), played
    assert played["stale"] == played["inHand"], played  # drawn as it stood, and said so
    assert played["caughtUp"] == played["inHand"] - 1 and played["banner"] == 0, played
    assert played["secondTold"].startswith("You opened the game in another tab"), played
    assert played["rules"].endswith("· No trade"), played  # not "Trade none"
    assert not played["failures"], played


def test_a_move_made_while_the_server_is_out_of_reach_is_told_in_words(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: the page showed the browser's "Failed to fetch" and a proxy's
    "HTTP 503" as the only message."""
    played = play(backend, "unreached", tmp_path / "browser-unreached.png")
    told = "the server is out of reach; try again in a moment"
    assert (played["refused"], played["proxied"], played["offline"]) == (told, told, told), played
    # The next try, answered late: the refusal leaves the screen as it starts, not when
    # it ends (it stayed up while the call ran, and read as its answer).
    assert played["shownBefore"] and not played["shownDuring"], played
    assert played["shownAfter"] == 0, played  # the move made, nothing refused
    # Found from outside: reloaded while the gateway was out of reach, the page showed the
    # lobby as if all were well (the match in progress not there, nothing said).
    assert played["banner"] == (
        "The server is out of reach, so this page is not up to date: it reconnects by itself."
    ), played
    assert played["resumed"] == 1, played  # reached again: the match is back, the words gone
    # Found in review: a reload emptied the log of what the player had been told. It is
    # kept for the tab (the session opened again notes itself on top).
    log = played["log"]
    assert log["before"] and log["after"][-len(log["before"]) :] == log["before"], log


def test_both_sides_of_a_battle_the_cpu_took_over_are_told_who_won(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: once the CPU played for Bea, who had left (BATTLE.md 5: she
    loses), Ann's page only added "played by the CPU" and still offered "Give up" (which
    then ended the battle as her win, the button saying otherwise); Bea, back, read "The
    CPU plays for you", not that the battle was lost."""
    played = play(backend, "battleLeft", tmp_path / "browser-battle-left.png")
    _, bea = played["names"]
    # Found from outside too: nothing was said in the 30 s before the CPU took over.
    leaving = played["leaving"]
    assert re.fullmatch(
        rf"{bea} is away: the CPU takes their seat at .+ unless they come back", leaving
    ), played
    assert played["awayAfter"] == 0, played  # once taken over, no longer "away"
    assert played["told"] == (
        f"{bea} left: the CPU plays on for them, and the battle is yours whatever happens."
    ), played
    assert "give-up" not in played["buttons"] and "end-battle" in played["buttons"], played
    assert played["away"].startswith("You were away too long: "), played
    assert "this battle is lost" in played["away"], played
    # Ended by Ann, not played out: the result does not say the CPU finished it.
    assert played["result"] == "You won (your opponent left; the CPU played for them).", played
