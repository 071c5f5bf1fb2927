"""Smoke test of the benchmarks: ``python -m bench --quick`` runs and writes valid reports.

Why: nobody runs ``make bench`` on every change, so without this a refactor of the engine
or of bench/ could silently break it. The quick run says nothing about speed; it only
checks that each report is well formed and its figures are positive. Reports go to a
temporary directory so the test never litters bench/results/.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import BENCHMARKS, main


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_quick_rules_run_writes_a_complete_report(tmp_path: Path) -> None:
    assert main(["rules", "--quick", "--out", str(tmp_path)]) == 0

    latest = tmp_path / "rules-latest.json"
    stamped = sorted(tmp_path.glob("rules-2*.json"))
    assert len(stamped) == 1
    data = _load(latest)
    assert _load(stamped[0]) == data
    assert not list(tmp_path.glob("*.tmp"))

    for key in ("schema", "benchmark", "utc_time", "git", "machine", "parameters"):
        assert key in data, key
    assert data["benchmark"] == "rules"
    assert data["quick"] is True
    assert data["utc_time"].endswith("Z")
    assert set(data["git"]) >= {"commit", "dirty"}
    machine = data["machine"]
    for key in ("platform", "python", "cpu_model", "cpu_count", "affinity"):
        assert key in machine, key
    assert machine["python"]["version"].startswith("3.")
    assert "pinned" in machine["affinity"]
    assert {"seed", "positions", "repeats"} <= set(data["parameters"])
    assert data["parameters"]["rules"] == {
        "same": True,
        "plus": True,
        "combo": True,
        "elemental": True,
        "same_wall": True,
    }

    results = data["results"]
    assert {"baseline", "kernel_resolve", "board_place", "random_games"} <= set(results)
    for name, result in results.items():
        assert result["unit"].endswith("/s"), name
        for key in ("best", "median", "worst"):
            assert _positive(result[key]), (name, key)
        assert len(result["samples"]) == data["parameters"]["repeats"]
        assert all(_positive(rate) for rate in result["samples"])
        if name != "baseline":
            assert _positive(result["ratio_to_baseline"]["best"]), name

    (target,) = data["targets"]
    assert target["metric"] == "kernel_resolve"
    assert target["minimum"] == 300_000
    assert target["unit"] == "placements/s"
    assert isinstance(target["met"], bool)
    assert target["met"] == (results["kernel_resolve"]["best"] >= 300_000)
    assert data["notes"]


def test_every_registered_benchmark_is_importable() -> None:
    import importlib

    for module in BENCHMARKS.values():
        assert callable(importlib.import_module(module).run)


def test_unknown_benchmark_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["no-such-bench", "--quick", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert not list(tmp_path.iterdir())
