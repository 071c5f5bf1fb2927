"""What idle players cost the backend (issue 18, item 1): N session streams open through
the TLS gateway, nobody playing, every service a process on its own PostgreSQL and NATS.

    python -m bench idle                    # sizes 0, 1000, 5000 (make bench), ~2.5 min
    python -m bench idle --quick            # sizes 0, 200, 1000, 10-s windows, ~80 s
    python -m bench.idle --sizes 0,1000,5000,10000 --window 30 [--starters]

The baseline (no sessions) is measured first, once the backend is steady. Then the
players are provisioned (bench/idle_sessions.py; account rows and signed tokens, not
scrypt sign-ups) and their aftermath waited out, and for each size, in increasing
order: open its sessions from this process (grpc.aio, a few channels, many streams)
on top of the last size's, let them settle (:data:`SETTLE`), then read over a window
what each process spent (CPU from /proc, its children included; bench/cpu.py),
what it holds (resident memory), and how many transactions the database ran.
Per-session figures are a size's minus the baseline's, over its sessions; the report
and the table are bench/idle_report.py's.

The servers are the benchmark's own (embedded PostgreSQL and NATS, whatever the
``TRIAD_`` URLs say): their CPU and the database's transaction count are measured
whole, so nobody else's work may run on them. The bench client's CPU is reported but
not counted.

Targets (issue 18): <= 0.05 ms of CPU per second per idle session over all processes,
no database transactions per idle second, <= 40 kB per session in the gateway and
nothing per session in the other services.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import asyncpg

from bench.cpu import cpu_seconds, parent_pid
from bench.idle_figures import Window, drained, sample, steady
from bench.idle_report import Found, format_idle, report
from bench.idle_sessions import (
    STREAMS_PER_CHANNEL,
    TOKEN_MINUTES,
    IdlePlayer,
    SessionPool,
    provision,
    raise_open_files,
)
from bench.report import (
    DEFAULT_OUT_DIR,
    Options,
    Report,
    format_table,
    utc_now,
    write_report,
)
from bench.service import all_cores
from devtools.backend import Backend, BackendConfig
from devtools.embedded import NatsProcess
from devtools.servers import roomy_postgres
from devtools.topology import NAMES

SIZES = (0, 1000, 5000)
QUICK_SIZES = (0, 200, 1000)
WINDOW, STEP = 20.0, 2.0
QUICK_WINDOW, QUICK_STEP = 10.0, 1.0
"""Windows are whole heartbeat intervals (10 s): each session's heartbeat falls in them
as often whatever the phase. ``STEP``: seconds per reading while the baseline or the
provisioning's aftermath settles."""
SETTLE = 11.0
"""Seconds after the last session of a size has opened. PostgreSQL reports a backend's
transactions late, up to 10 s (``PGSTAT_IDLE_INTERVAL``) when it flushed less than a
second before: a shorter wait counts the openings' transactions as idle ones."""
MOST_SETTLE, MOST_DRAIN = 30.0, 120.0
SIZES_ENV = "TRIAD_BENCH_IDLE_SIZES"
"""``python -m bench idle`` takes its sizes from here when set (``0,1000,5000``)."""
SETTINGS_ENV = {"TRIAD_ACCESS_TOKEN_MINUTES": str(TOKEN_MINUTES)}

TRANSACTIONS = (
    "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
)


