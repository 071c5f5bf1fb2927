"""What every benchmark shares: the timing harness, the fixed baseline, machine and git
facts (bench/machine.py), and the JSON report with its printed table.

Why one module: the rules benchmark is the first of several (match service, gateway,
rating). They must all time the same way and write the same report shape, or their
figures cannot be compared with each other, with earlier runs, or with the baseline
that makes numbers from this noisy shared machine mean something.
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.machine import git_facts, machine_facts

JSON = dict[str, Any]

SCHEMA_VERSION = 1
"""Bumped whenever the report's shape changes, so old reports can still be read."""

DEFAULT_OUT_DIR = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True, slots=True)
class Options:
    """How a run was asked for. Every benchmark's ``run(options)`` receives one, so the
    command line is parsed once and each benchmark scales itself from the same knobs."""

    quick: bool
    out_dir: Path
    seed: int
    repeats: int
    seconds: float
    """Target wall time of one timed repeat of one workload."""
    affinity: Mapping[str, Any] = field(default_factory=dict)
    """What :func:`bench.machine.pinned_to_one_core` did, recorded in every report."""


# --------------------------------------------------------------------------- timing


@dataclass(frozen=True, slots=True)
class Workload:
    """Something to time. ``run(loops)`` does ``loops`` passes of work and returns how
    many operations it did, so the harness can size a repeat without knowing what an
    operation is. All set-up must happen before ``run`` is called: only ``run`` is timed."""

    name: str
    unit: str
    description: str
    run: Callable[[int], int]


@dataclass(frozen=True, slots=True)
class Measurement:
    """The timed repeats of one workload. Rates are operations per second."""

    name: str
    unit: str
    description: str
    rates: tuple[float, ...]
    seconds: tuple[float, ...]
    loops: int
    ops_per_repeat: int
    warmup_seconds: float

    @property
    def best(self) -> float:
        """The fastest repeat: the least disturbed by other load, so the headline."""
        return max(self.rates)

    @property
    def median(self) -> float:
        """The typical repeat, reported next to the best to show how noisy the run was."""
        return statistics.median(self.rates)

    @property
    def worst(self) -> float:
        return min(self.rates)

    def to_json(self) -> JSON:
        return {
            "description": self.description,
            "unit": self.unit,
            "best": round(self.best, 1),
            "median": round(self.median, 1),
            "worst": round(self.worst, 1),
            "samples": [round(rate, 1) for rate in self.rates],
            "repeat_seconds": [round(s, 4) for s in self.seconds],
            "repeats": len(self.rates),
            "loops_per_repeat": self.loops,
            "ops_per_repeat": self.ops_per_repeat,
            "warmup_seconds": round(self.warmup_seconds, 4),
        }


def _timed(workload: Workload, loops: int) -> tuple[int, float]:
    start = time.perf_counter()
    ops = workload.run(loops)
    return ops, time.perf_counter() - start


def _calibrate(workload: Workload, seconds: float) -> tuple[int, float]:
    """How many loops fill about ``seconds``. Doubling until a run takes a quarter of
    that spends about half of ``seconds`` running the workload: that is the warm-up
    (the interpreter's specialisation, caches and allocator settle in it)."""
    loops, spent = 1, 0.0
    while True:
        ops, elapsed = _timed(workload, loops)
        spent += elapsed
        if ops <= 0:
            raise RuntimeError(f"workload {workload.name!r} reported {ops} operations")
        if elapsed >= seconds / 4:
            break
        loops *= 2
    return max(1, round(loops * seconds / elapsed)), spent


