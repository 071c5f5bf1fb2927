"""The end-to-end load generator (issue 10): N simulated players through the gateway,
every service a separate process on real PostgreSQL and NATS.

    python -m bench.load --clients 16 --seconds 60 --mix ranked=2,unranked=1,practice=1
    python -m bench load            # the registry's short run (make bench)

Each client (bench/load_client.py) is a real gRPC client over TLS: it registers, logs
in, builds and validates a deck, opens its session stream, queues in a mode drawn from
the mix, plays to the end with legal moves from its view, takes the Trade One card when
it wins Ranked, and starts again. After ``--seconds`` no new match starts; matches in
progress finish (bounded by ``drain_seconds``). Besides the queues, the mix may weigh
custom tables with a trade rule, ``direct``, ``difference`` and ``all``
(bench/load_tables.py: two players meet, one challenges the other at a Closed
Same/Plus/Combo table), e.g. ``--mix ranked=2,direct=1,difference=1``.

The report (JSON, and a PNG chart of latency and throughput over time) has matches/s,
placements/s, p50/p95/p99 per RPC and the errors by RPC and status code, beside a bare
gRPC echo over TLS driven by as many callers in the same run (``bench/echo_tls.py``).

The chaos test drives :class:`LoadRun` against a backend it breaks on purpose; the
clients retry through it (see the client's docstring) and the run records every
acknowledged placement and every finished match for the checks afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.echo_tls import echo_load, echo_server
from bench.load_client import MIX_NAMES
from bench.load_figures import LoadSummary, RpcStats
from bench.load_records import AckedPlacement, FinishedMatch
from bench.load_run import LoadConfig, LoadRun
from bench.report import (
    DEFAULT_OUT_DIR,
    Options,
    Report,
    format_table,
    latest_name,
    utc_now,
    write_report,
)
from bench.service import LoadResult, all_cores, window_measurement
from devtools.backend import Backend, BackendConfig
from devtools.processes import free_port
from devtools.servers import infrastructure
from services.platform.settings import Settings

__all__ = [
    "AckedPlacement",
    "FinishedMatch",
    "LoadConfig",
    "LoadRun",
    "LoadSummary",
    "RpcStats",
    "load_backend",
]

NAME = "load"


DEFAULT_MIX: Mapping[str, int] = {"ranked": 2, "unranked": 1, "practice": 1}


LOAD_ENV: Mapping[str, str] = {
    # Bots think for 0.2 s instead of 1 s, and fill an Unranked seat after 3 s instead
    # of 20 s: the run measures the server, not the bots' deliberate pauses.
    "TRIAD_BOT_SECONDS": "0.2",
    "TRIAD_MATCHMAKER_BOT_FILL_SECONDS": "3",
    "TRIAD_MATCHMAKER_PAIR_INTERVAL_SECONDS": "0.2",
    # Every simulated player signs up from this one host.
    "TRIAD_REGISTRATIONS_PER_MINUTE": "100000",
    "TRIAD_REGISTRATION_BURST": "100000",
}


# --------------------------------------------------------------------------- backend


@contextmanager
def load_backend(
    directory: Path, env: Mapping[str, str] | None = None
) -> Iterator[tuple[Backend, str]]:
    """Every service a process on PostgreSQL and NATS (embedded unless TRIAD_DATABASE_URL
    and TRIAD_NATS_URL are set), with per-run schemas; the backend and where the
    database came from."""
    settings = Settings.from_env()
    where = "TRIAD_DATABASE_URL" if settings.database_url else "embedded pgserver"
    with infrastructure(settings.database_url, settings.nats_url) as (database, nats):
        config = BackendConfig(
            database, nats, directory, env={**LOAD_ENV, **(env or {})}, start_timeout=120
        )
        with Backend(config) as backend:
            yield backend, where


@dataclass
class Measured:
    summary: LoadSummary
    echo: LoadResult
    echo_plain: LoadResult
    database: str
    run: LoadRun = field(repr=False)


async def measure_backend(
    backend: Backend, clients: int, seconds: float, mix: Mapping[str, int], seed: int, logs: Path
) -> tuple[LoadSummary, LoadResult, LoadResult, LoadRun]:
    """The echo baselines (TLS, then plaintext) beside the backend, then the load."""
    echo_seconds = min(10.0, max(2.0, seconds / 4))
    with echo_server(free_port(), logs / "echo-tls.log", backend.cert_path, backend.key_path) as a:
        echo = await echo_load(a, backend.root_cert, clients, echo_seconds, 1.0, channels=clients)
    with echo_server(free_port(), logs / "echo.log") as a:
        plain = await echo_load(a, None, clients, echo_seconds, 1.0, channels=clients)
    run = LoadRun(LoadConfig(backend.gateway, backend.root_cert, clients, seconds, mix, seed))
    summary = await run.run()
    return summary, echo, plain, run


def measure(
    clients: int, seconds: float, mix: Mapping[str, int], seed: int, logs: Path
) -> Measured:
    with all_cores(), load_backend(logs) as (backend, where):
        summary, echo, plain, run = asyncio.run(
            measure_backend(backend, clients, seconds, mix, seed, logs)
        )
    return Measured(summary, echo, plain, where, run)


def report(measured: Measured, mix: Mapping[str, int]) -> Report:
    s, echo, plain = measured.summary, measured.echo, measured.echo_plain
    calls = sum(
        stats.ok for name, stats in s.rpcs.items() if name != "OpenSession"
    )  # unary calls answered OK over the whole run
    measurements = {
        "echo_tls": window_measurement(
            "echo_tls",
            "requests/s",
            f"bare gRPC echo over TLS, {s.clients} callers on their own channels",
            echo.rate,
            echo.requests,
            echo.seconds,
        ),
        "echo_plaintext": window_measurement(
            "echo_plaintext",
            "requests/s",
            f"bare gRPC echo in plaintext, {s.clients} callers",
            plain.rate,
            plain.requests,
            plain.seconds,
        ),
        "placements": window_measurement(
            "placements",
            "placements/s",
            "PlaceCard answered OK within the play window",
            s.placements_per_second,
            s.placements,
            s.seconds,
        ),
        "matches": window_measurement(
            "matches",
            "matches/s",
            "matches finished within the play window",
            s.matches_per_second,
            s.matches,
            s.seconds,
        ),
        "requests": window_measurement(
            "requests",
            "requests/s",
            "every unary gateway call answered OK, over the whole run",
            calls / s.elapsed,
            calls,
            s.elapsed,
        ),
    }
    return Report(
        benchmark=NAME,
        parameters={
            "clients": s.clients,
            "seconds": s.seconds,
            "mix": dict(mix),
            "database": measured.database,
            "services": "match, matchmaker, collection, rating, gateway: one process each",
            "settings": dict(LOAD_ENV),
        },
        measurements=measurements,
        baseline="echo_tls",
        notes=[
            "Closed loop: each simulated player sends its next request as soon as the "
            "last one answered (no think time); bots answer after their 0.2 s budget.",
            "Everything (clients, five services, PostgreSQL, NATS, the echo) shares this "
            "machine's 2 cores, so the figures are lower bounds and noisy; compare the "
            "ratio to the echo measured in the same run.",
            "Latency is per call as the client saw it, retries counted as separate calls; "
            "OpenSession's is the time to the first push.",
        ],
        extra={"load": s.to_json(), "timeline": list(s.timeline)},
    )


def write_outputs(data: dict[str, Any], summary: LoadSummary, out_dir: Path) -> Path:
    """The chart beside the JSON: ``load-latest.png`` (``load-latest-quick.png`` for a
    quick run)."""
    from bench.load_chart import chart  # matplotlib only when charting

    png = out_dir / f"{latest_name(NAME, bool(data.get('quick')))}.png"
    chart(summary, data, png)
    return png


def run(options: Options) -> Report:
    """The registry's entry (``make bench``): a short run with the default mix."""
    clients, seconds = (4, 8.0) if options.quick else (16, 45.0)
    with tempfile.TemporaryDirectory(prefix="triad-load-") as logs:
        measured = measure(clients, seconds, DEFAULT_MIX, options.seed, Path(logs))
    result = report(measured, DEFAULT_MIX)
    data = result.to_json(options, utc_now(), measured.summary.elapsed)
    write_outputs(data, measured.summary, options.out_dir)
    return result