@dataclass(frozen=True, slots=True)
class Plan:
    sizes: tuple[int, ...]
    window: float
    settle: float
    step: float = STEP
    starters: bool = False
    """Grant every player a starter collection (about 15 ms of the collection service's
    CPU each, so minutes at 5,000)."""


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"0,1000,5000"`` as sorted distinct sizes, 0 (the baseline) always among them."""
    try:
        sizes = {int(part) for part in text.split(",") if part.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes are whole numbers, got {text!r}") from None
    if any(size < 0 for size in sizes):
        raise argparse.ArgumentTypeError(f"sizes are 0 or more, got {text!r}")
    return tuple(sorted(sizes | {0}))


@contextmanager
def own_backend(logs: Path, env: Mapping[str, str] = SETTINGS_ENV) -> Iterator[tuple[Backend, int]]:
    """Embedded PostgreSQL and NATS for this run alone, every service a process (with
    ``env`` besides the defaults); the backend and the NATS server's pid. bench/gateway.py
    measures on them too."""
    with ExitStack() as stack:
        database = stack.enter_context(roomy_postgres())
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="triad-idle-nats-")))
        nats = NatsProcess(work / "jetstream", work)
        nats_url = nats.start()
        stack.callback(nats.stop)
        config = BackendConfig(database, nats_url, logs, env=env, start_timeout=120)
        backend = stack.enter_context(Backend(config))
        assert nats.pid is not None
        yield backend, nats.pid


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


Until = Callable[[list[dict[str, float]]], bool]


async def settle(roots: Mapping[str, int], until: Until, step: float, most: float) -> float:
    """Read each process's CPU rate every ``step`` seconds until ``until(steps so far)``
    or ``most`` seconds have passed; the time waited."""
    began = time.monotonic()
    steps: list[dict[str, float]] = []
    before, at = cpu_seconds(roots), time.monotonic()
    while time.monotonic() - began < most:
        await asyncio.sleep(step)
        now, then = cpu_seconds(roots), time.monotonic()
        steps.append({n: (now[n] - before[n]) * 1000 / (then - at) for n in now})
        before, at = now, then
        if until(steps):
            break
    return time.monotonic() - began


def _steady(steps: list[dict[str, float]]) -> bool:
    return steady([sum(step.values()) for step in steps])


async def measure(backend: Backend, nats_pid: int, plan: Plan) -> Found:
    """Every size in turn, the baseline (0) first, once the backend is steady, before
    anyone is provisioned; then the players are provisioned and their aftermath waited
    out (:func:`drained`); then each size's sessions are opened on top of the last's and
    given ``plan.settle`` seconds. (Steadiness is no test once sessions are open: their
    heartbeats come in bursts, as the sessions were opened together.)"""
    conn = await asyncpg.connect(backend.config.database_url)
    roots = await process_roots(backend, conn, nats_pid)
    sessions = SessionPool(backend.gateway, backend.root_cert)
    found = Found({}, {}, {}, {}, {}, {}, {}, 0.0)
    players: list[IdlePlayer] = []
    try:
        for size in plan.sizes:
            if size == 0:
                found.settle_seconds[0] = await settle(roots, _steady, plan.step, MOST_SETTLE)
            else:
                if not players:
                    began = time.monotonic()
                    players = await provision(backend, max(plan.sizes), plan.starters)
                    found.provision_seconds = time.monotonic() - began
                    aftermath = partial(drained, baseline=found.windows[0].cpu_ms_per_second)
                    await settle(roots, aftermath, plan.step, MOST_DRAIN)
                began = time.monotonic()
                await sessions.add(players[len(sessions) : size])
                found.open_seconds[size] = time.monotonic() - began
                await asyncio.sleep(plan.settle)
                found.settle_seconds[size] = plan.settle
            window, client = await _window(conn, roots, sessions, plan.window)
            found.windows[size] = window
            found.client_cpu_ms_per_second[size] = client
            found.gateway_fds[size] = open_fds(roots["gateway"])
            print(
                f"  idle: {window.sessions} sessions, {window.cpu_ms_total:.0f} ms CPU/s, "
                f"{window.transactions_per_second:.1f} transactions/s",
                flush=True,
            )
    finally:
        found.pushes, found.ended = dict(sessions.pushes), dict(sessions.ended)
        await sessions.close()
        await conn.close()
    return found


async def _window(
    conn: Any, roots: Mapping[str, int], sessions: SessionPool, seconds: float
) -> tuple[Window, float]:
    """One measuring window; and the bench client's own CPU in it (ms/s, not counted)."""
    client = time.process_time()
    start = sample(roots, await conn.fetchval(TRANSACTIONS), sessions.open, time.monotonic())
    await asyncio.sleep(seconds)
    end = sample(roots, await conn.fetchval(TRANSACTIONS), sessions.open, time.monotonic())
    return Window.between(start, end), (time.process_time() - client) * 1000 / (end.at - start.at)


