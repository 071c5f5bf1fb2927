"""Settings: read once from TRIAD_ variables; a malformed value fails with its name."""

from __future__ import annotations

import dataclasses

import pytest

from services.platform.bus import EventStream
from services.platform.endpoints import DEFAULT_PORTS
from services.platform.pushes import player_prefix
from services.platform.settings import Settings, SettingsError, basics


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


DB = {"TRIAD_DATABASE_URL": "postgresql://db/triad"}


def test_a_service_listens_on_its_ports_from_the_one_table_unless_told_otherwise() -> None:
    default = basics(DB, "matchmaker")
    assert (default["host"], default["port"], default["metrics_port"]) == (
        "127.0.0.1",
        DEFAULT_PORTS["matchmaker"].grpc,
        DEFAULT_PORTS["matchmaker"].metrics,
    )
    told = basics(
        {
            **DB,
            "TRIAD_MATCHMAKER_HOST": "0.0.0.0",
            "TRIAD_MATCHMAKER_PORT": "0",
            "TRIAD_MATCHMAKER_METRICS_PORT": "9999",
        },
        "matchmaker",
    )
    assert (told["host"], told["port"], told["metrics_port"]) == ("0.0.0.0", 0, 9999)
    assert told["shared"] == Settings.from_env(DB)


def test_a_service_without_a_database_does_not_start_and_says_what_to_set() -> None:
    with pytest.raises(SettingsError, match="TRIAD_DATABASE_URL is required by triad-rating"):
        basics({}, "rating")
    with pytest.raises(SettingsError, match="TRIAD_RATING_PORT must be a port number"):
        basics({**DB, "TRIAD_RATING_PORT": "http"}, "rating")


def test_the_database_pool_size_is_read_once_for_every_service() -> None:
    url = {"TRIAD_DATABASE_URL": "postgresql://u@h/db"}
    assert basics(url, "match")["database_pool_size"] == 32
    sized = basics({**url, "TRIAD_DATABASE_POOL_SIZE": "16"}, "gateway")
    assert sized["database_pool_size"] == 16
    with pytest.raises(SettingsError, match="TRIAD_DATABASE_POOL_SIZE"):
        basics({**url, "TRIAD_DATABASE_POOL_SIZE": "1"}, "match")


def test_a_nats_namespace_gives_a_deployment_names_no_other_deployment_has() -> None:
    """Found from outside: 'blue-1' and 'blue_1' made one stream name (the second
    deployment took the first's stream over), and 'events' was refused by JetStream for
    overlapping the plain deployment's subjects."""

    def of(value: str) -> Settings:
        return Settings.from_env({"TRIAD_NATS_NAMESPACE": value})

    with pytest.raises(SettingsError, match="TRIAD_NATS_NAMESPACE"):
        of("blue-1")
    plain, events, staging = Settings(), of("events"), of("Staging")
    assert staging.namespace == "staging"
    streams = [EventStream.of(s) for s in (plain, events, staging)]
    assert [s.name for s in streams] == [
        "TRIAD_EVENTS",
        "TRIAD_EVENTS_EVENTS",
        "TRIAD_EVENTS_STAGING",
    ]
    # no subject of one is a subject of another: their first two tokens differ
    assert [s.filter() for s in streams] == [
        "triad.events.>",
        "triad.ns.events.events.>",
        "triad.ns.staging.events.>",
    ]
    assert [player_prefix(s) for s in (plain, events)] == ["triad.player", "triad.ns.events.player"]


def test_the_event_stream_keeps_events_a_week_unless_told_otherwise() -> None:
    """Found in review: the stream kept every event for ever, so it grew until NATS's
    store was full and every relay stopped publishing."""

    def stream(**env: str) -> EventStream:
        return EventStream.of(Settings.from_env(env))

    assert stream().max_age == 7 * 24 * 3600
    assert stream(TRIAD_NATS_STREAM_MAX_AGE_SECONDS="0").max_age == 0  # for ever, on purpose
    assert (
        stream(TRIAD_NATS_NAMESPACE="blue", TRIAD_NATS_STREAM_MAX_AGE_SECONDS="86400")
        .config()
        .max_age
        == 86400
    )
    for too_short in ("60", "-1", "a day"):
        with pytest.raises(SettingsError, match="TRIAD_NATS_STREAM_MAX_AGE_SECONDS"):
            stream(TRIAD_NATS_STREAM_MAX_AGE_SECONDS=too_short)
