"""What reaches a player in a real browser away from the lobby (web/e2e/notices.mjs):
a challenge is shown, and answered, on whatever screen the player is; seated at a match
it is shown but not accepted until the match is over. The whole backend runs as
processes; the helpers (and what is skipped where Chromium or npm are missing) are
tests/e2e/test_browser.py's.
"""

from __future__ import annotations

from pathlib import Path

from devtools.stack import Stack
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built


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
