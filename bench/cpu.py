"""What processes have spent, read from /proc (Linux): the one reader of process CPU
every benchmark uses (bench/service.py's ``CpuMeter`` for the closed loops,
bench/idle_figures.py for idle sessions, bench/gateway.py per placement).

Why process trees: PostgreSQL starts and reaps a backend per connection and the match
service runs bot workers; a reaped child's CPU moves into its parent's ``cutime`` and
``cstime``, so summing ``utime + stime + cutime + cstime`` over the live tree counts
every CPU second once, whether the child is still there at the end of the window or not.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProcStat:
    """The fields of ``/proc/<pid>/stat`` the benchmarks need; times in clock ticks."""

    pid: int
    ppid: int
    utime: int
    stime: int
    cutime: int
    cstime: int

    @property
    def ticks(self) -> int:
        """Its own CPU and that of its reaped children."""
        return self.utime + self.stime + self.cutime + self.cstime


def parse_stat(text: str) -> ProcStat:
    """``/proc/<pid>/stat``: the command (field 2) may hold spaces and parentheses, so
    the fields are counted from its last ``)``."""
    head, _, tail = text.rpartition(")")
    pid = int(head.split("(", 1)[0])
    fields = tail.split()
    # After the command: state, ppid, pgrp, session, tty, tpgid, flags, minflt,
    # cminflt, majflt, cmajflt, utime, stime, cutime, cstime.
    return ProcStat(
        pid, int(fields[1]), int(fields[11]), int(fields[12]), int(fields[13]), int(fields[14])
    )


def available() -> bool:
    """Whether this system has a /proc to read."""
    return os.path.exists("/proc/self/stat")


def read_stat(pid: int) -> ProcStat | None:
    """One process's stat; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return parse_stat(file.read())
    except (OSError, ValueError, IndexError):
        return None


def read_stats() -> dict[int, ProcStat]:
    """One snapshot of every process's ``/proc/<pid>/stat`` (processes that end while it
    is read are left out)."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := read_stat(int(entry))) is not None:
            stats[stat.pid] = stat
    return stats


def parent_pid(pid: int) -> int | None:
    """The parent of a running process: a backend's (``pg_backend_pid()``) is the
    postmaster."""
    stat = read_stat(pid)
    return None if stat is None else stat.ppid


def tree(stats: Mapping[int, ProcStat], root: int) -> list[int]:
    """``root`` (first) and every live descendant of it in ``stats`` (one snapshot of
    /proc)."""
    children: dict[int, list[int]] = {}
    for stat in stats.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    found: list[int] = []
    todo = [root] if root in stats else []
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def tree_cpu_seconds(stats: Mapping[int, ProcStat], root: int, ticks_per_second: int) -> float:
    """CPU the tree under ``root`` has spent: each live process's own and reaped
    children's time (see the module docstring)."""
    return sum(stats[pid].ticks for pid in tree(stats, root)) / ticks_per_second


def cpu_seconds(
    roots: Mapping[str, int], stats: Mapping[int, ProcStat] | None = None
) -> dict[str, float]:
    """CPU spent so far by every process tree in ``roots`` (name -> root pid), from one
    snapshot of /proc."""
    stats = read_stats() if stats is None else stats
    ticks = os.sysconf("SC_CLK_TCK")
    return {name: tree_cpu_seconds(stats, pid, ticks) for name, pid in roots.items()}
