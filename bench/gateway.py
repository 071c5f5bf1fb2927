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

Targets at 64 concurrent matches: placements/s >= 0.25 x echo requests/s, and
PlaceCard p99 <= 50 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from bench.echo_tls import echo_load, echo_server
from bench.load import load_backend
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


@dataclass
class Player:
    name: str
    player_id: str = ""
    metadata: tuple[tuple[str, str], ...] = ()


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
            pass


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
    stub: Any, pairs: list[Pair], concurrency: int, seconds: float, warmup: float
) -> tuple[LoadResult, int]:
    """Waves of ``concurrency`` matches: the pairs start their matches together, with
    the clock stopped; then all play them to the end together, with the clock running.
    Repeated until ``warmup`` and then ``seconds`` of placing were spent; only the
    waves after the warm-up count. Returns the load and the waves counted."""
    pairs = pairs[:concurrency]
    latencies: list[float] = []
    counted, placing, warm, waves = 0, 0.0, 0.0, 0
    while placing < seconds:
        await asyncio.gather(*(new_match(stub, pair) for pair in pairs if not pair.match_id))
        wave: list[float] = []
        began = time.perf_counter()
        placed = await asyncio.gather(*(play_out(stub, pair, wave) for pair in pairs))
        spent = time.perf_counter() - began
        if warm < warmup:
            warm += spent
            continue
        counted += sum(placed)
        placing += spent
        latencies.extend(wave)
        waves += 1
    return LoadResult(counted, placing, tuple(latencies)), waves


async def measure_all(
    backend: Backend, seconds: float, warmup: float, logs: Path
) -> dict[str, Any]:
    results: dict[str, LoadResult] = {}
    waves: dict[str, int] = {}
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
        try:
            for level in LEVELS:
                name = f"placements_{level}"
                results[name], waves[name] = await placements(stub, pairs, level, seconds, warmup)
        finally:
            for task in sessions:
                task.cancel()
            await asyncio.gather(*sessions, return_exceptions=True)
    return {"results": results, "waves": waves, "setup_seconds": setup}


def run(options: Options) -> Report:
    seconds, warmup = (2.0, 0.5) if options.quick else (10.0, 2.0)
    with (
        all_cores() as cores,
        tempfile.TemporaryDirectory(prefix="triad-gwbench-") as scratch,
        load_backend(logs := Path(os.environ.get("TRIAD_BENCH_LOGS") or scratch), SETTINGS_ENV) as (
            backend,
            database,
        ),
    ):
        found = asyncio.run(measure_all(backend, seconds, warmup, logs))
    results: dict[str, LoadResult] = found["results"]
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
    plain_ratio = top.rate / results["echo_plaintext_64"].rate
    return Report(
        benchmark=NAME,
        parameters={
            **levels_parameters(LEVELS, seconds, warmup, database, cores),
            "services": "match, matchmaker, collection, rating, gateway: one process each",
            "match": "private custom table, Three Open, Same/Plus/Combo, no trade, Random decks",
            "sessions": "every player's session stream open and read",
            "settings": SETTINGS_ENV,
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
        ],
        extra={
            "latency": {name: r.summary() for name, r in results.items()},
            "setup_seconds": round(found["setup_seconds"], 2),
            "waves_counted": found["waves"],
            "targets": {
                "placements_64_over_echo_tls_64": target(tls_ratio, RATIO_TARGET, minimum=True),
                "placements_64_over_echo_plaintext_64": target(
                    plain_ratio, RATIO_TARGET, minimum=True
                ),
                "placements_64_p99_ms": target(p99, P99_TARGET_MS, minimum=False),
            },
        },
    )
