"""Settings shared by every service, read once from the environment.

Every variable carries the ``TRIAD_`` prefix. The composition root calls
``Settings.from_env()`` once at start and passes the value down; nothing reads
``os.environ`` later, so a bad value fails at start with a message that names the
variable, never halfway through a match.

An empty value counts as unset: deployment templates often render ``TRIAD_X=`` for
"not configured", and that must mean the default, not a malformed URL.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypedDict, TypeVar
from urllib.parse import urlsplit

from services.platform.endpoints import DEFAULT_PORTS, LOCAL_HOST

PREFIX = "TRIAD_"

POSTGRES_SCHEMES = frozenset({"postgres", "postgresql"})
NATS_SCHEMES = frozenset({"nats", "tls", "ws", "wss"})

N = TypeVar("N", int, float)

STREAM_MAX_AGE = 7 * 24 * 3600.0
STREAM_MAX_AGE_MINIMUM = 3600.0
"""An hour: well above the stream's duplicate window (JetStream refuses a window longer
than the age), and no consumer restart is meant to take longer."""


class SettingsError(ValueError):
    """A TRIAD_ variable is malformed; the message names it and says what is expected."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the shared infrastructure is. ``None``: not configured. A service refuses
    to start without a database (``required_database``) and runs without NATS, its
    events unpublished; ``make run`` (``devtools``) starts embedded servers and sets
    both URLs for the processes it runs."""

    database_url: str | None = None
    nats_url: str | None = None
    stream_replicas: int = 1
    """Replicas of the JetStream event stream (3 on a NATS cluster of three)."""
    stream_max_age: float = STREAM_MAX_AGE
    """How long the JetStream event stream keeps an event, in seconds
    (``TRIAD_NATS_STREAM_MAX_AGE_SECONDS``; 7 days by default; 0 keeps every event for
    ever). PostgreSQL's event logs keep every event whatever this is: the stream is the
    delivery, not the record. A consumer stopped for longer than this misses what aged
    out, and ``triad-admin consumer reset`` cannot go further back; the consumer-lag
    alerts fire hours before. Unbounded, the stream grows until NATS's store is full and
    every relay stops publishing (found in review: nothing bounded it)."""
    namespace: str = ""
    """This deployment's part of a NATS it may share with others (``TRIAD_NATS_NAMESPACE``:
    staging beside production, or test backends on one server): its event stream and
    subjects are its own, under ``triad.ns.<namespace>`` (``bus.EventStream.of``,
    ``pushes.player_prefix``), which no other namespace's and no plain name overlaps.
    Empty: the plain names (``TRIAD_EVENTS``, ``triad.events.*``, ``triad.player.*``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=postgres_url(env, PREFIX + "DATABASE_URL"),
            nats_url=nats_url(env, PREFIX + "NATS_URL"),
            stream_replicas=int(number(env, PREFIX + "NATS_STREAM_REPLICAS", 1, minimum=1)),
            stream_max_age=stream_max_age(env, PREFIX + "NATS_STREAM_MAX_AGE_SECONDS"),
            namespace=namespace(env, PREFIX + "NATS_NAMESPACE"),
        )

    @property
    def nats_servers(self) -> list[str]:
        """The NATS seed URLs as nats-py takes them (a cluster is a comma-separated list)."""
        return [] if self.nats_url is None else [u.strip() for u in self.nats_url.split(",")]


def stream_max_age(env: Mapping[str, str], name: str) -> float:
    """The event stream's retention in seconds: 0 (for ever) or at least an hour."""
    value = number(env, name, STREAM_MAX_AGE)
    if 0 < value < STREAM_MAX_AGE_MINIMUM:
        raise SettingsError(
            f"{name} must be 0 (keep events for ever) or at least {STREAM_MAX_AGE_MINIMUM:.0f} "
            f"seconds, got {value:g}"
        )
    return value


_NAMESPACE = re.compile(r"[a-z0-9][a-z0-9_]{0,31}")


def namespace(env: Mapping[str, str], name: str) -> str:
    """A NATS namespace: empty, or 1..32 of a-z, 0-9 and '_' (one subject token, and
    upper-cased the end of a JetStream stream name: no two namespaces give one name)."""
    value = (optional(env, name) or "").lower()
    if value and not _NAMESPACE.fullmatch(value):
        raise SettingsError(
            f"{name} must be 1..32 letters, digits or '_', starting with a letter or digit, "
            f"not {value!r}"
        )
    return value


