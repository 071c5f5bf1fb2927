"""A page whose access token expires while it is open, in a real browser
(web/e2e/endings.mjs's ``tokenExpired``), against a gateway whose access tokens last 3 s:
the page refreshes them and reopens its session by itself, so the player is told nothing
about it. The helpers are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

from pathlib import Path

from devtools.stack import Overrides, Stack
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built


STACK_OVERRIDES: Overrides = {"gateway": {"TRIAD_ACCESS_TOKEN_MINUTES": "0.05"}}
"""This module's settings for its backend (test_browser.py's ``backend``)."""


def test_an_expired_access_token_the_page_handles_is_not_told(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: "session closed: your access token expired: refresh it and
    open a new session" in the list, although the page recovers on its own."""
    played = play(backend, "tokenExpired", tmp_path / "browser-token.png")
    assert played["opened"] >= 3, played  # the session was reopened, twice at least
    assert not any("session closed" in line for line in played["pushes"]), played
    assert not any("token" in line for line in played["pushes"]), played
    assert played["errors"] == [], played


def test_an_expiry_met_by_several_calls_is_one_refresh_and_a_failed_one_is_retried(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside (a page waking from sleep meets the expiry on several calls at
    once): each call traded the refresh token, the gateway refused all trades but the
    first, and the page forgot the player's tokens on the refusal: "your login expired".
    A refresh that failed on its way (offline a moment) logged the player out too."""
    played = play(backend, "refreshRace", tmp_path / "browser-refresh-race.png")
    busy = played["busy"]
    assert busy["sent"] == 1, played  # the session's and the cards screen's two calls
    assert busy["errors"] == [], played
    assert "abort" in played["sent"] and played["sent"][-1] == "pass", played
    assert played["reopened"], played
    assert played["errors"] == [] and played["loginForm"] == 0, played
