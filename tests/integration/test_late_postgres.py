"""A service started before PostgreSQL answers waits for it and serves once it does, as
in a deployment's first minutes (deploy/k8s/README.md: the pods start by themselves
once PostgreSQL is up), and stops at once when told to while it waits.

Found from outside: a service that could not reach PostgreSQL at start ended at once
with asyncpg's traceback (in Kubernetes: a crash loop whose back-off grows to five
minutes, while the database was seconds away).

The collection service as a process; PostgreSQL is the tests' own, reached through a
socket directory that holds its socket only once the test links it there.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from devtools.processes import ROOT, free_port
from services.collection.tests.process import collection_service

pytestmark = pytest.mark.integration


def socket_dir_of(database_url: str) -> Path:
    query = parse_qs(urlsplit(database_url).query)
    if "host" not in query:
        pytest.skip("PostgreSQL on TCP here: the test links a Unix socket (embedded servers)")
    return Path(query["host"][0])


def elsewhere(database_url: str, directory: Path) -> str:
    """The same database through another socket directory."""
    parts = urlsplit(database_url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()} | {"host": str(directory)}
    return parts._replace(query="&".join(f"{k}={v}" for k, v in query.items())).geturl()


def events(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


def test_a_service_waits_for_postgresql_and_serves_once_it_answers(
    shared_database_url: str, tmp_path: Path
) -> None:
    real = socket_dir_of(shared_database_url)
    later = tmp_path / "pg"
    later.mkdir()

    log = tmp_path / "collection.log"

    def postgres_comes_up() -> None:  # once the service says it waits
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and "waiting for PostgreSQL" in log.read_text():
                break
            time.sleep(0.05)
        time.sleep(1)  # a try or two more
        for socket in real.glob(".s.PGSQL.*"):
            if not socket.name.endswith(".lock"):
                (later / socket.name).symlink_to(socket)

    threading.Thread(target=postgres_comes_up, daemon=True).start()
    with collection_service(elsewhere(shared_database_url, later), None, log):
        told = [e["event"] for e in events(log)]
    assert told.index("waiting for PostgreSQL") < told.index("PostgreSQL reached")
    assert told.count("waiting for PostgreSQL") == 1  # one line, not one per try
    assert "Traceback" not in log.read_text()


def test_a_service_told_to_stop_while_it_waits_for_postgresql_stops_at_once(
    tmp_path: Path,
) -> None:
    port = free_port()  # nothing listens there
    env = {
        "TRIAD_DATABASE_URL": f"postgresql://triad:s3cret@127.0.0.1:{port}/triad",
        "TRIAD_COLLECTION_PORT": str(free_port()),
        "TRIAD_COLLECTION_METRICS_PORT": "0",
    }
    log = tmp_path / "collection.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "services.collection.main"],
            env={**os.environ, **env},
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while "waiting for PostgreSQL" not in log.read_text():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        waiting = next(e for e in events(log) if e["event"] == "waiting for PostgreSQL")
        assert waiting["server"] == f"127.0.0.1:{port}"
        assert "s3cret" not in log.read_text()
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert "Traceback" not in log.read_text()


def test_a_service_that_cannot_use_its_database_says_why_in_one_log_line(
    shared_database_url: str, tmp_path: Path
) -> None:
    """Not a matter of reach (no such database): the service ends at once, exit 1, with
    one JSON line naming the error, its traceback inside it (found from outside: a
    traceback over many lines, each a message of its own to a log collector)."""
    nowhere = urlsplit(shared_database_url)._replace(path="/no_such_database").geturl()
    done = subprocess.run(
        [sys.executable, "-m", "services.collection.main"],
        env={
            **os.environ,
            "TRIAD_DATABASE_URL": nowhere,
            "TRIAD_COLLECTION_PORT": str(free_port()),
            "TRIAD_COLLECTION_METRICS_PORT": "0",
        },
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done
    lines = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    assert not done.stderr, done.stderr
    (failed,) = (e for e in lines if e["event"] == "service failed")
    assert failed["level"] == "error" and "no_such_database" in str(failed["error"])
    assert "Traceback" in str(failed["exception"])