def measure(workloads: Sequence[Workload], repeats: int, seconds: float) -> dict[str, Measurement]:
    """Warm up and size each workload, then time ``repeats`` rounds, each round running
    every workload once in order.

    Interleaving (rather than all repeats of one workload, then the next) means a burst
    of load from a neighbour on this shared machine hits every workload of a round alike,
    so ratios to the baseline stay meaningful even when absolute rates wobble. The
    garbage collector stays on (the real services run with it) but is emptied before
    each repeat so one repeat does not pay for another's garbage.
    """
    if repeats < 1 or seconds <= 0:
        raise ValueError(f"need repeats >= 1 and seconds > 0, got {repeats} and {seconds}")
    names = [w.name for w in workloads]
    if len(set(names)) != len(names):
        raise ValueError(f"workload names must be unique, got {names}")
    sizing = {w.name: _calibrate(w, seconds) for w in workloads}
    rates: dict[str, list[float]] = {w.name: [] for w in workloads}
    times: dict[str, list[float]] = {w.name: [] for w in workloads}
    ops_seen: dict[str, int] = {}
    for _ in range(repeats):
        for workload in workloads:
            gc.collect()
            ops, elapsed = _timed(workload, sizing[workload.name][0])
            ops_seen[workload.name] = ops
            rates[workload.name].append(ops / elapsed)
            times[workload.name].append(elapsed)
    return {
        w.name: Measurement(
            name=w.name,
            unit=w.unit,
            description=w.description,
            rates=tuple(rates[w.name]),
            seconds=tuple(times[w.name]),
            loops=sizing[w.name][0],
            ops_per_repeat=ops_seen[w.name],
            warmup_seconds=sizing[w.name][1],
        )
        for w in workloads
    }


# --------------------------------------------------------------------------- baseline

BASELINE_NAME = "baseline"
BASELINE_VERSION = 1
"""Bump if :func:`baseline_workload` ever changes: ratios across versions don't compare."""
BASELINE_DESCRIPTION = (
    "fixed pure-Python unit of work: one function call taking a fresh copy of a 9-element "
    "list and two 4-tuples, doing 4 tuple-index comparisons (v1)"
)
_BASELINE_CASES = 4096


def _baseline_step(owners: list[int | None], mine: tuple[int, ...], theirs: tuple[int, ...]) -> int:
    return (
        (mine[0] > theirs[2])
        + (mine[1] > theirs[3])
        + (mine[2] > theirs[0])
        + (mine[3] > theirs[1])
    )


def baseline_workload() -> Workload:
    """A fixed workload timed in the same run as the real ones.

    Absolute rates on a shared machine move with the neighbours' load, CPU frequency and
    the host; a ratio to a fixed interpreter workload timed alongside moves much less, so
    reports from different runs and machines can be compared by their ratios. Its shape
    (a call, a 9-cell list copy, a few tuple lookups) is deliberately close to the
    overhead floor of one rules-kernel call, but it never touches the engine, so engine
    changes cannot move it. Its data come from a fixed seed, independent of ``--seed``.
    """
    rng = random.Random(0)
    cases = [
        (
            [rng.choice((0, 1, None)) for _ in range(9)],
            tuple(rng.randint(1, 10) for _ in range(4)),
            tuple(rng.randint(1, 10) for _ in range(4)),
        )
        for _ in range(_BASELINE_CASES)
    ]
    step = _baseline_step

    def run(loops: int) -> int:
        for _ in range(loops):
            for owners, mine, theirs in cases:
                step(owners[:], mine, theirs)
        return loops * len(cases)

    return Workload(BASELINE_NAME, "baseline-ops/s", BASELINE_DESCRIPTION, run)


# --------------------------------------------------------------------------- report


@dataclass(frozen=True, slots=True)
class Target:
    """A figure an issue asks for, checked against the best repeat (what the code can do
    on this core when undisturbed); the median is recorded next to it for honesty."""

    metric: str
    minimum: float
    unit: str
    source: str

    def check(self, measured: Measurement) -> JSON:
        return {
            "metric": self.metric,
            "minimum": self.minimum,
            "unit": self.unit,
            "source": self.source,
            "best": round(measured.best, 1),
            "median": round(measured.median, 1),
            "met": measured.best >= self.minimum,
            "met_by_median": measured.median >= self.minimum,
        }