def parse_mix(text: str) -> dict[str, int]:
    mix = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        if name.strip() not in MIX_NAMES or not weight.strip().isdigit():
            raise argparse.ArgumentTypeError(
                f"--mix takes mode=weight pairs of {', '.join(MIX_NAMES)}, got {part!r}"
            )
        mix[name.strip()] = int(weight)
    return mix


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--mix", type=parse_mix, default=dict(DEFAULT_MIX))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT_DIR)
    parser.add_argument("--logs", type=Path, help="keep the services' logs here")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0:
        parser.error("--clients must be >= 1 and --seconds > 0")
    started = utc_now()
    with tempfile.TemporaryDirectory(prefix="triad-load-") as scratch:
        logs = args.logs or Path(scratch)
        measured = measure(args.clients, args.seconds, args.mix, args.seed, logs)
    options = Options(
        quick=False, out_dir=args.out, seed=args.seed, repeats=1, seconds=args.seconds
    )
    data = report(measured, args.mix).to_json(options, started, measured.summary.elapsed)
    stamped, latest = write_report(data, args.out)
    png = write_outputs(data, measured.summary, args.out)
    print(format_table(data))
    load = data["extra"]["load"]
    print(
        f"  {load['matches']} matches ({load['matches_per_second']}/s), "
        f"{load['placements']} placements ({load['placements_per_second']}/s); "
        f"errors: {load['errors'] or 'none'}"
    )
    print(f"  report: {stamped} (also {latest.name}, {png.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
