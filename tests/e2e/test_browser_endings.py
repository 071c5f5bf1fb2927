"""How things end, and what the page says meanwhile, in a real browser
(web/e2e/endings.mjs), against a backend with short clocks: a draft forfeits after 10 s
without a card opened or picked (RULES.md 8), a turn lasts 3 s (RULES.md 5). The helpers
(and what is skipped where Chromium or npm are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

from devtools.stack import Overrides, Stack
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

STACK_OVERRIDES: Overrides = {
    "collection": {"TRIAD_DRAFT_INACTIVITY_SECONDS": "10", "TRIAD_TIMER_POLL_SECONDS": "0.2"},
    "match": {"TRIAD_TURN_SECONDS": "3", "TRIAD_TIMER_POLL_SECONDS": "0.2"},
}
"""This module's settings for its backend (test_browser.py's ``backend``)."""


def seconds(left: str) -> int:
    found = re.fullmatch(r"(\d+) s", left)
    assert found, left
    return int(found[1])


def test_an_idle_drafter_sees_the_forfeit_clock_and_both_see_who_forfeited(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: only the 3-minute pick clock was shown, so a player about to
    forfeit saw a minute left; and the forfeit dropped both pages to the lobby."""
    played = play(backend, "idleDraft", tmp_path / "browser-idle-draft.png")
    ann, bea = played["names"]
    clocks = played["early"]
    # Two clocks: the picks' (minutes) and the inactivity forfeit's (10 s here).
    assert len(clocks) == 2, clocks
    picks, idle = clocks
    assert seconds(picks["left"]) > 60, clocks
    assert 0 < seconds(idle["left"]) <= 10 and "forfeit" in idle["text"], clocks
    # Both are told who forfeited, and what it did to their Draft rating; the winner
    # reads "you win it", not her own name.
    for said in played["said"]:
        assert f"{bea} forfeited the draft" in said, played
        assert re.search(r"Your Draft rating: [+-]\d+ \(\d+ → \d+\)", said), played
    to_ann, to_bea = played["said"]
    assert "; you win it." in to_ann and f"{ann} wins it" in to_bea, played
    assert played["back"] == 1, played


def test_a_match_lost_by_missed_turns_or_won_by_a_forfeit_says_who(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: "You lost 4 to 6: a player ran out of time", "You won 5 to 5:
    a player left". As the terminal client words them, the win first and then why."""
    missed = play(backend, "missedTwice", tmp_path / "browser-missed-twice.png")
    assert re.fullmatch(
        r"You lost: you missed two turns in a row \(it stood at \d+ to \d+\)", missed["result"]
    ), missed
    played = play(backend, "forfeitedAtOnce", tmp_path / "browser-forfeited.png")
    ann, _ = played["names"]
    lost, won = played["results"]
    assert lost == "You lost: you forfeited (it stood at 5 to 5)", played
    assert won == f"You won: {ann} forfeited (it stood at 5 to 5)", played


def test_a_banner_about_a_state_goes_when_the_state_does(backend: Stack, tmp_path: Path) -> None:
    """Found from outside: "You missed your turn ... miss the next one too and you
    forfeit." stayed on the end screen; "you cannot start another match yet: the
    Difference trade ..." stayed after the trade completed."""
    missed = play(backend, "missedTwice", tmp_path / "browser-missed-banner.png")
    assert "miss the next one too" in missed["warned"], missed
    assert missed["noticeAfter"] == [], missed
    blocked = play(backend, "tradeBlocked", tmp_path / "browser-trade-blocked.png")
    assert "cannot start another match yet" in blocked["refused"], blocked
    assert blocked["after"] == [], blocked


def test_practice_while_waiting_in_the_draft_queue_plays_a_random_deck(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: refused with "practising from the Draft queue needs a deck of
    yours": a Draft ticket has no deck of its own, so the page sends Random (or the saved
    deck chosen), as the terminal client does."""
    played = play(backend, "draftPractice", tmp_path / "browser-draft-practice.png")
    assert played["refusal"] == [] and played["hand"] == 5, played


def test_an_opponents_missed_turn_is_told(backend: Stack, tmp_path: Path) -> None:
    """Found from outside: when the opponent let a turn run out, a card of theirs just
    appeared on the board; only they were told a card was played for them and that
    one more missed turn forfeits (web/e2e/outside.mjs)."""
    played = play(backend, "opponentMissed", tmp_path / "browser-opponent-missed.png")
    idle, _ = played["names"]
    assert played["told"] == (
        f"{idle} missed a turn, so a card was played for them; "
        "if they miss the next one too, they forfeit."
    ), played
