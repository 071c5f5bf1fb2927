"""triad-rating's settings: defaults on a laptop, clear errors, the season as configuration."""

from __future__ import annotations

import pytest

from services.platform.settings import SettingsError
from services.rating.config import RatingSettings

DB = {"TRIAD_DATABASE_URL": "postgresql://triad@localhost:5432/triad"}


def test_defaults() -> None:
    s = RatingSettings.from_env(DB)
    assert (s.port, s.metrics_port, s.schema, s.season, s.consumer) == (
        50064,
        9164,
        "rating",
        0,
        "rating",
    )
    assert s.nats_url is None and s.shared.namespace == ""


def test_opening_a_season_is_configuration() -> None:
    assert RatingSettings.from_env({**DB, "TRIAD_RATING_SEASON": "1"}).season == 1


@pytest.mark.parametrize("value", ["-1", "one", "1.5"])
def test_a_bad_season_fails_at_start_naming_the_variable(value: str) -> None:
    with pytest.raises(SettingsError, match="TRIAD_RATING_SEASON"):
        RatingSettings.from_env({**DB, "TRIAD_RATING_SEASON": value})


def test_the_database_is_required() -> None:
    with pytest.raises(SettingsError, match="TRIAD_DATABASE_URL"):
        RatingSettings.from_env({})