async def process_roots(backend: Backend, conn: Any, nats_pid: int) -> dict[str, int]:
    """The root pid of every backend process tree: each service, PostgreSQL's postmaster
    (the parent of ``conn``'s backend) and NATS."""
    roots = {name: _running(backend, name) for name in NAMES}
    roots["postgres"] = parent_pid(await conn.fetchval("SELECT pg_backend_pid()")) or 0
    roots["nats"] = nats_pid
    return roots


def _running(backend: Backend, name: str) -> int:
    pid = backend.pid(name)
    if pid is None:
        raise RuntimeError(f"{name} is not running: {backend.log(name)}")
    return pid


def run_plan(plan: Plan, logs: Path | None = None) -> tuple[Found, dict[str, Any]]:
    limits = raise_open_files()  # before the services start: they inherit it
    with all_cores() as cores, tempfile.TemporaryDirectory(prefix="triad-idle-") as scratch:
        where = logs or Path(os.environ.get("TRIAD_BENCH_LOGS") or scratch)
        with own_backend(where) as (backend, nats_pid):
            found = asyncio.run(measure(backend, nats_pid, plan))
    parameters = {
        "sizes": list(plan.sizes),
        "window_seconds": plan.window,
        "settle_seconds": plan.settle,
        "cores": cores,
        "database": "embedded pgserver and nats-server of this run alone",
        "services": "match, matchmaker, collection, rating, gateway: one process each",
        "streams_per_channel": STREAMS_PER_CHANNEL,
        "starter_collections": plan.starters,
        "open_files_limit": list(limits),
        "settings": SETTINGS_ENV,
    }
    return found, parameters


def plan_for(options: Options) -> Plan:
    given = os.environ.get(SIZES_ENV)
    sizes = parse_sizes(given) if given else (QUICK_SIZES if options.quick else SIZES)
    if options.quick:
        return Plan(sizes, QUICK_WINDOW, SETTLE, QUICK_STEP)
    return Plan(sizes, WINDOW, SETTLE)


def run(options: Options) -> Report:
    """The registry's entry (``make bench``)."""
    found, parameters = run_plan(plan_for(options))
    result = report(found, parameters)
    print(format_idle(result.extra))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.idle", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--sizes", type=parse_sizes, default=SIZES, help="idle sessions, e.g. 0,1000,5000"
    )
    parser.add_argument("--window", type=float, default=WINDOW, help="seconds measured per size")
    parser.add_argument(
        "--settle", type=float, default=SETTLE, help="seconds after opening a size's sessions"
    )
    parser.add_argument(
        "--starters",
        action="store_true",
        help="grant each player a starter collection, as Register does (slow at 5,000)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT_DIR)
    parser.add_argument("--logs", type=Path, help="keep the services' logs here")
    args = parser.parse_args(argv)
    if args.window <= 0 or args.settle < 0:
        parser.error("--window must be > 0 and --settle >= 0")
    started, clock = utc_now(), time.perf_counter()
    found, parameters = run_plan(
        Plan(args.sizes, args.window, args.settle, starters=args.starters), args.logs
    )
    options = Options(quick=False, out_dir=args.out, seed=0, repeats=1, seconds=args.window)
    result = report(found, parameters)
    data = result.to_json(options, started, time.perf_counter() - clock)
    stamped, latest = write_report(data, args.out)
    print(format_table(data))
    print(format_idle(result.extra))
    print(f"  report: {stamped} (also {latest.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
