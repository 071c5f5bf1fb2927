"""The deployment checks on a machine without the ops tools: skipped with the command
that enables them, never failed (``make test`` installs the tools only where it can, as
root; issue: a fresh machine's ``make test`` ended in three failures for want of promtool).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_promtool_checks_are_skipped_with_the_command_that_enables_them(
    tmp_path: Path,
) -> None:
    # A PATH that holds nothing: no promtool (the venv's own tools stay reachable by path).
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "tests/deploy/test_deploy_monitoring.py",
            "-k",
            "promtool",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "failed" not in out, out
    assert " skipped" in out, out
    assert "promtool is not installed: run `make ops-tools` as root" in out, out


def test_the_checks_the_deployment_files_point_to_exist() -> None:
    """A comment that says which test keeps a file in step sends the reader there."""
    named = {
        (path.relative_to(ROOT), found)
        for path in (ROOT / "deploy" / "k8s").rglob("*")
        if path.is_file() and path.suffix in {".yaml", ".env", ".conf", ".md"}
        for found in re.findall(r"\btests/[\w/]+\.py\b", path.read_text())
    }
    assert named
    assert [(str(p), f) for p, f in sorted(named) if not (ROOT / f).exists()] == []
