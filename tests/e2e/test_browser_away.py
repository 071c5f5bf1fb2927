"""A match that ended while its player was away, in a real browser (web/e2e/notices.mjs,
``missed``): her page closes mid-match, the disconnect grace (3 s here) runs out, and
when she logs in again her page shows that match's end and says in words what happened
(SessionOpened.missed_match and the MATCH_ENDED_AWAY notice). The helpers (and what is
skipped where Chromium or npm are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.stack import Stack, stack
from tests.e2e.test_browser import built_client, play


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    built_client()
    settings = {"match": {"TRIAD_DISCONNECT_SECONDS": "3"}}
    with stack(
        shared_database_url, nats_url, tmp_path_factory.mktemp("away"), overrides=settings
    ) as running:
        yield running


def test_a_player_back_after_the_grace_is_shown_the_match_she_lost_away(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "missed", tmp_path / "browser-missed.png")
    _, bea = played["names"]
    assert played["beaResult"].startswith("You won"), played
    assert played["result"].startswith("You lost"), played
    assert played["notice"] == (
        f"Your match against {bea} ended while you were away: you lost, "
        "by a disconnection past the grace."
    ), played
    assert not played["failures"], played
