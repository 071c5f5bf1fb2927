"""Smoke test of ``bench/matchmaker.py``: a quick run produces a complete report whose
pairing stays within its CPU budget and whose p95 rating gap stays within the cap."""

from __future__ import annotations

from pathlib import Path

from bench.matchmaker import run
from bench.report import Options


def test_quick_matchmaker_bench_pairs_everyone_within_budget_and_cap(tmp_path: Path) -> None:
    report = run(Options(quick=True, out_dir=tmp_path, seed=3, repeats=1, seconds=0.01))
    assert {"baseline", "pairing_busy", "pairing_quiet"} <= set(report.measurements)
    assert all(check["met"] for check in report.extra["targets"].values())
    for scenario in report.extra["scenarios"].values():
        assert scenario["paired_tickets"] + scenario["left_waiting"] == 2_000
        assert scenario["rating_gap"]["max"] <= 300
        assert 0 < scenario["wait_seconds"]["p50"] <= scenario["wait_seconds"]["p95"]
