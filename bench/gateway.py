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
import contextlib
import os
import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

import asyncpg
import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from bench.cpu import cpu_seconds
from bench.echo_tls import echo_load, echo_server
from bench.gateway_cost import (
    PLACEMENT_TARGET_MS,
    LevelCost,
    Reading,
    Spent,
    format_costs,
    quiet_json,
)
from bench.idle import own_backend, process_roots
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
SETTINGS = pb.TableSettings(
    rules=pb.Rules(
        visibility=pb.VISIBILITY_THREE_OPEN,
        same=True,
        plus=True,
        combo=True,
        trade_rule=pb.TRADE_RULE_NONE,
    ),
    random_deck=True,
)
TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
REFUSED = frozenset(
    {
        grpc.StatusCode.FAILED_PRECONDITION,  # the last match not settled yet
        grpc.StatusCode.ALREADY_EXISTS,  # a table from an earlier try
        grpc.StatusCode.ABORTED,  # "your match is being started; ask again in a moment"
        grpc.StatusCode.NOT_FOUND,  # the table is gone
    }
)


COUNTS = """
SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
       (SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname = 'events')
"""
"""Committed transactions, and rows inserted into every service's event log."""
OWN_SERVERS = "embedded pgserver and nats-server of this run alone"
QUIET_SETTLE = 2.0
"""Seconds after the last level before the quiet window: the last wave's spill."""

Read = Callable[[], Awaitable[Reading]]


@dataclass
class Player:
    name: str
    player_id: str = ""
    metadata: tuple[tuple[str, str], ...] = ()
    messages: int = 0
    """Session stream messages received."""


@dataclass
class Pair:
    host: Player
    guest: Player
    match_id: str = ""
    hands: dict[str, list[str]] = field(default_factory=dict)
    """Card ids left in each player's hand, by player name."""
    seats: dict[int, Player] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)
    turn: int = 0
    errors: list[str] = field(default_factory=list)
    table_id: str = ""
    """The host's open table for the next match, once created."""


async def register(stub: Any, player: Player) -> None:
    reply = await stub.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=player.name, password=PASSWORD),
        timeout=60,
    )
    player.player_id = reply.player.player_id
    player.metadata = (("authorization", f"Bearer {reply.tokens.access_token}"),)


async def drain_session(stub: Any, player: Player) -> None:
    """Keep the player's session stream open and read (and drop) what it pushes."""
    with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
        async for _ in stub.OpenSession(
            g.OpenSessionRequest(client_version="bench-gateway/1"), metadata=player.metadata
        ):
            player.messages += 1


async def call(method: Any, request: Any, player: Player) -> Any:
    """One call, retried with the same request (so the same request id) while the
    gateway or a service behind it is briefly unavailable."""
    for _ in range(50):
        try:
            return await method(request, metadata=player.metadata, timeout=10)
        except grpc.aio.AioRpcError as error:
            if error.code() not in TRANSIENT:
                raise
            await asyncio.sleep(0.1)
    return await method(request, metadata=player.metadata, timeout=10)


