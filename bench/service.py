"""Load helpers for service benchmarks: processes (a service alone, health-checked), a
closed-loop driver, percentiles.

A closed loop: each of ``concurrency`` workers sends its next request as soon as the
previous one answered, for a fixed time. Latency is measured per request on the
client; throughput is completed requests over the window. The echo baseline runs the
same driver against a bare gRPC server, so the two figures share the client's costs.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench import cpu
from bench.machine import REPO_ROOT
from bench.report import Measurement
from bench.stats import percentile
from devtools.processes import free_port

Step = Callable[[], Awaitable[int]]
"""One worker step: does some requests, returns how many of them to count."""


@dataclass(frozen=True, slots=True)
class LoadResult:
    requests: int
    seconds: float
    latencies: tuple[float, ...]
    cpu_ms: Mapping[str, float] = field(default_factory=dict)
    """Milliseconds of CPU per counted request, by process (``CpuMeter``), if measured."""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def percentile(self, p: float) -> float:
        return percentile(self.latencies, p)

    def summary(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "seconds": round(self.seconds, 3),
            "per_second": round(self.rate, 1),
            "p50_ms": round(self.percentile(50) * 1000, 3),
            "p95_ms": round(self.percentile(95) * 1000, 3),
            "p99_ms": round(self.percentile(99) * 1000, 3),
            "mean_ms": round(statistics.fmean(self.latencies) * 1000, 3)
            if self.latencies
            else None,
            **({"cpu_ms_per_request": dict(self.cpu_ms)} if self.cpu_ms else {}),
        }


@dataclass(slots=True)
class CpuMeter:
    """CPU seconds by process, read from /proc (Linux; bench/cpu.py), so a benchmark can
    say what one request cost each process besides how many it did: on a shared, noisy
    machine the CPU per request moves less than the throughput. ``client`` is this
    process.

    ``roots``: name -> the pid of a process whose whole tree is counted (a PostgreSQL
    server's postmaster counts every backend, reaped ones included)."""

    roots: dict[str, int]

    @staticmethod
    def available() -> bool:
        return cpu.available()

    def read(self) -> dict[str, float]:
        return {"client": time.process_time(), **cpu.cpu_seconds(self.roots)}


async def closed_loop(
    make_worker: Callable[[int, list[float]], Awaitable[Step]],
    concurrency: int,
    seconds: float,
    warmup: float,
    meter: CpuMeter | None = None,
) -> LoadResult:
    """Run ``concurrency`` workers for ``warmup + seconds``; count only the window, and
    with a ``meter`` the CPU each process spent in it."""
    latencies: list[float] = []
    counted = 0
    start = time.perf_counter()
    window_start = start + warmup
    end = window_start + seconds
    readings: list[dict[str, float]] = []

    async def read_meter(meter: CpuMeter) -> None:
        await asyncio.sleep(warmup)
        readings.append(meter.read())
        await asyncio.sleep(max(0.0, end - time.perf_counter()))
        readings.append(meter.read())

    async def worker(index: int) -> None:
        nonlocal counted
        mine: list[float] = []
        step = await make_worker(index, mine)
        while time.perf_counter() < end:
            began = time.perf_counter()
            done = await step()
            if began >= window_start:
                counted += done
                latencies.extend(mine)
            mine.clear()

    metering = [read_meter(meter)] if meter is not None else []
    await asyncio.gather(*(worker(i) for i in range(concurrency)), *metering)
    cpu_ms: dict[str, float] = {}
    if len(readings) == 2 and counted:
        cpu_ms = {
            name: round((readings[1][name] - readings[0][name]) * 1000 / counted, 4)
            for name in readings[0]
        }
    return LoadResult(counted, seconds, tuple(latencies), cpu_ms)


def window_measurement(
    name: str, unit: str, description: str, rate: float, count: int, seconds: float
) -> Measurement:
    """A figure measured once over one timed window (a closed loop, a load run)."""
    return Measurement(
        name=name,
        unit=unit,
        description=description,
        rates=(rate,),
        seconds=(seconds,),
        loops=1,
        ops_per_repeat=count,
        warmup_seconds=0.0,
    )


def measurement(name: str, unit: str, description: str, result: LoadResult) -> Measurement:
    """The figure of a closed-loop window."""
    return window_measurement(name, unit, description, result.rate, result.requests, result.seconds)


def level_measurements(
    results: Mapping[str, LoadResult], levels: Sequence[int], description: str
) -> dict[str, Measurement]:
    """``placements_<level>`` for each concurrency level; ``description`` names the
    level with ``{level}``."""
    return {
        f"placements_{level}": measurement(
            f"placements_{level}",
            "placements/s",
            description.format(level=level),
            results[f"placements_{level}"],
        )
        for level in levels
    }


def levels_parameters(
    levels: Sequence[int], seconds: float, warmup: float, database: str, cores: list[int]
) -> dict[str, Any]:
    """The parameters every benchmark of concurrency levels reports first."""
    return {
        "levels": list(levels),
        "seconds_per_level": seconds,
        "warmup_seconds": warmup,
        "database": database,
        "cores": cores,
    }


def target(measured: float, bound: float, *, minimum: bool, digits: int = 4) -> dict[str, Any]:
    """A figure checked against a bound the issue set: at least (``minimum``) or at most."""
    return {
        ("minimum" if minimum else "maximum"): bound,
        "measured": round(measured, digits),
        "met": measured >= bound if minimum else measured <= bound,
    }


@contextmanager
def all_cores() -> Iterator[list[int]]:
    """Servers and clients need the whole machine: undo the bench's one-core pin."""
    if not hasattr(os, "sched_getaffinity"):
        yield []
        return
    before = os.sched_getaffinity(0)
    cores = sorted(range(os.cpu_count() or 1))
    os.sched_setaffinity(0, cores)
    try:
        yield cores
    finally:
        os.sched_setaffinity(0, before)


@contextmanager
def process(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *args],
            env={**os.environ, **env},
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def channel(address: str, root_cert: bytes | None) -> grpc.aio.Channel:
    if root_cert is None:
        return grpc.aio.insecure_channel(address)
    credentials = grpc.ssl_channel_credentials(root_certificates=root_cert)
    return grpc.aio.secure_channel(address, credentials)


async def healthy(address: str, root_cert: bytes | None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    async with channel(address, root_cert) as chan:
        stub = health_pb2_grpc.HealthStub(chan)
        while time.monotonic() < deadline:
            with suppress(grpc.aio.AioRpcError):
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            await asyncio.sleep(0.05)
    raise TimeoutError(f"{address} did not become healthy in {timeout} s")


@asynccontextmanager
async def lone_service(
    name: str, database_url: str, schema: str, logs: Path, env: Mapping[str, str]
) -> AsyncIterator[tuple[str, subprocess.Popen[bytes]]]:
    """The ``name`` service alone in a process of its own, its tables in ``schema`` of
    ``database_url`` (with ``env`` besides), on a free port, healthy; its address and
    process until the block ends. Its log is ``logs``/<name>.log."""
    port = free_port()
    prefix = f"TRIAD_{name.upper()}"
    env = {
        "TRIAD_DATABASE_URL": database_url,
        f"{prefix}_SCHEMA": schema,
        f"{prefix}_PORT": str(port),
        f"{prefix}_METRICS_PORT": "0",
        **env,
    }
    with process(["-m", f"services.{name}.main"], env, logs / f"{name}.log") as proc:
        await healthy(f"127.0.0.1:{port}", None, timeout=60.0)
        yield f"127.0.0.1:{port}", proc
