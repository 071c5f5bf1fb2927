"""The matchmaker's settings: read once from TRIAD_ variables, refused at start when wrong."""

from __future__ import annotations

import pytest

from services.matchmaker.config import MatchmakerSettings
from services.matchmaker.domain import BotLevel, WindowPolicy
from services.platform.settings import SettingsError

DB = {"TRIAD_DATABASE_URL": "postgresql://triad@localhost:5432/triad"}


def test_defaults_run_beside_a_local_match_service() -> None:
    settings = MatchmakerSettings.from_env(DB)
    assert (settings.port, settings.metrics_port, settings.schema) == (50062, 9162, "matchmaker")
    assert settings.match_addr == "127.0.0.1:50061"
    assert settings.collection_addr is None and settings.rating_addr is None
    assert settings.config.policy == WindowPolicy(50, 25, 5.0, 300)
    assert settings.config.bot_level is BotLevel.NORMAL


def test_every_knob_is_a_variable() -> None:
    settings = MatchmakerSettings.from_env(
        DB
        | {
            "TRIAD_MATCHMAKER_WINDOW_START": "100",
            "TRIAD_MATCHMAKER_WINDOW_CAP": "400",
            "TRIAD_MATCHMAKER_BOT_FILL_SECONDS": "5",
            "TRIAD_MATCHMAKER_BOT_LEVEL": "hard",
            "TRIAD_COLLECTION_ADDR": "collection:50063",
            "TRIAD_RATING_ADDR": "rating:50064",
        }
    )
    assert (settings.config.policy.start, settings.config.policy.cap) == (100, 400)
    assert settings.config.bot_fill_seconds == 5 and settings.config.bot_level is BotLevel.HARD
    assert (settings.collection_addr, settings.rating_addr) == ("collection:50063", "rating:50064")


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({}, "TRIAD_DATABASE_URL is required"),
        (DB | {"TRIAD_MATCHMAKER_BOT_LEVEL": "genius"}, "BOT_LEVEL"),
        (DB | {"TRIAD_MATCHMAKER_WINDOW_START": "500"}, "WINDOW"),
        (DB | {"TRIAD_MATCHMAKER_LEASE_SECONDS": "1"}, "LEASE_SECONDS"),
        (DB | {"TRIAD_MATCHMAKER_PORT": "port"}, "TRIAD_MATCHMAKER_PORT"),
    ],
)
def test_a_bad_value_stops_the_start_with_its_name(env: dict[str, str], words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        MatchmakerSettings.from_env(env)
