"""The match service alone on PostgreSQL, beside a bare gRPC echo server (issue 3).

Placements per second and client-side p50/p99 latency of PlaceCard at 1, 16 and 64
concurrent matches, and echo requests per second at 64 concurrent callers measured in
the same run with the same driver. Targets: at 64 concurrent matches placements/s
>= 0.4 x echo requests/s, and p99 <= 30 ms.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from bench.cpu import parent_pid
from bench.echo_tls import echo_load
from bench.report import Options, Report
from bench.service import (
    CpuMeter,
    LoadResult,
    Step,
    all_cores,
    closed_loop,
    level_measurements,
    levels_parameters,
    lone_service,
    measurement,
    process,
    target,
)
from devtools.embedded import embedded_postgres
from devtools.match_client import create_request
from devtools.processes import free_port
from services.platform.settings import Settings

NAME = "match"
LEVELS = (1, 16, 64)
RATIO_TARGET = 0.4
P99_TARGET_MS = 30.0


@dataclass(slots=True)
class Prepared:
    """A created match, ready for its first placement: ids, hands, whose turn."""

    match_id: str
    players: tuple[str, str]
    hands: list[list[str]]
    turn: int
    empty: list[int] = field(default_factory=lambda: list(range(9)))


async def prepare(stub: Any, tag: str) -> Prepared:
    """CreateMatch, then GetView for the drawn first seat."""
    match_id = str(uuid.uuid4())
    players = (f"{tag}a-{match_id[:8]}", f"{tag}b-{match_id[:8]}")
    request = create_request(match_id, pb.VISIBILITY_THREE_OPEN, players)
    await stub.CreateMatch(request, timeout=30)
    reply = await stub.GetView(
        m.MatchServiceGetViewRequest(match_id=match_id, player_id=players[0]), timeout=30
    )
    return Prepared(
        match_id=match_id,
        players=players,
        hands=[[c.card_id for c in seat.deck] for seat in request.seats],
        turn=0 if reply.view.turn_seat == pb.SEAT_A else 1,
    )


async def prepare_many(stub: Any, count: int, concurrency: int = 64) -> list[Prepared]:
    """``count`` matches created before a load starts, ``concurrency`` at a time."""
    ready: list[Prepared] = []
    remaining = count

    async def creator(index: int) -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            ready.append(await prepare(stub, f"p{index}"))

    await asyncio.gather(*(creator(i) for i in range(min(concurrency, count))))
    return ready


async def match_load(
    address: str,
    concurrency: int,
    seconds: float,
    warmup: float,
    expected_rate: float,
    meter: CpuMeter | None = None,
) -> tuple[LoadResult, int]:
    """Each worker plays matches back to back, taking the next from a pool of matches
    created before the clock starts (both players, their hands known from the create
    request, the board from each PlaceCard reply). Only PlaceCard is timed and counted.

    The pool holds what ``expected_rate`` placements/s would use with a third to spare;
    a worker that finds it empty creates its match inside the window, which then costs
    the window its time. Returns the load and how many matches had to be created so."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        needed = int(expected_rate * (seconds + warmup) / 9 * 4 / 3) + concurrency
        pool = await prepare_many(stub, needed)
        late = 0

        async def next_match(index: int) -> Prepared:
            nonlocal late
            if pool:
                return pool.pop()
            late += 1
            return await prepare(stub, f"w{index}")

        async def make(index: int, latencies: list[float]) -> Step:
            state = await next_match(index)

            async def step() -> int:
                nonlocal state
                seat = state.turn
                began = time.perf_counter()
                reply = await stub.PlaceCard(
                    m.MatchServicePlaceCardRequest(
                        request_id=uuid.uuid4().hex,
                        match_id=state.match_id,
                        player_id=state.players[seat],
                        card_id=state.hands[seat].pop(),
                        cell=state.empty.pop(),
                        placer_view_in_reply=True,
                    ),
                    timeout=10,
                )
                latencies.append(time.perf_counter() - began)
                if reply.view.status == pb.MATCH_STATUS_FINISHED:
                    state = await next_match(index)
                else:
                    state.turn = 1 - seat
                return 1

            return step

        return await closed_loop(make, concurrency, seconds, warmup, meter), late