def optional(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def postgres_url(env: Mapping[str, str], name: str) -> str | None:
    """A libpq-style URL, as asyncpg takes it.

    No host is allowed (libpq's default socket), and so is ``?host=/dir`` for a Unix
    socket, which is what the embedded server hands out.
    """
    value = optional(env, name)
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in POSTGRES_SCHEMES:
        raise SettingsError(
            f"{name} must be a postgresql:// URL such as "
            f"postgresql://user:password@host:5432/triad, got scheme {parts.scheme!r}"
        )
    _check_port(name, value)
    return value


def nats_url(env: Mapping[str, str], name: str) -> str | None:
    """One NATS URL, or a comma-separated list of seed URLs for a cluster."""
    value = optional(env, name)
    if value is None:
        return None
    for server in (s.strip() for s in value.split(",")):
        parts = urlsplit(server)
        if parts.scheme not in NATS_SCHEMES or not parts.hostname:
            raise SettingsError(
                f"{name} must be nats://host:4222 (or a comma-separated list of such URLs; "
                f"tls://, ws:// and wss:// also work), got {server!r}"
            )
        _check_port(name, server)
    return value


def _check_port(name: str, url: str) -> None:
    try:
        urlsplit(url).port  # noqa: B018 -- parsing the port is the check
    except ValueError as error:
        raise SettingsError(f"{name} has an invalid port: {error}") from None


def number(env: Mapping[str, str], name: str, default: float, minimum: float = 0.0) -> float:
    """A number such as a duration in seconds; the default when unset."""
    return _at_least(env, name, default, minimum, float, "a number")


def whole(env: Mapping[str, str], name: str, default: int, minimum: int = 0) -> int:
    """A whole number such as a count or a season; the default when unset."""
    return _at_least(env, name, default, minimum, int, "a whole number")


def _at_least(
    env: Mapping[str, str], name: str, default: N, minimum: N, parse: Callable[[str], N], what: str
) -> N:
    value = optional(env, name)
    if value is None:
        return default
    try:
        parsed = parse(value)
    except ValueError:
        raise SettingsError(f"{name} must be {what}, got {value!r}") from None
    if not parsed >= minimum:  # "not >=" also refuses NaN
        raise SettingsError(f"{name} must be {what} of at least {minimum}, got {value!r}")
    return parsed


def port(env: Mapping[str, str], name: str, default: int) -> int:
    """A TCP port; 0 lets the system choose a free one."""
    value = optional(env, name)
    if value is None:
        return default
    if not value.isdigit() or not 0 <= int(value) <= 65535:
        raise SettingsError(f"{name} must be a port number 0..65535, got {value!r}")
    return int(value)


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """What every service's settings hold, read the same way (``basics``): where the
    shared servers are and where the service listens. A service's settings subclass
    it with their own fields and read them beside it::

        @dataclass(frozen=True, slots=True)
        class MatchSettings(ServiceSettings):
            turn_seconds: float

            @classmethod
            def from_env(cls, environ: Mapping[str, str] | None = None) -> MatchSettings:
                env = os.environ if environ is None else environ
                return cls(**basics(env, "match"), turn_seconds=number(env, ...))
    """

    database_url: str
    nats_url: str | None
    host: str
    port: int
    metrics_port: int
    """0 lets the system choose (tests); the bound port is logged at start."""
    database_pool_size: int
    """The most PostgreSQL connections one process's pool holds
    (``TRIAD_DATABASE_POOL_SIZE``, 32 by default): the deployment sizes PostgreSQL's
    ``max_connections`` as replicas times this."""
    retention_days: float
    """How long request keys and finished bookkeeping are kept before they are pruned
    (``TRIAD_RETENTION_DAYS``, 7 by default; ``services.platform.retention``)."""
    shared: Settings
    """Where the shared servers are, as read with these settings."""


class Basics(TypedDict):
    """``ServiceSettings``' fields by name, as ``basics`` reads them."""

    database_url: str
    nats_url: str | None
    host: str
    port: int
    metrics_port: int
    database_pool_size: int
    retention_days: float
    shared: Settings


def basics(env: Mapping[str, str], service: str) -> Basics:
    """The fields every service reads the same way: the shared servers (the database is
    required), ``TRIAD_<SERVICE>_HOST`` (local by default), ``TRIAD_<SERVICE>_PORT`` and
    ``TRIAD_<SERVICE>_METRICS_PORT`` (by default the service's in ``DEFAULT_PORTS``),
    ``TRIAD_DATABASE_POOL_SIZE``, ``TRIAD_RETENTION_DAYS``."""
    shared = Settings.from_env(env)
    name = f"{PREFIX}{service.upper()}"
    return Basics(
        database_url=required_database(shared, f"triad-{service}"),
        nats_url=shared.nats_url,
        host=optional(env, f"{name}_HOST") or LOCAL_HOST,
        port=port(env, f"{name}_PORT", DEFAULT_PORTS[service].grpc),
        metrics_port=port(env, f"{name}_METRICS_PORT", DEFAULT_PORTS[service].metrics),
        database_pool_size=whole(env, f"{PREFIX}DATABASE_POOL_SIZE", 32, minimum=2),
        retention_days=number(env, f"{PREFIX}RETENTION_DAYS", 7.0, minimum=0.0001),
        shared=shared,
    )


def required_database(shared: Settings, program: str) -> str:
    """The database URL a service cannot start without."""
    if shared.database_url is None:
        raise SettingsError(
            f"TRIAD_DATABASE_URL is required by {program} (make run starts an embedded "
            "PostgreSQL and sets it for every service)"
        )
    return shared.database_url
