"""The end-to-end load generator (issue 10): N simulated players through the gateway,
every service a separate process on real PostgreSQL and NATS.

    python -m bench.load --clients 16 --seconds 60 --mix ranked=2,unranked=1,practice=1
    python -m bench load            # the registry's short run (make bench)

Each client (bench/load_client.py) is a real gRPC client over TLS: it registers, logs
in, builds and validates a deck, opens its session stream, queues in a mode drawn from
the mix, plays to the end with legal moves from its view, takes the Trade One card when
it wins Ranked, and starts again. After ``--seconds`` no new match starts; matches in
progress finish (bounded by ``drain_seconds``).

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
import dataclasses
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.echo_tls import echo_load, echo_server, free_port
from bench.load_client import (
    MODES,
    AckedPlacement,
    FinishedMatch,
    Sample,
    SimClient,
)
from bench.report import (
    DEFAULT_OUT_DIR,
    Options,
    Report,
    format_table,
    utc_now,
    write_report,
)
from bench.service import LoadResult, all_cores, window_measurement
from devtools.backend import Backend, BackendConfig, infrastructure
from services.platform.settings import Settings

__all__ = [
    "AckedPlacement",
    "FinishedMatch",
    "LoadConfig",
    "LoadRun",
    "LoadSummary",
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


@dataclass(frozen=True)
class LoadConfig:
    gateway: str
    root_cert: bytes
    clients: int
    seconds: float
    mix: Mapping[str, int]
    seed: int = 0
    rpc_timeout: float = 5.0
    drain_seconds: float = 60.0
    """After ``seconds``: how long matches in progress may take to finish."""
    setup_seconds: float = 120.0
    """Before ``seconds``: how long signing every player up may take."""
    name_prefix: str = ""
    """Player names start with it (default: a random one per run, so runs never clash)."""


@dataclass(frozen=True)
class RpcStats:
    calls: int
    ok: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    mean_ms: float | None
    errors: Mapping[str, int]
    examples: Mapping[str, str] = field(default_factory=dict)
    """One error message for each status code seen."""

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "ok": self.ok,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
            "p99_ms": self.p99_ms,
            "mean_ms": self.mean_ms,
            "errors": dict(self.errors),
            "error_examples": dict(self.examples),
        }


@dataclass(frozen=True)
class LoadSummary:
    clients: int
    seconds: float
    """The play window: no match started after it."""
    elapsed: float
    """The whole run, the drain of the last matches included."""
    matches: int
    """Matches finished within the play window."""
    placements: int
    """Placements acknowledged within the play window."""
    matches_total: int
    placements_total: int
    by_mode: Mapping[str, int]
    rpcs: Mapping[str, RpcStats]
    timeline: Sequence[Mapping[str, Any]]
    """One entry a second: placements, matches, calls and PlaceCard latency."""
    unfinished_clients: int
    """Clients still busy when the drain ran out (a match that did not finish)."""
    setup_seconds: float = 0.0
    """Signing the players up, before the play window (the timeline's first seconds)."""

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds

    @property
    def placements_per_second(self) -> float:
        return self.placements / self.seconds

    @property
    def errors(self) -> dict[str, dict[str, int]]:
        return {name: dict(s.errors) for name, s in self.rpcs.items() if s.errors}

    def to_json(self) -> dict[str, Any]:
        return {
            "clients": self.clients,
            "seconds": self.seconds,
            "elapsed_seconds": round(self.elapsed, 3),
            "setup_seconds": round(self.setup_seconds, 3),
            "matches": self.matches,
            "placements": self.placements,
            "matches_per_second": round(self.matches_per_second, 3),
            "placements_per_second": round(self.placements_per_second, 2),
            "matches_total": self.matches_total,
            "placements_total": self.placements_total,
            "matches_by_mode": dict(self.by_mode),
            "unfinished_clients": self.unfinished_clients,
            "rpcs": {name: s.to_json() for name, s in sorted(self.rpcs.items())},
            "errors": self.errors,
        }


class LoadRun:
    """N simulated players against one gateway; see the module docstring."""

    def __init__(self, config: LoadConfig) -> None:
        unknown = set(config.mix) - set(MODES)
        if unknown or not any(config.mix.values()) or min(config.mix.values()) < 0:
            raise ValueError(f"mix must weigh some of {sorted(MODES)}, got {dict(config.mix)}")
        self.config = config
        self.acknowledged: list[AckedPlacement] = []
        self.finished: list[FinishedMatch] = []
        self.samples: list[Sample] = []
        self.started = time.perf_counter()
        self.wall_started = time.time()
        self.play_started = self.wall_started
        """Unix time the play window began (after every player signed up)."""
        self._play_until = float("inf")
        self._alive_until = float("inf")
        self._seen: set[str] = set()
        self.clients: list[SimClient] = []

    # The clients' view of the run (bench.load_client.Shared).
    @property
    def playing(self) -> bool:
        return time.perf_counter() < self._play_until

    @property
    def alive(self) -> bool:
        return time.perf_counter() < self._alive_until

    def acked(self, placement: AckedPlacement) -> None:
        self.acknowledged.append(placement)

    @property
    def players(self) -> dict[str, str]:
        """Every registered simulated player: name -> player id."""
        return {c.name: c.player_id for c in self.clients if c.player_id}

    def finished_match(self, match: FinishedMatch) -> None:
        if match.match_id not in self._seen:  # both players of a match report it
            self._seen.add(match.match_id)
            ids = self.players
            self.finished.append(
                dataclasses.replace(match, player_ids=tuple(ids.get(n) for n in match.players))
            )

    async def run(self) -> LoadSummary:
        """Sign every client up (at most ``setup_seconds``), then play for
        ``config.seconds``, let matches in progress finish (at most ``drain_seconds``
        more), and return the summary."""
        config = self.config
        rng = random.Random(config.seed)
        prefix = config.name_prefix or f"ld{rng.getrandbits(24):06x}{random.getrandbits(16):04x}"
        self.started = time.perf_counter()
        self.wall_started = time.time()
        self._play_until = self._alive_until = float("inf")
        shared = _Shared(self)
        self.clients = [
            SimClient(
                index=i,
                gateway=config.gateway,
                root_cert=config.root_cert,
                run=shared,
                mix=config.mix,
                rng=random.Random(rng.getrandbits(64)),
                rpc_timeout=config.rpc_timeout,
                prefix=prefix,
            )
            for i in range(config.clients)
        ]
        go = asyncio.Event()
        tasks = [asyncio.create_task(c.live(go)) for c in self.clients]
        # Signing up is scrypt twice per player: slow on purpose, and not what the
        # figures are about, so the play window starts once every player is in.
        await asyncio.wait(
            [asyncio.create_task(c.ready.wait()) for c in self.clients],
            timeout=config.setup_seconds,
        )
        self.play_started = time.time()
        self._play_until = time.perf_counter() + config.seconds
        self._alive_until = self._play_until + config.drain_seconds
        go.set()
        _, pending = await asyncio.wait(
            tasks, timeout=max(0.0, self._alive_until - time.perf_counter())
        )
        self._alive_until = time.perf_counter()
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return self.summary(time.perf_counter() - self.started, len(pending))

    def summary(self, elapsed: float, unfinished: int) -> LoadSummary:
        window, at = self.config.seconds, self.play_started
        placements = sum(1 for a in self.acknowledged if 0 <= a.answered_at - at <= window)
        matches = sum(1 for m in self.finished if 0 <= m.finished_at - at <= window)
        return LoadSummary(
            clients=self.config.clients,
            seconds=window,
            elapsed=elapsed,
            matches=matches,
            placements=placements,
            matches_total=len(self.finished),
            placements_total=len(self.acknowledged),
            by_mode=dict(Counter(m.mode for m in self.finished)),
            rpcs=rpc_stats(self.samples),
            timeline=timeline(
                self.samples, self.acknowledged, self.finished, self.wall_started, elapsed
            ),
            unfinished_clients=unfinished,
            setup_seconds=self.play_started - self.wall_started,
        )


class _Shared:
    """Adapts LoadRun to the clients' interface (``finished`` is LoadRun's list)."""

    def __init__(self, run: LoadRun) -> None:
        self._run = run
        self.samples = run.samples
        self.started = run.started

    @property
    def playing(self) -> bool:
        return self._run.playing

    @property
    def alive(self) -> bool:
        return self._run.alive

    def acked(self, placement: AckedPlacement) -> None:
        self._run.acked(placement)

    def finished(self, match: FinishedMatch) -> None:
        self._run.finished_match(match)


# --------------------------------------------------------------------------- figures


def percentile(ordered: Sequence[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _ms(value: float) -> float:
    return round(value * 1000, 3)


def rpc_stats(samples: Sequence[Sample]) -> dict[str, RpcStats]:
    by_rpc: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_rpc[sample.rpc].append(sample)
    stats = {}
    for rpc, mine in by_rpc.items():
        ok = sorted(s.seconds for s in mine if s.code == "OK")
        errors = Counter(s.code for s in mine if s.code != "OK")
        stats[rpc] = RpcStats(
            calls=len(mine),
            ok=len(ok),
            p50_ms=_ms(percentile(ok, 50)) if ok else None,
            p95_ms=_ms(percentile(ok, 95)) if ok else None,
            p99_ms=_ms(percentile(ok, 99)) if ok else None,
            mean_ms=_ms(statistics.fmean(ok)) if ok else None,
            errors=dict(sorted(errors.items())),
            examples={s.code: s.detail for s in reversed(mine) if s.code != "OK"},
        )
    return stats


def timeline(
    samples: Sequence[Sample],
    acked: Sequence[AckedPlacement],
    finished: Sequence[FinishedMatch],
    wall_started: float,
    elapsed: float,
) -> list[dict[str, Any]]:
    seconds = max(1, int(elapsed) + 1)
    place: list[list[float]] = [[] for _ in range(seconds)]
    other: list[list[float]] = [[] for _ in range(seconds)]
    errors = [0] * seconds
    for s in samples:
        slot = min(seconds - 1, max(0, int(s.at)))
        if s.code != "OK":
            errors[slot] += 1
        elif s.rpc == "PlaceCard":
            place[slot].append(s.seconds)
        elif s.rpc != "OpenSession":  # a stream's "latency" is its time to first push
            other[slot].append(s.seconds)
    placements = [0] * seconds
    for a in acked:
        placements[min(seconds - 1, max(0, int(a.answered_at - wall_started)))] += 1
    matches = [0] * seconds
    for m in finished:
        matches[min(seconds - 1, max(0, int(m.finished_at - wall_started)))] += 1
    out = []
    for t in range(seconds):
        p, o = sorted(place[t]), sorted(other[t])
        out.append(
            {
                "t": t,
                "placements": placements[t],
                "matches": matches[t],
                "calls": len(p) + len(o),
                "errors": errors[t],
                "place_p50_ms": _ms(percentile(p, 50)) if p else None,
                "place_p99_ms": _ms(percentile(p, 99)) if p else None,
                "other_p50_ms": _ms(percentile(o, 50)) if o else None,
                "other_p99_ms": _ms(percentile(o, 99)) if o else None,
            }
        )
    return out


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
    """The chart beside the JSON: ``load-latest.png``."""
    from bench.load_chart import chart  # matplotlib only when charting

    png = out_dir / f"{NAME}-latest.png"
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
        if name.strip() not in MODES or not weight.strip().isdigit():
            raise argparse.ArgumentTypeError(
                f"--mix takes mode=weight pairs of {', '.join(MODES)}, got {part!r}"
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
