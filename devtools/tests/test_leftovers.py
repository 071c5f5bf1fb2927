"""A launcher killed outright leaves its services and NATS running (each in a session of
its own); the next launcher stops them from its ledger before starting anything (found
in review: the next `make run` met ports in use and started a second NATS on the same
JetStream store)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from devtools import leftovers

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc"),
]

LAUNCHER = """
import subprocess, sys, time
from pathlib import Path
from devtools import leftovers
from devtools.embedded import NatsProcess

ledger = Path(sys.argv[1])
leftovers.keep(ledger)
nats = NatsProcess(ledger.parent / "js", ledger.parent / "nats")
nats.start()
service = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True
)
leftovers.started("match", service.pid)
print(nats.pid, service.pid, flush=True)
time.sleep(120)
"""


def alive(pid: int) -> bool:
    return leftovers.start_time(pid) is not None


def test_the_next_launcher_stops_what_a_killed_one_left_running(tmp_path: Path) -> None:
    ledger = tmp_path / "processes"
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(ledger)], stdout=subprocess.PIPE, text=True
    )
    assert launcher.stdout is not None
    nats, service = (int(pid) for pid in launcher.stdout.readline().split())
    try:
        launcher.kill()  # SIGKILL: no finally, no atexit
        launcher.wait(10)
        assert alive(nats) and alive(service), "they outlive the launcher"
        assert sorted(leftovers.stop_left(ledger)) == ["match", "nats"]
        assert not alive(nats) and not alive(service)
        assert not ledger.exists()
        assert leftovers.stop_left(ledger) == [], "nothing left the second time"
    finally:
        for pid in (nats, service):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


def test_a_process_that_took_a_recorded_pid_later_is_left_alone(tmp_path: Path) -> None:
    """The ledger names a pid and its start time: another process under the same pid
    (the old one gone, the number given out again) is none of ours."""
    stranger = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        since = leftovers.start_time(stranger.pid)
        assert since is not None
        (tmp_path / "processes").write_text(f"match {stranger.pid} {int(since) - 1}\n")
        assert leftovers.stop_left(tmp_path / "processes") == []
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait(10)
