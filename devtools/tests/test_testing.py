"""Where the integration tests' servers come from: Docker, else embedded, else the URLs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from devtools import testing
from devtools.embedded import EmbeddedServerError

CONTAINER = "postgresql://test:test@localhost:32768/test"
EMBEDDED = "postgresql://postgres:@/postgres?host=/tmp/triad-pg"
CONFIGURED = "postgresql://triad@db.example:5432/triad"
REPO = Path(__file__).resolve().parents[2]


@contextmanager
def container() -> Iterator[str]:
    yield CONTAINER


@contextmanager
def embedded() -> Iterator[str]:
    yield EMBEDDED


@contextmanager
def broken_embedded() -> Iterator[str]:
    raise EmbeddedServerError("no binaries for this platform")
    yield ""  # never reached; the yield makes this a generator


def chosen(make_embedded: Callable[[], AbstractContextManager[str]] = embedded) -> str:
    with testing.server_for_tests(container, make_embedded, "database_url") as url:
        return url


@pytest.fixture
def docker(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    answers = [False]
    monkeypatch.setattr(testing, "docker_available", lambda: answers[0])
    monkeypatch.delenv("TRIAD_TEST_SERVERS", raising=False)
    monkeypatch.setenv("TRIAD_DATABASE_URL", CONFIGURED)
    yield answers


def test_a_reachable_docker_engine_runs_containers(docker: list[bool]) -> None:
    docker[0] = True
    assert chosen() == CONTAINER


def test_without_docker_the_embedded_servers_run(docker: list[bool]) -> None:
    assert chosen() == EMBEDDED


def test_the_environment_is_the_last_resort(docker: list[bool]) -> None:
    assert chosen(broken_embedded) == CONFIGURED


def test_with_no_source_at_all_the_error_says_what_was_tried(
    docker: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRIAD_DATABASE_URL")
    with pytest.raises(RuntimeError, match="Docker is not reachable"):
        chosen(broken_embedded)


@pytest.mark.parametrize(
    ("mode", "expected"), [("docker", CONTAINER), ("embedded", EMBEDDED), ("env", CONFIGURED)]
)
def test_a_source_can_be_forced(
    docker: list[bool], monkeypatch: pytest.MonkeyPatch, mode: str, expected: str
) -> None:
    monkeypatch.setenv("TRIAD_TEST_SERVERS", mode)
    assert chosen() == expected


def test_forcing_embedded_surfaces_its_failure(
    docker: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIAD_TEST_SERVERS", "embedded")
    with pytest.raises(EmbeddedServerError):
        chosen(broken_embedded)


def test_an_unknown_source_is_a_usage_error(
    docker: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIAD_TEST_SERVERS", "kubernetes")
    with pytest.raises(pytest.UsageError, match="TRIAD_TEST_SERVERS"):
        chosen()


def test_a_database_url_points_at_another_database_on_the_same_server() -> None:
    assert testing.with_database(EMBEDDED, "triad_test_1") == (
        "postgresql://postgres:@/triad_test_1?host=/tmp/triad-pg"
    )
    assert testing.with_database(CONFIGURED, "x") == "postgresql://triad@db.example:5432/x"


SERVER_AND_PLAIN_TESTS = """
import pytest

@pytest.fixture
def pool_like(postgres_url):
    return postgres_url

def test_through_a_fixture(pool_like):
    pass

def test_direct(nats_url):
    pass

def test_plain():
    pass
"""


def test_a_test_that_reaches_a_server_is_marked_integration_and_unit_runs_skip_it(
    tmp_path: Path,
) -> None:
    # Servers that cannot be reached: a test that asked for one would error, not pass.
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_mixed.py").write_text(SERVER_AND_PLAIN_TESTS)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TRIAD_TEST_SERVERS": "env",
        "TRIAD_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
        "TRIAD_NATS_URL": "nats://127.0.0.1:1",
    }
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "devtools.testing", "-p", "no:cacheprovider",
         "-q", "-m", "not integration", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 2 deselected" in run.stdout, run.stdout
