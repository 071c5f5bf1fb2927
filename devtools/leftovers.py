"""What a launcher started, written down, so that a launcher killed outright leaves
nothing running past its next start.

``make run`` stops every service and NATS when it ends, on Ctrl-C, SIGTERM or SIGHUP.
Killed with SIGKILL (or by the OOM killer) it cannot: every service and NATS runs in a
session of its own (so that a Ctrl-C in the terminal is the launcher's to act on) and
goes on without it. The next ``make run`` then met ports in use and a second NATS on the
same JetStream store (found in review: nats-server does not lock its store). So the
launcher keeps a ledger (:func:`keep`): each process it starts is written down with its
start time, and the next launcher stops what is still running of it (:func:`stop_left`)
before it starts anything. The start time tells a process of ours from a later one that
got the same pid.

Only ``make run`` keeps a ledger; tests and benchmarks stop what they start themselves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

LAST = "nats"
"""Stopped after the others: the services drain through it."""
STOP_SECONDS = 10.0

_kept: dict[str, Path] = {}
"""The ledger of this process, under "ledger" while one is kept."""


def keep(path: Path) -> None:
    """Write every process started from now on (:func:`started`) to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    _kept["ledger"] = path


def started(name: str, pid: int) -> None:
    """Note a process just started (nothing when no ledger is kept)."""
    path, since = _kept.get("ledger"), start_time(pid)
    if path is not None and since is not None:
        with path.open("a") as ledger:
            ledger.write(f"{name} {pid} {since}\n")


def forget() -> None:
    """Everything written down was stopped: the ledger goes."""
    path = _kept.pop("ledger", None)
    if path is not None:
        path.unlink(missing_ok=True)


def stop_left(path: Path) -> list[str]:
    """Stop the processes of ``path``'s ledger still running (SIGTERM to each process
    group, NATS last; SIGKILL after :data:`STOP_SECONDS`); the names of those stopped."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return []
    alive: list[tuple[str, int]] = []
    for line in lines:
        name, number, since = line.split()
        if start_time(int(number)) == since:  # not a later process under the same pid
            alive.append((name, int(number)))
    for last in (False, True):
        stopping = [(name, pid) for name, pid in alive if (name == LAST) == last]
        for _, pid in stopping:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGTERM)
        for _, pid in stopping:
            if not wait_group_gone(pid, STOP_SECONDS):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
                wait_group_gone(pid, STOP_SECONDS)
    path.unlink(missing_ok=True)
    return [name for name, _ in alive]


def start_time(pid: int) -> str | None:
    """When the process started (clock ticks after boot, /proc/PID/stat's 22nd field);
    None if it is gone or this is no Linux."""
    stat = _stat(str(pid))
    return None if stat is None or stat[0] in ("Z", "X") else stat[19]


def wait_group_gone(group: int, timeout: float = 10.0) -> bool:
    """Wait until no live process is left in the process group (a SIGKILLed worker
    takes a moment to die; a zombie waiting for its reaper counts as gone); whether it
    went in time."""
    deadline = time.monotonic() + timeout
    while _group_alive(group):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _group_alive(group: int) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False  # no /proc: nothing to look at
    for entry in entries:
        stat = _stat(entry) if entry.isdigit() else None
        if stat is not None and int(stat[2]) == group and stat[0] not in ("Z", "X"):
            return True
    return False


def _stat(pid: str) -> list[str] | None:
    """/proc/PID/stat's fields after the command: state, ppid, pgrp, ..."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None
