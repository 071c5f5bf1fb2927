"""The match service's settings: the group commit's linger."""

from __future__ import annotations

import pytest

from services.match.config import MatchSettings
from services.platform.settings import SettingsError

BASE = {"TRIAD_DATABASE_URL": "postgresql://db/triad"}


def test_the_commit_linger_defaults_to_4_ms_and_can_be_set_or_turned_off() -> None:
    assert MatchSettings.from_env(BASE).commit_linger_seconds == 0.004
    for value, expected in (("0.01", 0.01), ("0", 0.0)):
        env = {**BASE, "TRIAD_MATCH_COMMIT_LINGER_SECONDS": value}
        assert MatchSettings.from_env(env).commit_linger_seconds == expected


def test_a_negative_commit_linger_is_refused_with_its_name() -> None:
    env = {**BASE, "TRIAD_MATCH_COMMIT_LINGER_SECONDS": "-1"}
    with pytest.raises(SettingsError, match="TRIAD_MATCH_COMMIT_LINGER_SECONDS"):
        MatchSettings.from_env(env)


def test_the_rulebook_durations_are_the_defaults() -> None:
    """RULES.md 5: a turn lasts 60 s; a player disconnected for 120 s forfeits."""
    settings = MatchSettings.from_env(BASE)
    assert (settings.turn_seconds, settings.disconnect_seconds) == (60.0, 120.0)
