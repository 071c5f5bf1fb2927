"""Settings: read once from TRIAD_ variables; a malformed value fails with its name."""

from __future__ import annotations

import dataclasses

import pytest

from services.platform.settings import Settings, SettingsError


def test_nothing_configured_means_the_embedded_servers() -> None:
    assert Settings.from_env({}) == Settings(database_url=None, nats_url=None)


def test_an_empty_value_counts_as_unset() -> None:
    settings = Settings.from_env({"TRIAD_DATABASE_URL": "  ", "TRIAD_NATS_URL": ""})

    assert settings == Settings()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://triad:secret@db.internal:5432/triad",
        "postgres://triad@localhost/triad",
        "postgresql://postgres:@/postgres?host=/tmp/triad-pg-1/pgdata",
        "postgresql:///triad",
    ],
)
def test_postgres_urls_as_asyncpg_takes_them_are_accepted(url: str) -> None:
    assert Settings.from_env({"TRIAD_DATABASE_URL": url}).database_url == url


def test_a_nats_cluster_is_a_comma_separated_list_of_seeds() -> None:
    settings = Settings.from_env({"TRIAD_NATS_URL": "nats://n1:4222, tls://n2:4222"})

    assert settings.nats_servers == ["nats://n1:4222", "tls://n2:4222"]
    assert Settings().nats_servers == []


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("TRIAD_DATABASE_URL", "mysql://db/triad", "must be a postgresql:// URL"),
        ("TRIAD_DATABASE_URL", "db.internal:5432", "must be a postgresql:// URL"),
        ("TRIAD_DATABASE_URL", "postgresql://db:port/triad", "invalid port"),
        ("TRIAD_NATS_URL", "localhost:4222", "must be nats://host:4222"),
        ("TRIAD_NATS_URL", "nats://n1:4222,", "must be nats://host:4222"),
        ("TRIAD_NATS_URL", "nats://n1:99999", "invalid port"),
    ],
)
def test_a_malformed_value_fails_naming_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message) as error:
        Settings.from_env({name: value})

    assert name in str(error.value)


def test_settings_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().database_url = "postgresql://elsewhere/triad"  # type: ignore[misc]
