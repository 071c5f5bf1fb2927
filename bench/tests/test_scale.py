"""The scale model's arithmetic (bench/scale.py): load from players, CPU by process,
replicas, database and NATS rates, and the linearity ratios, from reports shaped as the
gateway and idle benchmarks write them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import scale
from bench.scale import Assumptions, Costs, Linearity, plan, replicas_for

ZERO = {"gateway": 0.0, "match": 0.0, "matchmaker": 0.0, "collection": 0.0, "rating": 0.0}


def _gateway() -> dict[str, Any]:
    level = {
        "cpu_ms_per_placement": {
            **ZERO,
            "gateway": 0.5,
            "match": 0.4,
            "postgres": 0.2,
            "nats": 0.1,
        },
        "cpu_ms_per_placement_total": 1.2,
        "cpu_ms_per_match_start": {**ZERO, "gateway": 3.0, "matchmaker": 1.0, "postgres": 1.0},
        "transactions_per_placement": 0.5,
        "transactions_per_match_start": 4.0,
        "events_per_placement": 1.1,
        "events_per_match_start": 2.0,
        "session_messages_per_placement": 2.0,
    }
    return {
        "benchmark": "gateway",
        "utc_time": "2026-12-01T18:00:00Z",
        "git": {"commit": "abcdef0123", "dirty": False},
        "extra": {
            "cpu": {
                "placements_16": {"cpu_ms_per_placement_total": 1.0},
                "placements_64": level,
            },
            "event_logs": {
                "match": {"rows": 900, "bytes": 400_000},
                "collection": {"rows": 100, "bytes": 100_000},
            },
        },
    }


def _idle() -> dict[str, Any]:
    return {
        "benchmark": "idle",
        "utc_time": "2026-12-01T17:55:08Z",
        "git": {"commit": "1234567abc", "dirty": True},
        "extra": {
            "windows": {
                "0": {
                    "cpu_ms_per_second": {**ZERO, "match": 40.0, "postgres": 20.0, "nats": 5.0},
                    "transactions_per_second": 100.0,
                }
            },
            "per_session": {
                "1000": {"cpu_ms_per_second_total": 0.04, "cpu_ms_per_second": {}},
                "5000": {
                    "cpu_ms_per_second_total": 0.02,
                    "cpu_ms_per_second": {**ZERO, "gateway": 0.02, "postgres": -0.0005},
                    "transactions_per_second": -0.001,
                    "rss_kb": {"gateway": 40.0},
                },
            },
            "marginal": {"1000-5000": {"cpu_ms_per_second_total": 0.014}},
        },
    }


def test_costs_come_from_the_64_match_level_and_the_largest_idle_size_and_name_their_runs() -> None:
    costs = Costs.from_reports(_gateway(), _idle())
    assert costs.placement_ms["gateway"] == 0.5
    assert costs.session_ms_per_second["gateway"] == 0.02
    assert costs.replica_ms_per_second["match"] == 40.0
    assert costs.transactions_per_session_second == 0.0  # noise below zero is no saving
    assert costs.session_ms_per_second["postgres"] == 0.0
    assert costs.event_bytes_per_row == 500.0
    assert costs.sources["gateway"].startswith("bench gateway 2026-12-01T18:00:00Z at abcdef0")
    assert "1234567+dirty" in costs.sources["idle"] and "5000 sessions" in costs.sources["idle"]


def test_the_load_and_each_processes_cpu_follow_from_players_and_assumptions() -> None:
    costs = Costs.from_reports(_gateway(), _idle())
    found = plan(costs, 100_000, Assumptions(in_match=0.5, placements_per_second=0.1))
    assert found.placements_per_second == pytest.approx(5_000)
    assert found.starts_per_second == pytest.approx(5_000 / 9)
    # 100,000 sessions x 0.02 + 5,000 placements x 0.5 + 555.6 starts x 3.0
    assert found.cpu_ms_per_second["gateway"] == pytest.approx(2_000 + 2_500 + 5_000 / 3)
    assert found.cpu_ms_per_second["postgres"] == pytest.approx(1_000 + 5_000 / 9)
    # 6,166.7 ms/s over 600 ms/s a replica
    assert found.replicas["gateway"] == 11
    assert found.replicas["rating"] == 1  # nothing to do still takes one
    # PostgreSQL: its load and its own 20 ms/s, at 600 ms/s a core
    assert found.server_cores["postgres"] == pytest.approx((1_000 + 5_000 / 9 + 20) / 600)


def test_database_nats_and_memory_rates_follow_from_the_load() -> None:
    costs = Costs.from_reports(_gateway(), _idle())
    found = plan(costs, 1_000_000, Assumptions())
    placements, starts = 50_000, 50_000 / 9
    sets = max(found.replicas.values())
    assert found.transactions_per_second == pytest.approx(
        placements * 0.5 + starts * 4.0 + sets * 100.0
    )
    assert found.events_per_second == pytest.approx(placements * 1.1 + starts * 2.0)
    assert found.event_log_bytes_per_day == pytest.approx(found.events_per_second * 86_400 * 500)
    assert found.subscriptions == 1_000_000
    assert found.messages_per_second == pytest.approx(100_000)
    assert found.gateway_gb == pytest.approx(1_000_000 * 40 / 1024 / 1024)


def test_a_replicas_room_is_its_planned_core_less_its_own_timers() -> None:
    costs = Costs.from_reports(_gateway(), _idle())
    assume = Assumptions(cores_per_replica=1.0, utilisation=0.6)
    assert replicas_for(560.0, costs, "match", assume) == 1  # 600 - 40 = 560
    assert replicas_for(561.0, costs, "match", assume) == 2
    with pytest.raises(ValueError, match="timers"):
        replicas_for(1.0, costs, "match", Assumptions(utilisation=0.03))


def test_linearity_is_the_cost_per_unit_at_the_two_largest_sizes() -> None:
    linear = Linearity.from_reports(_gateway(), _idle())
    assert linear.placement_ms == {16: 1.0, 64: 1.2}
    assert linear.placement_ratio == pytest.approx(1.2)
    assert linear.session_ms == {1000: 0.04, 5000: 0.02}
    assert linear.session_ratio == pytest.approx(0.5)
    assert linear.session_marginal_ms == 0.014


def test_the_command_prints_the_table_from_the_latest_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "gateway-latest.json").write_text(json.dumps(_gateway()))
    (tmp_path / "idle-latest.json").write_text(json.dumps(_idle()))
    assert scale.main(["--results", str(tmp_path), "--players", "100000"]) == 0
    out = capsys.readouterr().out
    assert "| gateway replicas (CPU ms/s) | 11 (6,167) |" in out
    assert "ratio 1.20 (64 over 16 matches)" in out
    assert "Measured: gateway: bench gateway 2026-12-01T18:00:00Z" in out
