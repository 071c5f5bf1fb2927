"""The rating service on PostgreSQL (issue 7): updates applied per second from a backlog
of 100,000 MatchFinished events, and top-100 and rank-of-player latency on a ladder of
1,000,000 players.

Updates are applied in-process through ``RatingConsumer.apply``: the very transaction the
JetStream consumer runs per event (processed mark, lock both players, rate, log both
changes, standings, rank buckets, commit), without NATS around it. The backlog is
applied by one applier, in stream order (the service's default); a further backlog by
four concurrent appliers (``TRIAD_RATING_WORKERS=4``, or four replicas) for contrast.

The ladder is bulk-loaded with ``generate_series`` (ratings ~ N(1500, 200)), vacuumed,
and read through a real ``triad-rating`` process over gRPC, and directly on PostgreSQL
beside the alternative the rank histogram replaces (``count(*) WHERE rating > x``).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from random import Random
from typing import Any, cast

import grpc
from prometheus_client import CollectorRegistry
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import rating_pb2 as r
from triad.v1 import rating_pb2_grpc

from bench.report import Measurement, Options, Report
from bench.service import LoadResult, all_cores, lone_service
from devtools.embedded import embedded_postgres
from services.platform.database import connect_pool
from services.platform.migrations import migrate
from services.platform.settings import Settings
from services.rating.consumers import RatingConsumer
from services.rating.domain import Ladder, LadderKey
from services.rating.metrics import RatingMetrics
from services.rating.schema import SCHEMA_MIGRATIONS
from services.rating.store import RatingReader
from services.rating.tests.builders import envelope, random_games

NAME = "rating"
LEADERBOARD = LadderKey(Ladder.DRAFT, 0)
LEADERBOARD_PB = pb.LadderKey(ladder=pb.LADDER_DRAFT, season=0)


@dataclass(frozen=True, slots=True)
class Sizes:
    backlog: int
    tail: int
    """Events applied after the backlog by four concurrent appliers."""
    backlog_players: int
    ladder: int
    calls: int
    count_calls: int


FULL = Sizes(
    backlog=100_000,
    tail=5_000,
    backlog_players=20_000,
    ladder=1_000_000,
    calls=2_000,
    count_calls=40,
)
QUICK = Sizes(
    backlog=2_000, tail=300, backlog_players=300, ladder=20_000, calls=100, count_calls=10
)
WORKERS = 4


@contextmanager
def database() -> Iterator[tuple[str, str]]:
    url = Settings.from_env().database_url
    if url is not None:
        yield url, "TRIAD_DATABASE_URL"
        return
    with embedded_postgres() as embedded:
        yield embedded, "embedded pgserver"


def backlog(rng: Random, count: int, players: int, prefix: str) -> list[bytes]:
    """Serialised envelopes of rated Ranked matches between random pairs of players."""
    return [
        envelope(replace(g, match_id=f"{prefix}{g.match_id}")).SerializeToString()
        for g in random_games(rng, count, players)
    ]


async def apply_backlog(consumer: RatingConsumer, bodies: list[bytes], workers: int) -> float:
    """Apply every envelope once (decoding included) with ``workers`` appliers; seconds."""
    queue = iter(bodies)

    async def worker() -> None:
        for body in queue:  # a shared iterator: each body goes to one worker
            if not await consumer.apply(ev.EventEnvelope.FromString(body)):
                raise AssertionError("a backlog event was refused as a duplicate")

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(workers)))
    return time.perf_counter() - started


async def load_ladder(pool: Any, schema: str, size: int, seed: int) -> float:
    """``size`` ranked players on the leaderboard ladder, bulk-loaded; seconds."""
    started = time.perf_counter()
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(f"SET LOCAL search_path TO {schema}")
        await conn.execute("SELECT setseed($1)", (seed % 1000) / 1000)
        await conn.execute(
            "INSERT INTO players (player_id, player_name) "
            "SELECT 'L' || lpad(i::text, 7, '0'), 'player ' || i FROM generate_series(1, $1) i",
            size,
        )
        await conn.execute(
            "INSERT INTO ratings (ladder, season, player_id, rating, games, wins, losses, draws) "
            "SELECT $1, $2, 'L' || lpad(i::text, 7, '0'), g.rating, g.games, g.games / 2, "
            "       g.games - g.games / 2, 0 "
            "FROM generate_series(1, $3) i, LATERAL ("
            "  SELECT greatest(100, round(1500 + 200 * sqrt(-2 * ln(1 - random())) "
            "                             * cos(2 * pi() * random())))::integer AS rating, "
            "         1 + (random() * 200)::integer AS games, i AS pin) g",
            LEADERBOARD.ladder.value,
            LEADERBOARD.season,
            size,
        )
        await conn.execute(
            "INSERT INTO rating_histogram (ladder, season, rating, players) "
            "SELECT ladder, season, rating, count(*) FROM ratings "
            "WHERE ladder = $1 AND season = $2 GROUP BY 1, 2, 3",
            LEADERBOARD.ladder.value,
            LEADERBOARD.season,
        )
    for table in ("players", "ratings", "rating_histogram"):
        await pool.execute(f"VACUUM ANALYZE {schema}.{table}")
    return time.perf_counter() - started


async def timed(calls: int, step: Callable[[int], Awaitable[object]]) -> LoadResult:
    """Call ``step`` one after another (after a short warm-up); each call's latency."""
    for i in range(min(20, calls)):
        await step(i)
    latencies = []
    started = time.perf_counter()
    for i in range(calls):
        began = time.perf_counter()
        await step(i)
        latencies.append(time.perf_counter() - began)
    return LoadResult(calls, time.perf_counter() - started, tuple(latencies))


