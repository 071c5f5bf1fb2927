"""Smoke test of the benchmarks: ``python -m bench --quick`` runs and writes valid reports.

Why: nobody runs ``make bench`` on every change, so without this a refactor of the engine
or of bench/ could silently break it. The quick run says nothing about speed; it only
checks that each report is well formed and its figures are positive. Reports go to a
temporary directory so the test never litters bench/results/.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import BENCHMARKS, main
from bench.cpu import cpu_seconds, parent_pid, read_stats, tree
from bench.service import CpuMeter, Step, closed_loop


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_quick_rules_run_writes_a_complete_report(tmp_path: Path) -> None:
    assert main(["rules", "--quick", "--out", str(tmp_path)]) == 0

    latest = tmp_path / "rules-latest-quick.json"
    assert not (tmp_path / "rules-latest.json").exists(), "a smoke run replaced the figures"
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

    assert {"realm_resolve"} <= set(results)  # the Realm kernel, timed in the same rounds
    assert data["parameters"]["realm_rules"] == dict.fromkeys(
        ("same", "plus", "combo", "type_advantage", "clash", "lair", "resistance", "cursed"), True
    )
    targets = {target["metric"]: target for target in data["targets"]}
    assert set(targets) == {"kernel_resolve", "realm_resolve"}
    for metric, minimum in (("kernel_resolve", 300_000), ("realm_resolve", 150_000)):
        target = targets[metric]
        assert target["minimum"] == minimum
        assert target["unit"] == "placements/s"
        assert isinstance(target["met"], bool)
        assert target["met"] == (results[metric]["best"] >= minimum)

    # Issue 19: the same kernel on 5x5 boards with blocked cells, in the same rounds,
    # and its rate over the 3x3 one checked against 0.5.
    assert results["kernel_resolve_5x5"]["unit"] == "placements/s"
    board_5x5 = data["parameters"]["board_5x5"]
    assert board_5x5["board"] == "5x5"
    assert 0 <= board_5x5["mean_blocked_cells"] <= 5
    ratio = data["extra"]["targets"]["kernel_5x5_over_3x3"]
    assert ratio["minimum"] == 0.5
    best = results["kernel_resolve_5x5"]["best"] / results["kernel_resolve"]["best"]
    assert ratio["measured"] == pytest.approx(best, abs=1e-4)
    assert ratio["met"] == (best >= 0.5)
    assert _positive(ratio["median_of_rounds"])
    assert isinstance(ratio["met_by_median_of_rounds"], bool)
    assert data["extra"]["capture_mix_5x5"]["placements_with_a_capture"] > 0
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


@pytest.mark.integration
async def test_a_short_load_run_plays_matches_and_writes_its_report_and_chart(
    shared_database_url: str, nats_url: str, tmp_path: Path
) -> None:
    from bench.load import DEFAULT_MIX, LOAD_ENV, Measured, measure_backend, report, write_outputs
    from bench.report import Options, utc_now, write_report
    from devtools.backend import Backend, BackendConfig

    config = BackendConfig(shared_database_url, nats_url, tmp_path / "run", env=LOAD_ENV)
    with Backend(config) as backend:
        summary, echo, plain, run = await measure_backend(
            backend, 4, 10.0, DEFAULT_MIX, 1, tmp_path
        )
    measured = Measured(summary, echo, plain, "test database", run)

    assert run.finished and summary.matches_total == len(run.finished)
    assert len({m.match_id for m in run.finished}) == len(run.finished)
    for match in run.finished:
        assert match.mode in DEFAULT_MIX and len(match.players) == 2
        assert match.winner is None or match.winner in match.players
        for name, player_id in zip(match.players, match.player_ids, strict=True):
            assert (player_id is None) == name.startswith("[BOT] "), match
    assert run.acknowledged and summary.placements_total == len(run.acknowledged)
    assert len({a.request_id for a in run.acknowledged}) == len(run.acknowledged)
    assert all(a.match_id and a.player_id and a.card_id for a in run.acknowledged)
    assert summary.rpcs["PlaceCard"].ok == len(run.acknowledged)
    assert echo.requests > 0 and plain.requests > 0

    out = tmp_path / "results"
    options = Options(quick=True, out_dir=out, seed=1, repeats=1, seconds=10.0)
    data = report(measured, DEFAULT_MIX).to_json(options, utc_now(), summary.elapsed)
    write_report(data, out)
    png = write_outputs(data, summary, out)

    written = _load(out / "load-latest-quick.json")
    load = written["extra"]["load"]
    assert load["matches_total"] == len(run.finished)
    assert {"PlaceCard", "Register", "Login", "SaveDeck", "ValidateDeck"} <= set(load["rpcs"])
    for name in ("p50_ms", "p95_ms", "p99_ms"):
        assert _positive(load["rpcs"]["PlaceCard"][name])
    assert "ratio_to_baseline" in written["results"]["placements"]
    assert written["extra"]["timeline"]
    assert png == out / "load-latest-quick.png"
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.skipif(not CpuMeter.available(), reason="CPU by process is read from /proc (Linux)")
async def test_the_cpu_meter_charges_each_request_to_the_process_that_spent_it() -> None:
    """A closed loop whose requests burn CPU in a child process: per request, the child's
    share is about what it burned, and this process's is charged to the client."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfor line in sys.stdin:\n sum(range(200_000))"],
        stdin=subprocess.PIPE,
    )
    assert child.stdin is not None
    try:
        meter = CpuMeter({"child": child.pid})

        async def make(_index: int, latencies: list[float]) -> Step:
            async def step() -> int:
                child.stdin.write(b"go\n")  # type: ignore[union-attr]
                child.stdin.flush()  # type: ignore[union-attr]
                await asyncio.sleep(0.01)
                latencies.append(0.01)
                return 1

            return step

        result = await closed_loop(make, 1, 1.0, 0.2, meter)
    finally:
        child.kill()
        child.wait()
    assert set(result.cpu_ms) == {"client", "child"}
    assert result.requests > 10
    assert 0.5 < result.cpu_ms["child"] < 10.0, result.cpu_ms  # sum(range(200_000)): ~2-5 ms
    assert result.cpu_ms["client"] < result.cpu_ms["child"]


async def test_a_postgres_servers_tree_is_the_postmaster_and_its_backends(pg_pool: Any) -> None:
    async with pg_pool.acquire() as connection:
        backend = await connection.fetchval("SELECT pg_backend_pid()")
        try:
            seen_here = Path(f"/proc/{backend}/comm").read_text().startswith("postgres")
        except OSError:
            seen_here = False
        if not seen_here:
            pytest.skip("the test database's processes are not visible here (a container)")
        postmaster = parent_pid(backend)
        assert postmaster is not None
        pids = tree(read_stats(), postmaster)
        assert pids[0] == postmaster and backend in pids
        assert cpu_seconds({"postgres": postmaster})["postgres"] > 0
