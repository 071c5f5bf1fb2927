"""What reaches a player in a real browser away from the lobby (web/e2e/notices.mjs):
a challenge is shown, and answered, on whatever screen the player is; seated at a match
it is shown but not accepted until the match is over. And the queue's waiting time
counts on by itself between the server's pushes, its clock stopped with its screen.
And a card picked before the join's reply arrives stays picked (web/e2e/desk.mjs).
The whole backend runs as processes; the helpers (and what is skipped where Chromium or
npm are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

from devtools.stack import Stack
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

WAITED = re.compile(r"In the unranked queue for (\d+) s: 1 waiting")


def test_a_challenge_is_accepted_from_the_cards_screen_and_another_only_after_the_match(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "away", tmp_path / "browser-away.png")
    ann, _, cid = played["names"]
    # Told on her cards screen, and accepted there: the match with Ann started.
    assert played["screen"] == "cards", played
    assert f"{ann} challenges you" in played["offer"], played
    assert played["first"].startswith("You won") and "forfeited" in played["first"], played
    # Seated, Cid's challenge was still in view, but accepting it was refused in words.
    assert f"{cid} challenges you" in played["seatedOffer"], played
    assert "match" in played["refusal"] and "JoinTable" not in played["refusal"], played
    assert played["stillSeated"] == 1, played
    # Once Ann's match was over, Cid's was accepted and played (and forfeited by him).
    assert played["second"].startswith("You won") and "forfeited" in played["second"], played
    assert any(f"match found: against {cid}" in line for line in played["pushes"]), played
    # Back to the lobby: the lobby, with no challenge left to answer.
    assert played["back"] == "lobby" and played["left"] == 0, played


def test_the_queue_clock_counts_on_between_pushes_and_stops_with_its_screen(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "clock", tmp_path / "browser-clock.png")
    before, after = played["before"], played["after"]
    first, then = WAITED.search(before["text"]), WAITED.search(after["text"])
    assert first and then, played
    # 2.2 s with no queue push in between: the seconds shown moved all the same.
    assert after["pushes"] == before["pushes"], played
    assert 1 <= int(then[1]) - int(first[1]) <= 3, played
    # One clock while the queue is on the screen; none on the cards screen or once left.
    assert played["intervals"] == {"queued": 1, "onCards": 0, "back": 1, "left": 0}, played


def test_a_card_picked_before_the_join_reply_arrives_stays_picked(
    backend: Stack, tmp_path: Path
) -> None:
    """Found by CI: the joiner's page followed the match for the push that it was found
    and again for the join's late reply, and the second follow dropped the card picked in
    between, so the cells stayed shut and her clicks did nothing."""
    played = play(backend, "lateReply", tmp_path / "browser-late-reply.png")
    assert played["picked"] == 1, played
    assert played["kept"] == 1 and played["open"] > 0, played
    assert played["placed"] == 1, played