async def database_reads(
    pool: Any, schema: str, sizes: Sizes, rng: Random
) -> dict[str, LoadResult]:
    reader = RatingReader(pool, schema)
    players = [f"L{rng.randint(1, sizes.ladder):07d}" for _ in range(sizes.calls)]
    ratings = {
        row["player_id"]: row["rating"]
        for row in await pool.fetch(
            f"SELECT player_id, rating FROM {schema}.ratings "
            "WHERE ladder = $1 AND season = $2 AND player_id = ANY($3::text[])",
            LEADERBOARD.ladder.value,
            LEADERBOARD.season,
            players,
        )
    }
    count_sql = (
        f"SELECT count(*) FROM {schema}.ratings WHERE ladder = $1 AND season = $2 AND rating > $3"
    )

    async def top(_: int) -> object:
        return await reader.top(LEADERBOARD, 100)

    async def rank(i: int) -> object:
        return await reader.rank(LEADERBOARD, ratings[players[i]])

    async def count_rank(i: int) -> object:
        return await pool.fetchval(
            count_sql, LEADERBOARD.ladder.value, LEADERBOARD.season, ratings[players[i]]
        )

    return {
        "db_top100": await timed(sizes.calls, top),
        "db_rank_histogram": await timed(sizes.calls, rank),
        "db_rank_count_star": await timed(sizes.count_calls, count_rank),
    }


async def grpc_reads(address: str, sizes: Sizes, rng: Random) -> dict[str, LoadResult]:
    players = [f"L{rng.randint(1, sizes.ladder):07d}" for _ in range(sizes.calls)]
    async with grpc.aio.insecure_channel(address) as channel:
        stub = rating_pb2_grpc.RatingServiceStub(channel)

        async def top(_: int) -> object:
            reply = await stub.GetLeaderboard(
                r.RatingServiceGetLeaderboardRequest(ladder=LEADERBOARD_PB, top_n=100),
                timeout=10,
            )
            assert len(reply.entries) == 100
            return reply

        async def rank(i: int) -> object:
            reply = await stub.GetRank(
                r.RatingServiceGetRankRequest(player_id=players[i], ladder=LEADERBOARD_PB),
                timeout=10,
            )
            assert reply.rank >= 1
            return reply

        return {
            "grpc_top100": await timed(sizes.calls, top),
            "grpc_rank": await timed(sizes.calls, rank),
        }


