"""``python -m bench [NAME ...] [--quick] [--out DIR]``: run the benchmarks, write one JSON
report per benchmark to bench/results/ and print a short table for each.

Why a registry of module names: a benchmark is a module with ``run(options) -> Report``,
added here with one line and imported only when chosen, so the service benchmarks can
pull in gRPC, NATS or PostgreSQL without slowing down or breaking ``python -m bench rules``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from bench.machine import pinned_to_one_core
from bench.report import (
    DEFAULT_OUT_DIR,
    Options,
    Report,
    format_table,
    utc_now,
    write_report,
)

BENCHMARKS: dict[str, str] = {
    # name: module exposing `run(options: Options) -> Report`. One line per benchmark.
    "rules": "bench.rules",
    "replay": "bench.replay",
    "match": "bench.match",
    "rating": "bench.rating",
    "matchmaker": "bench.matchmaker",
    "bots": "bench.bots",
    "load": "bench.load",
    "gateway": "bench.gateway",
    "idle": "bench.idle",
    "auction": "bench.auction",
    "battle": "bench.battle",
    "battle_gateway": "bench.battle_gateway",
}

REPEATS, SECONDS = 5, 0.6
QUICK_REPEATS, QUICK_SECONDS = 2, 0.01
SEED = 20_240_601


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"benchmarks to run (default: all of {', '.join(BENCHMARKS)})",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny smoke run: checks it works, numbers mean little"
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT_DIR, help="report directory (%(default)s)"
    )
    parser.add_argument("--seed", type=int, default=SEED, help="workload seed (%(default)s)")
    parser.add_argument("--repeats", type=int, help=f"timed repeats (default {REPEATS})")
    parser.add_argument(
        "--seconds", type=float, help=f"target seconds per repeat (default {SECONDS})"
    )
    parser.add_argument("--no-pin", action="store_true", help="do not pin to one core")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    return parser


def run_one(name: str, options: Options) -> Path:
    """Run benchmark ``name``, write its report, print its table; the report's path."""
    module = importlib.import_module(BENCHMARKS[name])
    started, clock = utc_now(), time.perf_counter()
    report = module.run(options)
    if not isinstance(report, Report):
        raise TypeError(f"{BENCHMARKS[name]}.run returned {type(report).__name__}, not Report")
    data = report.to_json(options, started, time.perf_counter() - clock)
    stamped, latest = write_report(data, options.out_dir)
    print(format_table(data))
    print(f"  report: {stamped} (also {latest.name})")
    return stamped


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen benchmarks; 1 if any failed (the others still run), else 0."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        for name, module in BENCHMARKS.items():
            print(f"{name}\t{module}")
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}")
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    seconds = args.seconds or (QUICK_SECONDS if args.quick else SECONDS)
    if repeats < 1 or seconds <= 0:
        parser.error("--repeats must be >= 1 and --seconds > 0")
    names = list(dict.fromkeys(args.names)) or list(BENCHMARKS)
    failed = []
    with pinned_to_one_core(not args.no_pin) as affinity:
        options = Options(
            quick=args.quick,
            out_dir=args.out,
            seed=args.seed,
            repeats=repeats,
            seconds=seconds,
            affinity=affinity,
        )
        for name in names:
            try:
                run_one(name, options)
            except Exception:
                traceback.print_exc()
                print(f"benchmark {name} failed", file=sys.stderr)
                failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
