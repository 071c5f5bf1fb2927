"""PlaceCard through the gateway, every service a separate process on PostgreSQL and
NATS, beside a bare gRPC echo measured in the same run (issue 4).

Each worker owns two registered players and plays their matches back to back: the host
opens a private custom table (Three Open, Same/Plus/Combo, no trade, Random decks)
challenging the other, who joins; then they place in turn, each as themselves with
their own token over TLS, the hands from their own views and the board from each
PlaceCard reply. Both keep their session stream open (the opponent's view is pushed on
it), as real clients do. The pairs of a level play in waves: they start their matches
together with the clock stopped, then play them to the end together with it running,
so the rate is placements over the time spent placing with 1, 16 or 64 matches at once
(starting a match is measured by the load benchmark, bench/load.py).

What a placement costs (issue 18, item 2): at each phase's edges the bench reads what
every backend process has spent (gateway, match, matchmaker, collection, rating,
PostgreSQL with all its processes, NATS; bench/cpu.py), the database's committed
transactions and event log rows, and the session messages its players received; per
level, the playing phases over the placements made in them give the cost of a
placement by process, the starting phases that of a match start
(bench/gateway_cost.py). The backend runs on PostgreSQL and NATS of this run alone
(bench/idle.py's ``own_backend``), so nobody else's work is counted; the bench
client's CPU is reported, not counted.

Targets at 64 concurrent matches: placements/s >= 0.25 x echo requests/s, PlaceCard
p99 <= 50 ms, and <= 1.8 ms of CPU per placement in all backend processes together.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import gateway_pb2_grpc

from bench.echo_tls import echo_load, echo_server
from bench.gateway_cost import (
    PLACEMENT_TARGET_MS,
    LevelCost,
    Spent,
    format_costs,
    quiet_json,
)
from bench.gateway_players import Pair, Player, new_match, signed_in
from bench.gateway_waves import event_logs, placements, quiet, readings
from bench.idle import own_backend
from bench.load import LOAD_ENV
from bench.report import Options, Report
from bench.service import (
    LoadResult,
    all_cores,
    level_measurements,
    levels_parameters,
    measurement,
    target,
)
from devtools.backend import Backend
from devtools.processes import free_port

NAME = "gateway"
LEVELS = (1, 16, 64)
RATIO_TARGET = 0.25
P99_TARGET_MS = 50.0
PASSWORD = "gateway-bench-password"
SETTINGS_ENV = {
    "TRIAD_TURN_SECONDS": "600",  # idle pairs between levels must not time out
    # One player places up to ~20 times a second here, at the default limit (20/s):
    # this measures throughput, not the rate limiter.
    "TRIAD_RATE_PER_SECOND": "1000",
    "TRIAD_RATE_BURST": "1000",
}
OWN_SERVERS = "embedded pgserver and nats-server of this run alone"


async def measure_all(
    backend: Backend, nats_pid: int, seconds: float, warmup: float, logs: Path
) -> dict[str, Any]:
    results: dict[str, LoadResult] = {}
    waves: dict[str, int] = {}
    costs: dict[str, LevelCost] = {}
    top = max(LEVELS)
    with echo_server(free_port(), logs / "echo-tls.log", backend.cert_path, backend.key_path) as a:
        results["echo_tls_64"] = await echo_load(a, backend.root_cert, top, seconds, warmup)
    with echo_server(free_port(), logs / "echo.log") as a:
        results["echo_plaintext_64"] = await echo_load(a, None, top, seconds, warmup)
    credentials = grpc.ssl_channel_credentials(root_certificates=backend.root_cert)
    async with grpc.aio.secure_channel(backend.gateway, credentials) as channel:
        stub = gateway_pb2_grpc.TriadGatewayStub(channel)
        tag = uuid4().hex[:8]
        pairs = [Pair(Player(f"gh{tag}{i:03d}"), Player(f"gg{tag}{i:03d}")) for i in range(top)]
        everyone = [p for pair in pairs for p in (pair.host, pair.guest)]
        began = time.perf_counter()
        async with signed_in(stub, everyone):
            for start in range(0, len(pairs), 16):  # every pair's first match, untimed
                await asyncio.gather(*(new_match(stub, p) for p in pairs[start : start + 16]))
            setup = time.perf_counter() - began
            async with readings(backend, nats_pid, everyone) as (read, conn):
                for level in LEVELS:
                    name = f"placements_{level}"
                    results[name], waves[name], costs[name] = await placements(
                        stub, pairs, level, seconds, warmup, read
                    )
                idle = await quiet(read, seconds / 2)
                logs_at_end = await event_logs(conn, backend)
    return {
        "results": results,
        "waves": waves,
        "costs": costs,
        "quiet": idle,
        "event_logs": logs_at_end,
        "setup_seconds": setup,
    }


@contextmanager
def gateway_backend(prefix: str) -> Iterator[tuple[list[int], Backend, int, Path]]:
    """Every core, and a backend of this run alone (bench/idle.py's ``own_backend``) with
    the load generator's settings and ``SETTINGS_ENV``: the cores, the backend, the NATS
    server's pid and the directory of its logs (TRIAD_BENCH_LOGS, else a scratch one)."""
    with (
        all_cores() as cores,
        tempfile.TemporaryDirectory(prefix=prefix) as scratch,
        own_backend(
            logs := Path(os.environ.get("TRIAD_BENCH_LOGS") or scratch),
            {**LOAD_ENV, **SETTINGS_ENV},
        ) as (backend, nats_pid),
    ):
        yield cores, backend, nats_pid, logs


def run(options: Options) -> Report:
    seconds, warmup = (2.0, 0.5) if options.quick else (10.0, 2.0)
    with gateway_backend("triad-gwbench-") as (cores, backend, nats_pid, logs):
        found = asyncio.run(measure_all(backend, nats_pid, seconds, warmup, logs))
    results: dict[str, LoadResult] = found["results"]
    costs: dict[str, LevelCost] = found["costs"]
    idle: Spent = found["quiet"]
    print(format_costs(list(costs.values()), idle))
    measurements = {
        "echo_tls_64": measurement(
            "echo_tls_64",
            "requests/s",
            "bare gRPC echo over TLS, 64 concurrent callers, one channel",
            results["echo_tls_64"],
        ),
        "echo_plaintext_64": measurement(
            "echo_plaintext_64",
            "requests/s",
            "bare gRPC echo in plaintext, 64 concurrent callers, one channel",
            results["echo_plaintext_64"],
        ),
    }
    measurements |= level_measurements(
        results, LEVELS, "PlaceCard through the gateway at {level} concurrent matches"
    )
    top = results[f"placements_{max(LEVELS)}"]
    p99 = top.percentile(99) * 1000
    tls_ratio = top.rate / results["echo_tls_64"].rate
    top_cpu = costs[f"placements_{max(LEVELS)}"].cpu_ms_per_placement_total
    plain_ratio = top.rate / results["echo_plaintext_64"].rate
    return Report(
        benchmark=NAME,
        parameters={
            **levels_parameters(
                LEVELS,
                seconds,
                warmup,
                OWN_SERVERS,
                cores,
            ),
            "services": "match, matchmaker, collection, rating, gateway: one process each",
            "match": "private custom table, Three Open, Same/Plus/Combo, no trade, Random decks",
            "sessions": "every player's session stream open and read",
            "settings": {**LOAD_ENV, **SETTINGS_ENV},
            "quiet_seconds": seconds / 2,
        },
        measurements=measurements,
        baseline="echo_tls_64",
        notes=[
            "Waves over one TLS channel: the pairs of a level start their matches together "
            "(CreateTable + JoinTable + GetMatchView, clock stopped), then play them to the end "
            "together, each sending its next PlaceCard when the last one answered (clock "
            "running); the rate is placements over the time spent placing. The session streams "
            "carry each placement's pushes meanwhile, as for a real client.",
            "This machine has 2 cores shared by the client, the gateway, the four other "
            "services, PostgreSQL and NATS (and, during the echo, the echo server): the "
            "absolute figures are far below what the same code does with a core each.",
            "The target ratio is taken against the TLS echo (the gateway serves only TLS); "
            "the plaintext ratio is given too, as bench/match.py measures against it.",
            "cpu.placements_<level>: what each backend process (its whole process tree; "
            "postgres: the postmaster and every backend) spent over the level's playing "
            "phases per placement made in them, in ms, with the database's committed "
            "transactions, the rows added to the event logs (every service's events table) "
            "and the session messages received per placement; the starting "
            "phases per match started. Work a phase sets off and finishes later (a match's "
            "end consumed by rating, collection and matchmaker; PostgreSQL's statistics, up "
            "to a second late) may land in the other phase. The bench client's CPU "
            "(client_cpu_ms_per_placement) is not counted; each reading adds one transaction "
            "(the count itself). cpu.quiet: the same processes with the sessions open and "
            "nobody placing, after the levels; background_cpu_ms_per_placement is that rate "
            "over the level's placing time per placement (background_cpu_ms_per_match_start: "
            "over its starting time per start), included in the figures.",
            "event_logs: each service's events table at the end of the run (every level's "
            "matches and the players' sign-ups), rows and bytes with indexes and TOAST.",
        ],
        extra={
            "latency": {name: r.summary() for name, r in results.items()},
            "setup_seconds": round(found["setup_seconds"], 2),
            "waves_counted": found["waves"],
            "event_logs": found["event_logs"],
            "cpu": {
                **{name: cost.to_json(idle) for name, cost in costs.items()},
                "quiet": quiet_json(idle),
            },
            "targets": {
                "placements_64_over_echo_tls_64": target(tls_ratio, RATIO_TARGET, minimum=True),
                "placements_64_over_echo_plaintext_64": target(
                    plain_ratio, RATIO_TARGET, minimum=True
                ),
                "placements_64_p99_ms": target(p99, P99_TARGET_MS, minimum=False),
                "placements_64_cpu_ms_per_placement": target(
                    top_cpu, PLACEMENT_TARGET_MS, minimum=False
                ),
            },
        },
    )
