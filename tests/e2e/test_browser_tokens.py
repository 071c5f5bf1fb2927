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
