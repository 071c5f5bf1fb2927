"""The gateway benchmark's waves (bench/gateway.py) and what the backend spent on them:
the pairs of a level start their matches together with the clock stopped, then play
them to the end together with it running; at each phase's edges ``read`` gives what
every backend process, the database and the players had spent so far
(bench/gateway_cost.py sums and divides it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg

from bench.cpu import cpu_seconds
from bench.gateway_cost import LevelCost, Reading, Spent
from bench.gateway_players import Pair, Player, new_match, play_out
from bench.idle import process_roots
from bench.service import LoadResult
from devtools.backend import Backend

COUNTS = """
SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
       (SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname = 'events')
"""
"""Committed transactions, and rows inserted into every service's event log."""
QUIET_SETTLE = 2.0
"""Seconds after the last level before the quiet window: the last wave's spill."""

Read = Callable[[], Awaitable[Reading]]


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


@contextlib.asynccontextmanager
async def readings(
    backend: Backend, nats_pid: int, players: list[Player]
) -> AsyncIterator[tuple[Read, Any]]:
    """A ``reader`` of what the backend has spent, over a database connection of its
    own, and that connection; both until the block ends."""
    conn = await asyncpg.connect(backend.config.database_url)
    try:
        yield reader(await process_roots(backend, conn, nats_pid), conn, players), conn
    finally:
        await conn.close()


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