@dataclass(slots=True)
class Report:
    """One benchmark's findings, before the run's context (time, git, machine) is added."""

    benchmark: str
    parameters: JSON
    measurements: dict[str, Measurement]
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: JSON = field(default_factory=dict)
    baseline: str | None = BASELINE_NAME
    """The measurement every other is divided by; ``None`` for no ratios."""

    def ratios(self) -> dict[str, JSON]:
        """Each measurement over the baseline: ``best / baseline best`` and the median of
        the per-round ratios (each round timed both back to back, so drift cancels)."""
        if self.baseline is None or self.baseline not in self.measurements:
            return {}
        base = self.measurements[self.baseline]
        out: dict[str, JSON] = {}
        for name, m in self.measurements.items():
            if name == self.baseline:
                continue
            per_round = [r / b for r, b in zip(m.rates, base.rates, strict=True)]
            ratio = m.best / base.best
            out[name] = {
                "best": round(ratio, 6),
                "median_of_rounds": round(statistics.median(per_round), 6),
                "baseline_ops_per_op": round(1 / ratio, 3),
            }
        return out

    def to_json(self, options: Options, when: datetime, duration: float) -> JSON:
        ratios = self.ratios()
        results = {}
        for name, m in self.measurements.items():
            results[name] = m.to_json()
            if name in ratios:
                results[name]["ratio_to_baseline"] = ratios[name]
        return {
            "schema": SCHEMA_VERSION,
            "benchmark": self.benchmark,
            "utc_time": when.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "duration_seconds": round(duration, 3),
            "quick": options.quick,
            "git": git_facts(),
            "machine": {**machine_facts(), "affinity": dict(options.affinity)},
            "parameters": {
                "seed": options.seed,
                "repeats": options.repeats,
                "seconds_per_repeat": options.seconds,
                **self.parameters,
            },
            "baseline": None
            if self.baseline is None
            else {"name": self.baseline, "version": BASELINE_VERSION},
            "results": results,
            "targets": [
                t.check(self.measurements[t.metric])
                for t in self.targets
                if t.metric in self.measurements
            ],
            "notes": list(self.notes),
            **({"extra": self.extra} if self.extra else {}),
        }


def latest_name(benchmark: str, quick: bool) -> str:
    """The stem of a benchmark's latest report: ``<name>-latest``, or for a ``--quick``
    smoke run ``<name>-latest-quick``, so that a smoke run never replaces the committed
    figures (``bench.scale`` and docs/SCALE.md read ``*-latest.json``; git ignores the
    quick ones)."""
    return f"{benchmark}-latest-quick" if quick else f"{benchmark}-latest"


def write_report(data: JSON, out_dir: Path) -> tuple[Path, Path]:
    """Write ``<name>-<UTC stamp>.json`` (kept, for history) and the latest copy
    (``latest_name``: overwritten, for a quick look or a diff); both written whole, then
    renamed in."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = str(data["utc_time"]).replace("-", "").replace(":", "")
    text = json.dumps(data, indent=2, sort_keys=False) + "\n"
    paths = (
        out_dir / f"{data['benchmark']}-{stamp}.json",
        out_dir / f"{latest_name(str(data['benchmark']), bool(data.get('quick')))}.json",
    )
    for path in paths:
        partial = path.with_suffix(".json.tmp")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    return paths


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def format_table(data: JSON) -> str:
    """A short aligned summary of a written report, for the terminal."""
    header = ("measurement", "best", "median", "unit", "x baseline")
    rows = [header]
    for name, r in data["results"].items():
        ratio = r.get("ratio_to_baseline")
        rows.append(
            (
                name,
                _rate(r["best"]),
                _rate(r["median"]),
                r["unit"],
                f"{ratio['best']:.4f}" if ratio else "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    right = {1, 2, 4}
    lines = [f"{data['benchmark']} @ {data['utc_time']} ({len(data['results'])} measurements)"]
    for row in rows:
        cells = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    for t in data["targets"]:
        verdict = "MET" if t["met"] else "NOT MET"
        lines.append(
            f"  target {t['metric']} >= {_rate(t['minimum'])} {t['unit']}: {verdict} "
            f"(best {_rate(t['best'])}, median {_rate(t['median'])})"
        )
    return "\n".join(lines)


def utc_now() -> datetime:
    return datetime.now(UTC)