async def measure_all(url: str, sizes: Sizes, seed: int, logs: Path) -> dict[str, Any]:
    rng = Random(seed)
    schema = f"bench_rating_{uuid.uuid4().hex[:10]}"
    pool = await connect_pool(url, min_size=2, max_size=WORKERS + 4)
    try:
        await migrate(pool, schema, SCHEMA_MIGRATIONS)
        consumer = RatingConsumer(
            cast(Any, None),  # apply() never touches NATS
            pool,
            schema,
            0,
            metrics=RatingMetrics.register(CollectorRegistry()),
        )
        bodies = backlog(rng, sizes.backlog, sizes.backlog_players, "b")
        tail = backlog(rng, sizes.tail, sizes.backlog_players, "t")
        backlog_seconds = await apply_backlog(consumer, bodies, 1)
        tail_seconds = await apply_backlog(consumer, tail, WORKERS)
        applied = await pool.fetchval(f"SELECT count(*) FROM {schema}.rating_changes")
        assert applied == 2 * (sizes.backlog + sizes.tail), applied

        load_seconds = await load_ladder(pool, schema, sizes.ladder, seed)
        reads = await database_reads(pool, schema, sizes, rng)
        no_nats = {"TRIAD_NATS_URL": ""}
        async with lone_service("rating", url, schema, logs, no_nats) as (address, _):
            reads |= await grpc_reads(address, sizes, rng)
        await pool.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        await pool.close()
    return {
        "backlog_seconds": backlog_seconds,
        "tail_seconds": tail_seconds,
        "load_seconds": load_seconds,
        "reads": reads,
    }


def rate(name: str, unit: str, description: str, ops: int, seconds: float) -> Measurement:
    return Measurement(
        name=name,
        unit=unit,
        description=description,
        rates=(ops / seconds,),
        seconds=(seconds,),
        loops=1,
        ops_per_repeat=ops,
        warmup_seconds=0.0,
    )


def run(options: Options) -> Report:
    sizes = QUICK if options.quick else FULL
    with all_cores() as cores, database() as (url, source), tempfile.TemporaryDirectory() as logs:
        found = asyncio.run(measure_all(url, sizes, options.seed, Path(logs)))
    reads: dict[str, LoadResult] = found["reads"]
    measurements = {
        "updates_backlog": rate(
            "updates_backlog",
            "updates/s",
            f"MatchFinished events applied from a backlog of {sizes.backlog:,} by one "
            "applier in stream order (each event: mark, lock, rate, log, commit)",
            sizes.backlog,
            found["backlog_seconds"],
        ),
        "updates_four_workers": rate(
            "updates_four_workers",
            "updates/s",
            f"{sizes.tail:,} more events applied by {WORKERS} concurrent appliers",
            sizes.tail,
            found["tail_seconds"],
        ),
    }
    descriptions = {
        "grpc_top100": "GetLeaderboard top_n=100 over gRPC, one call at a time",
        "grpc_rank": "GetRank of a random player over gRPC, one call at a time",
        "db_top100": "the top-100 query alone (index scan + names)",
        "db_rank_histogram": "rank from the rating histogram (sum of buckets above)",
        "db_rank_count_star": "rank by count(*) WHERE rating > x on the index (not used)",
    }
    for name, result in reads.items():
        measurements[name] = rate(
            name, "requests/s", descriptions[name], result.requests, result.seconds
        )
    return Report(
        benchmark=NAME,
        parameters={
            "backlog_events": sizes.backlog,
            "backlog_players": sizes.backlog_players,
            "four_worker_events": sizes.tail,
            "workers": WORKERS,
            "ladder_players": sizes.ladder,
            "calls": sizes.calls,
            "database": source,
            "cores": cores,
        },
        measurements=measurements,
        baseline=None,
        notes=[
            "Updates go through RatingConsumer.apply in-process: the consumer's own "
            "transaction per event, on PostgreSQL, without NATS (JetStream fetch and ack "
            "are not included). Every commit is synchronous (fsync).",
            "Latencies are client-side, sequential calls, after a 20-call warm-up; the "
            "gRPC figures include a real triad-rating process and its PostgreSQL queries.",
            "db_rank_count_star is the rank the histogram replaces, measured for contrast "
            "on fewer calls.",
        ],
        extra={
            "latency": {name: result.summary() for name, result in reads.items()},
            "ladder_load_seconds": round(found["load_seconds"], 2),
        },
    )
