"""The embedded servers are the real ones, and stopping them leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import nats
import pytest

from devtools.embedded import (
    NatsProcess,
    PostgresProcess,
    embedded_nats,
    embedded_postgres,
    nats_server_binary,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc"),
]


def running(pid: int) -> bool:
    """Alive and not a zombie (an exited daemon waits for init to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until_gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def children_named(name: str) -> list[int]:
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            comm, rest = stat_file.read_text().rsplit(")", 1)
        except OSError:
            continue
        state, ppid = rest.split()[:2]
        if comm.endswith(f"({name}") and int(ppid) == os.getpid() and state != "Z":
            found.append(int(stat_file.parent.name))
    return found


def accepts_connections(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "", parts.port or 0), timeout=1).close()
    except OSError:
        return False
    return True


async def test_embedded_postgres_is_a_real_server_and_stops_without_a_trace() -> None:
    with embedded_postgres() as url:
        conn = await asyncpg.connect(url)
        version = await conn.fetchval("SHOW server_version_num")
        data_dir = Path(await conn.fetchval("SHOW data_directory"))
        await conn.close()
        postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
        assert running(postmaster)

    assert int(version) >= 130000  # xid8 and pg_current_snapshot() arrived in 13
    assert wait_until_gone(postmaster), "the postmaster outlived the context"
    assert not data_dir.exists()


async def test_embedded_postgres_keeps_its_data_in_a_given_directory(tmp_path: Path) -> None:
    with embedded_postgres(tmp_path / "pgdata") as url:
        conn = await asyncpg.connect(url)
        await conn.execute("CREATE TABLE kept AS SELECT 42 AS answer")
        await conn.close()

    with embedded_postgres(tmp_path / "pgdata") as url:
        conn = await asyncpg.connect(url)
        assert await conn.fetchval("SELECT answer FROM kept") == 42
        await conn.close()


async def test_embedded_nats_has_jetstream_and_stops_without_a_trace() -> None:
    assert Path(nats_server_binary()).name == "nats-server"
    before = set(children_named("nats-server"))  # the session's server may be running

    with embedded_nats() as url:
        assert set(children_named("nats-server")) - before
        client = await nats.connect(url)
        js = client.jetstream()
        await js.add_stream(name="SMOKE", subjects=["smoke.>"])
        first = await js.publish("smoke.a", b"1", headers={"Nats-Msg-Id": "event-1"})
        again = await js.publish("smoke.a", b"1", headers={"Nats-Msg-Id": "event-1"})
        await client.close()

    assert (first.duplicate, again.duplicate, again.seq) == (None, True, first.seq)
    assert set(children_named("nats-server")) <= before
    assert not accepts_connections(url)


async def test_a_restarted_nats_comes_back_on_its_port_with_its_streams(tmp_path: Path) -> None:
    with embedded_nats(store_dir=tmp_path / "js") as url:
        client = await nats.connect(url)
        await client.jetstream().add_stream(name="KEPT", subjects=["kept.>"])
        await client.jetstream().publish("kept.a", b"1")
        await client.close()

    port = urlsplit(url).port
    assert port is not None
    with embedded_nats(store_dir=tmp_path / "js", port=port) as again:
        assert again == url
        client = await nats.connect(again)
        info = await client.jetstream().stream_info("KEPT")
        await client.close()

    assert info.state.messages == 1


async def test_postgres_restarted_after_a_crash_keeps_committed_data_at_the_same_url() -> None:
    # Not under tmp_path: as root the server runs as another user, who must reach the
    # data directory, and pytest keeps its base temporary directory closed to others.
    scratch = tempfile.TemporaryDirectory(prefix="triad-pg-restart-")
    server = PostgresProcess(Path(scratch.name) / "pgdata")
    url = server.start()
    try:
        conn = await asyncpg.connect(url)
        await conn.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
        server.stop("immediate")  # no shutdown checkpoint: the next start replays the WAL
        assert not server.running
        with pytest.raises((OSError, asyncpg.PostgresError, asyncpg.InterfaceError)):
            await conn.fetchval("SELECT 1")
        assert server.start() == url
        again = await asyncpg.connect(url)
        assert await again.fetchval("SELECT n FROM kept") == 7
        await again.close()
    finally:
        server.stop()
        scratch.cleanup()
    assert not server.running


async def test_nats_stopped_and_started_again_is_back_on_its_port_with_its_store(
    tmp_path: Path,
) -> None:
    server = NatsProcess(tmp_path / "js", tmp_path / "nats")
    url = server.start()
    try:
        client = await nats.connect(url)
        await client.jetstream().add_stream(name="KEPT", subjects=["kept.>"])
        await client.jetstream().publish("kept.a", b"1")
        await client.close()
        server.stop(kill=True)
        assert not server.running and not accepts_connections(url)
        assert server.start() == url
        client = await nats.connect(url)
        info = await client.jetstream().stream_info("KEPT")
        await client.close()
    finally:
        server.stop()
    assert info.state.messages == 1


LAUNCHER = """
import sys, time, nats, asyncio
from devtools.embedded import embedded_nats

with embedded_nats() as url:
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:  # Ctrl-C: the launcher still needs NATS while it drains
        time.sleep(0.5)

        async def reach() -> None:
            client = await nats.connect(url, connect_timeout=2, max_reconnect_attempts=1)
            await client.close()

        try:
            asyncio.run(reach())
            print("nats served the drain", flush=True)
        except Exception as error:
            print(f"nats was gone: {error!r}", flush=True)
"""


def test_a_ctrl_c_in_the_launchers_terminal_leaves_nats_to_the_launcher() -> None:
    """Found from outside: Ctrl-C in `make run`'s terminal reached nats-server too (one
    process group), so NATS stopped before the services had drained and their last
    events and pushes met a closed connection."""
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        assert launcher.stdout is not None
        assert launcher.stdout.readline().strip() == "ready"
        os.killpg(launcher.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        said = launcher.stdout.read()
        assert launcher.wait(30) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(launcher.pid, signal.SIGKILL)
    assert "nats served the drain" in said, said
