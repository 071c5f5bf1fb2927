"""What a benchmark's figures depend on besides the code: the one core it ran on, the
machine (interpreter, CPU, how busy the host was) and the commit measured. Every report
carries them (bench/report.py)."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

JSON = dict[str, Any]

REPO_ROOT = Path(__file__).resolve().parent.parent


RESULTS_PATHSPEC = ":(exclude)bench/results"
"""Reports land in the work tree; they must not make the tree count as dirty."""


@contextlib.contextmanager
def pinned_to_one_core(enabled: bool = True) -> Iterator[JSON]:
    """Run the body on the first CPU this process may use, then restore the old set.

    One core because the figures are "per core": it stops the scheduler migrating the
    process mid-repeat (cold caches) and keeps the numbers from depending on how many
    cores happen to be free. Where affinity is unsupported or refused, the run goes on
    unpinned and the report says so.
    """
    info: JSON = {"requested": enabled, "pinned": False, "cpu": None, "allowed_before": None}
    if not hasattr(os, "sched_getaffinity") or not hasattr(os, "sched_setaffinity"):
        info["note"] = "os.sched_setaffinity is not available on this platform"
        yield info
        return
    before = os.sched_getaffinity(0)
    info["allowed_before"] = sorted(before)
    if not enabled:
        info["note"] = "pinning disabled on the command line"
        yield info
        return
    cpu = min(before)
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError as exc:
        info["note"] = f"sched_setaffinity refused: {exc}"
        yield info
        return
    info.update(pinned=True, cpu=cpu)
    try:
        yield info
    finally:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, before)


def _cpuinfo() -> dict[str, str]:
    """The first processor's block of /proc/cpuinfo (empty where there is none)."""
    facts: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return facts
    for line in text.splitlines():
        if not line.strip():
            if facts:
                break
            continue
        key, _, value = line.partition(":")
        facts.setdefault(key.strip(), value.strip())
    return facts


def machine_facts() -> JSON:
    """What the numbers depend on besides the code: interpreter, CPU, how busy the host was.
    (The CPUs this process may use are in the affinity record, taken before pinning.)"""
    cpu = _cpuinfo()
    model = cpu.get("model name") or cpu.get("Hardware") or cpu.get("Processor")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "compiler": platform.python_compiler(),
            "build": list(platform.python_build()),
            "executable": sys.executable,
        },
        "cpu_model": model or platform.processor() or None,
        "cpu_mhz": cpu.get("cpu MHz"),
        "cpu_count": os.cpu_count(),
        "load_average": [round(x, 2) for x in load] if load else None,
    }


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def git_facts() -> JSON:
    """The commit measured, and whether the work tree differed from it (then the numbers
    belong to uncommitted code: the dirty paths say which). Reports are ignored."""
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--", ".", RESULTS_PATHSPEC)
    paths = [line[3:] for line in status.splitlines() if line.strip()] if status else []
    return {
        "commit": commit.strip() if commit else None,
        "dirty": None if status is None else bool(paths),
        "dirty_paths": paths[:50],
    }