async def measure_all(
    database_url: str, seconds: float, warmup: float, logs: Path
) -> tuple[dict[str, LoadResult], dict[str, int]]:
    """The echo and each level's placements; and per level, the matches its workers had
    to create inside the window (the pool ran dry)."""
    results: dict[str, LoadResult] = {}
    late: dict[str, int] = {}
    echo_port = free_port()
    metering = CpuMeter.available()
    with process(
        ["-m", "devtools.echo", "--port", str(echo_port), "--log-level", "WARNING"],
        {},
        logs / "echo.log",
    ) as echo:
        meter = CpuMeter({"server": echo.pid}) if metering else None
        results["echo_64"] = await echo_load(
            f"127.0.0.1:{echo_port}", None, 64, seconds, warmup, meter=meter
        )
    schema, env = f"bench_{uuid.uuid4().hex[:10]}", {"TRIAD_TURN_SECONDS": "600"}
    async with lone_service("match", database_url, schema, logs, env) as (address, server):
        meter = None
        if metering:
            connection = await asyncpg.connect(database_url)
            try:
                postmaster = parent_pid(await connection.fetchval("SELECT pg_backend_pid()"))
            finally:
                await connection.close()
            roots = {"server": server.pid}
            if postmaster is not None:
                roots["postgres"] = postmaster
            meter = CpuMeter(roots)
        # The pool for a level: a single caller is bound by round trips (an eighth of
        # the echo), more callers by three times what the level before them reached.
        expected = results["echo_64"].rate / 8
        for level in LEVELS:
            name = f"placements_{level}"
            results[name], late[name] = await match_load(
                address, level, seconds, warmup, expected, meter
            )
            expected = min(3 * results[name].rate, results["echo_64"].rate)
    return results, late


def run(options: Options) -> Report:
    seconds, warmup = (1.0, 0.3) if options.quick else (6.0, 1.5)
    settings = Settings.from_env()
    with all_cores() as cores, tempfile.TemporaryDirectory() as logs:
        if settings.database_url is not None:
            results, late = asyncio.run(
                measure_all(settings.database_url, seconds, warmup, Path(logs))
            )
            database = "TRIAD_DATABASE_URL"
        else:
            with embedded_postgres() as url:
                results, late = asyncio.run(measure_all(url, seconds, warmup, Path(logs)))
            database = "embedded pgserver"
    measurements = {
        "echo_64": measurement(
            "echo_64", "requests/s", "bare gRPC echo, 64 concurrent callers", results["echo_64"]
        )
    }
    measurements |= level_measurements(results, LEVELS, "PlaceCard at {level} concurrent matches")
    latency = {name: r.summary() for name, r in results.items()}
    p99 = results["placements_64"].percentile(99) * 1000
    ratio = results["placements_64"].rate / results["echo_64"].rate
    return Report(
        benchmark=NAME,
        parameters={
            **levels_parameters(LEVELS, seconds, warmup, database, cores),
            "visibility": "three open, Same/Plus/Combo",
        },
        measurements=measurements,
        baseline="echo_64",
        targets=[],
        notes=[
            "Closed loop: each worker sends its next request when the last one answered. "
            "One client process, one channel per load, all of it on this 2-core machine "
            "together with the server(s) and PostgreSQL; the client's own CPU is part of "
            "both the echo and the match figures.",
            "Each PlaceCard is one PostgreSQL transaction: timer row lock, event append, "
            "timer update, idempotency key, NOTIFY; plus the view rebuilt for the reply.",
            "Each PlaceCard asks for the placer's view in the reply (placer_view_in_reply), "
            "as the gateway does for a client that names its session (both clients do): "
            "only the opponent's view is published on NATS.",
            "The matches are created (CreateMatch + GetView) before each level's clock starts, "
            "so the window holds placements only; matches_created_in_window counts those a "
            "worker had to create inside it when the pool ran dry.",
            "latency.*.cpu_ms_per_request: milliseconds of CPU each process spent per counted "
            "request in the window (server: all its threads; postgres: the postmaster of the "
            "bench's database and all its children, whoever else uses that server; client: "
            "this process). It moves less than the throughput on a noisy machine.",
        ],
        extra={
            "latency": latency,
            "matches_created_in_window": late,
            "targets": {
                "placements_64_over_echo_64": target(ratio, RATIO_TARGET, minimum=True),
                "placements_64_p99_ms": target(p99, P99_TARGET_MS, minimum=False, digits=3),
            },
        },
    )
