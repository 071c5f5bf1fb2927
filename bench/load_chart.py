"""The load generator's chart: latency and throughput over the run, one PNG.

matplotlib with the Agg backend: no display, the same picture on a laptop and in CI.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from bench.load_figures import LoadSummary


def _series(timeline: list[Mapping[str, Any]], key: str) -> list[float]:
    return [float("nan") if row[key] is None else float(row[key]) for row in timeline]


def chart(summary: LoadSummary, data: dict[str, Any], path: Path) -> None:
    timeline = list(summary.timeline)
    t = [row["t"] for row in timeline]
    figure, (latency, throughput) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    title = (
        f"Load: {summary.clients} clients, {summary.matches} matches "
        f"({summary.matches_per_second:.2f}/s), {summary.placements} placements "
        f"({summary.placements_per_second:.1f}/s) in the {summary.seconds:.0f} s play window "
        f"(after {summary.setup_seconds:.0f} s signing up)"
    )
    commit = (data.get("git") or {}).get("commit") or ""
    figure.suptitle(f"{title}\n{data.get('utc_time', '')} {commit[:10]}", fontsize=10)

    latency.plot(t, _series(timeline, "place_p50_ms"), label="PlaceCard p50", color="tab:blue")
    latency.plot(t, _series(timeline, "place_p99_ms"), label="PlaceCard p99", color="tab:red")
    latency.plot(
        t, _series(timeline, "other_p50_ms"), label="other RPCs p50", color="tab:green", alpha=0.6
    )
    latency.plot(
        t, _series(timeline, "other_p99_ms"), label="other RPCs p99", color="tab:orange", alpha=0.6
    )
    latency.set_ylabel("latency per second (ms)")
    latency.set_yscale("log")
    latency.grid(True, which="both", alpha=0.3)
    latency.legend(loc="upper right", fontsize=8)

    throughput.plot(t, [row["placements"] for row in timeline], label="placements/s")
    throughput.plot(t, [row["calls"] for row in timeline], label="calls OK/s", alpha=0.6)
    throughput.plot(t, [row["errors"] for row in timeline], label="errors/s", color="tab:red")
    matches = throughput.twinx()
    matches.bar(t, [row["matches"] for row in timeline], color="tab:gray", alpha=0.3, width=0.9)
    matches.set_ylabel("matches finished/s (bars)")
    for axis in (latency, throughput):
        for edge in (summary.setup_seconds, summary.setup_seconds + summary.seconds):
            axis.axvline(edge, color="black", linestyle="--", linewidth=0.8)
    throughput.text(summary.setup_seconds, 0, " play window", fontsize=8, va="bottom")
    throughput.set_xlabel("seconds since start")
    throughput.set_ylabel("per second")
    throughput.grid(True, alpha=0.3)
    throughput.legend(loc="upper left", fontsize=8)

    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".png.tmp")
    figure.savefig(partial, dpi=100, format="png")
    plt.close(figure)
    partial.replace(path)