async def new_match(stub: Any, pair: Pair) -> None:
    """Start the pair's next match, or take up the one they already have (a start
    that answered too late the first time, or one left from the previous level)."""
    for _ in range(200):
        host = await call(stub.GetActiveMatch, g.GetActiveMatchRequest(), pair.host)
        guest = await call(stub.GetActiveMatch, g.GetActiveMatchRequest(), pair.guest)
        if host.view.match_id and host.view.match_id == guest.view.match_id:
            await adopt(stub, pair, host.view.match_id)
            return
        for player, view in ((pair.host, host.view), (pair.guest, guest.view)):
            if view.match_id:  # a match without the other: give it up
                pair.errors.append(f"forfeit {view.match_id} of {player.name}")
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await call(
                        stub.Forfeit,
                        g.ForfeitRequest(request_id=uuid4().hex, match_id=view.match_id),
                        player,
                    )
        try:
            if not pair.table_id:
                table = await call(
                    stub.CreateTable,
                    g.CreateTableRequest(
                        request_id=uuid4().hex,
                        settings=SETTINGS,
                        challenged_player_name=pair.guest.name,
                    ),
                    pair.host,
                )
                pair.table_id = table.table.table_id
            joined = await call(
                stub.JoinTable,
                g.JoinTableRequest(request_id=uuid4().hex, table_id=pair.table_id),
                pair.guest,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() not in REFUSED:
                raise
            pair.errors.append(f"{error.code().name}: {error.details()}")
            if error.code() == grpc.StatusCode.ALREADY_EXISTS:  # an earlier try's table
                pair.table_id = _table_named(error.details() or "")
            elif error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                pair.table_id = ""  # gone, or started (then the next look finds the match)
            await asyncio.sleep(0.05)
            continue
        pair.table_id = ""
        await adopt(stub, pair, joined.match_id)
        return
    raise RuntimeError(f"no match for {pair.host.name}: {pair.errors[-8:]}")


async def adopt(stub: Any, pair: Pair, match_id: str) -> None:
    """Play ``match_id`` from here: hands from each player's view, board and turn."""
    views = [
        (await call(stub.GetMatchView, g.GetMatchViewRequest(match_id=match_id), player)).view
        for player in (pair.host, pair.guest)
    ]
    pair.match_id = match_id
    pair.hands, pair.seats = {}, {}
    for player, view in zip((pair.host, pair.guest), views, strict=True):
        pair.hands[player.name] = [c.card.card_id for c in view.my_hand]
        pair.seats[view.my_seat] = player
    newest = max(views, key=lambda v: v.version)
    pair.empty = [c.index for c in newest.board if c.WhichOneof("content") == "empty"]
    pair.turn = newest.turn_seat


def _table_named(details: str) -> str:
    """The table an ALREADY_EXISTS names ("you already host open table <id>: ...")."""
    found = re.search(r"table ([0-9a-f-]{36})", details)
    return found.group(1) if found else ""


async def play_out(stub: Any, pair: Pair, latencies: list[float]) -> int:
    """Play the pair's match to its end; the placements made. Each PlaceCard is timed."""
    placed = 0
    while pair.match_id:
        player = pair.seats[pair.turn]
        card, cell = pair.hands[player.name].pop(), pair.empty.pop()
        began = time.perf_counter()
        reply = await call(
            stub.PlaceCard,
            g.PlaceCardRequest(
                request_id=uuid4().hex, match_id=pair.match_id, card_id=card, cell=cell
            ),
            player,
        )
        latencies.append(time.perf_counter() - began)
        placed += 1
        if reply.view.status == pb.MATCH_STATUS_FINISHED:
            pair.match_id = ""
        else:
            pair.turn = reply.view.turn_seat
    return placed


async def placements(
    stub: Any, pairs: list[Pair], concurrency: int, seconds: float, warmup: float, read: Read
) -> tuple[LoadResult, int, LevelCost]:
    """Waves of ``concurrency`` matches: the pairs start their matches together, with
    the clock stopped; then all play them to the end together, with the clock running.
    Repeated until ``warmup`` and then ``seconds`` of placing were spent; only the
    waves after the warm-up count. Returns the load, the waves counted and what the
    counted waves cost, by phase (``read`` at each phase's edges, clock stopped)."""
    pairs = pairs[:concurrency]
    latencies: list[float] = []
    counted, placing, warm, waves, starts = 0, 0.0, 0.0, 0, 0
    playing, starting = Spent(), Spent()
    last: Reading | None = None
    while placing < seconds:
        counting = warm >= warmup
        if counting and last is None:
            last = await read()
        fresh = [pair for pair in pairs if not pair.match_id]
        await asyncio.gather(*(new_match(stub, pair) for pair in fresh))
        ready = await read() if counting else None
        wave: list[float] = []
        began = time.perf_counter()
        placed = await asyncio.gather(*(play_out(stub, pair, wave) for pair in pairs))
        spent = time.perf_counter() - began
        if last is None or ready is None:
            warm += spent
            continue
        done = await read()
        starting += Spent.between(last, ready)
        playing += Spent.between(ready, done)
        last = done
        starts += len(fresh)
        counted += sum(placed)
        placing += spent
        latencies.extend(wave)
        waves += 1
    cost = LevelCost(concurrency, counted, starts, playing, starting)
    return LoadResult(counted, placing, tuple(latencies)), waves, cost


def reader(roots: dict[str, int], conn: Any, players: list[Player]) -> Read:
    """What the backend has spent so far: each process tree's CPU, the database's
    committed transactions and event rows, the session messages ``players`` received."""

    async def read() -> Reading:
        transactions, events = await conn.fetchrow(COUNTS)
        return Reading(
            at=time.perf_counter(),
            cpu_seconds=cpu_seconds(roots),
            client_seconds=time.process_time(),
            transactions=int(transactions),
            events=int(events),
            messages=sum(p.messages for p in players),
        )

    return read


async def event_logs(conn: Any, backend: Backend) -> dict[str, dict[str, int]]:
    """Each service's event log at the end of the run: its rows and its bytes on disk
    (table, indexes and TOAST), what the scale model's partitioning rests on."""
    found = {}
    for name in ("match", "matchmaker", "collection", "rating"):
        table = f'"{backend.schema(name)}".events'
        if await conn.fetchval("SELECT to_regclass($1)", table) is None:
            continue  # a service without an event log (rating)
        rows = await conn.fetchval(f"SELECT count(*) FROM {table}")
        size = await conn.fetchval("SELECT pg_total_relation_size($1::regclass)", table)
        found[name] = {"rows": int(rows), "bytes": int(size)}
    return found


async def quiet(read: Read, seconds: float) -> Spent:
    """What the backend spends with the sessions open and nobody placing."""
    await asyncio.sleep(QUIET_SETTLE)
    start = await read()
    await asyncio.sleep(seconds)
    return Spent.between(start, await read())


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
        for start in range(0, len(everyone), 8):  # scrypt is slow on purpose: a few at a time
            await asyncio.gather(*(register(stub, p) for p in everyone[start : start + 8]))
        sessions = [asyncio.create_task(drain_session(stub, p)) for p in everyone]
        for start in range(0, len(pairs), 16):  # every pair's first match, untimed
            await asyncio.gather(*(new_match(stub, pair) for pair in pairs[start : start + 16]))
        setup = time.perf_counter() - began
        conn = await asyncpg.connect(backend.config.database_url)
        try:
            read = reader(await process_roots(backend, conn, nats_pid), conn, everyone)
            for level in LEVELS:
                name = f"placements_{level}"
                results[name], waves[name], costs[name] = await placements(
                    stub, pairs, level, seconds, warmup, read
                )
            idle = await quiet(read, seconds / 2)
            logs_at_end = await event_logs(conn, backend)
        finally:
            await conn.close()
            for task in sessions:
                task.cancel()
            await asyncio.gather(*sessions, return_exceptions=True)
    return {
        "results": results,
        "waves": waves,
        "costs": costs,
        "quiet": idle,
        "event_logs": logs_at_end,
        "setup_seconds": setup,
    }


def run(options: Options) -> Report:
    seconds, warmup = (2.0, 0.5) if options.quick else (10.0, 2.0)
    with (
        all_cores() as cores,
        tempfile.TemporaryDirectory(prefix="triad-gwbench-") as scratch,
        own_backend(
            logs := Path(os.environ.get("TRIAD_BENCH_LOGS") or scratch),
            {**LOAD_ENV, **SETTINGS_ENV},
        ) as (backend, nats_pid),
    ):
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
                "embedded pgserver and nats-server of this run alone",
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
