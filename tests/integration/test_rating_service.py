"""The rating service as a separate process on real PostgreSQL and NATS, over gRPC.

MatchFinished envelopes are published to a JetStream stream of the test's own, as the
match service's relay publishes them; the service consumes them and answers reads.
It is SIGKILLed in the middle of a backlog and restarted: every match is rated exactly
once, from the ratings at the time it was applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from random import Random
from typing import Any
from uuid import uuid4

import asyncpg
import grpc
import pytest
from nats.aio.client import Client
from triad.v1 import common_pb2 as pb
from triad.v1 import rating_pb2 as r
from triad.v1 import rating_pb2_grpc

from devtools.processes import Service, free_port
from services.platform import bus
from services.platform.bus import EventStream
from services.platform.settings import Settings
from services.rating.domain import DRAW, LOSS, WIN, FinishedGame
from services.rating.store import RatingReader
from services.rating.tests.builders import bot, envelope, event_id, game, random_games
from services.rating.tests.replay import check_log_against_the_formula, clean, in_log_order

pytestmark = pytest.mark.integration
RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)


@pytest.fixture
def stream() -> EventStream:
    """A namespace of this test's (TRIAD_NATS_NAMESPACE): its own stream and subjects."""
    return EventStream.of(Settings(namespace=f"test{uuid4().hex[:12]}"))


@pytest.fixture
def schema() -> str:
    return f"rating_{uuid4().hex[:12]}"


@pytest.fixture
def rating_service(
    shared_database_url: str, nats_url: str, tmp_path: Path, stream: EventStream, schema: str
) -> Iterator[Service]:
    port = free_port()
    service = Service(
        "services.rating.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_RATING_SCHEMA": schema,
            "TRIAD_RATING_PORT": str(port),
            "TRIAD_RATING_METRICS_PORT": str(free_port()),
            "TRIAD_RATING_CONSUMER": f"rating_{uuid4().hex[:8]}",
            "TRIAD_NATS_NAMESPACE": stream.namespace,
            # What the killed process held comes back after this, not the default 30 s.
            "TRIAD_RATING_ACK_WAIT_SECONDS": "2",
        },
        port,
        tmp_path / "rating.log",
    )
    service.start()
    yield service
    assert service.stop() == 0, service.log.read_text()[-2000:]


@pytest.fixture
async def nc(nats_url: str, stream: EventStream) -> AsyncIterator[Client]:
    client = await bus.connect(nats_url, name="test-rating-service")
    await bus.ensure_stream(client.jetstream(), stream)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            await client.jetstream().delete_stream(stream.name)
        await client.close()


@pytest.fixture
async def stub(rating_service: Service) -> AsyncIterator[rating_pb2_grpc.RatingServiceAsyncStub]:
    async with grpc.aio.insecure_channel(rating_service.address) as channel:
        yield rating_pb2_grpc.RatingServiceStub(channel)


async def publish(nc: Client, stream: EventStream, g: FinishedGame, msg_id: str = "") -> None:
    await nc.jetstream().publish(
        stream.subject(f"match-{g.match_id}", "triad.v1.MatchFinished"),
        envelope(g).SerializeToString(),
        stream=stream.name,
        headers={bus.MSG_ID: msg_id or str(event_id(g.match_id))},
    )


async def rating(stub: rating_pb2_grpc.RatingServiceAsyncStub, player: str) -> pb.PlayerRating:
    reply = await stub.GetRating(
        r.RatingServiceGetRatingRequest(player_id=player, ladder=RANKED), timeout=5
    )
    return reply.rating


async def until_games(
    stub: rating_pb2_grpc.RatingServiceAsyncStub, player: str, games: int
) -> pb.PlayerRating:
    deadline = time.monotonic() + 15
    while (found := await rating(stub, player)).games < games:
        assert time.monotonic() < deadline, f"{player} never reached {games} games"
        await asyncio.sleep(0.05)
    return found


async def test_ratings_leaderboards_history_and_watch_over_grpc(
    stub: rating_pb2_grpc.RatingServiceAsyncStub,
    nc: Client,
    stream: EventStream,
    rating_service: Service,
) -> None:
    tag = uuid4().hex[:6]
    ann, bea, cid, dan = (f"{n}-{tag}" for n in ("ann", "bea", "cid", "dan"))
    first = game(f"m1-{tag}", ann, bea, WIN)
    for _ in range(10):  # one event, published ten times past the duplicate window
        await publish(nc, stream, first, msg_id=str(uuid4()))
    await publish(nc, stream, game(f"m2-{tag}", cid, dan, DRAW))
    await publish(nc, stream, game(f"m3-{tag}", ann, bot(f"bot-{tag}"), LOSS))  # never counts
    await publish(nc, stream, game(f"m4-{tag}", dan, cid, WIN))

    mine = await until_games(stub, dan, 2)
    assert (mine.rating, mine.wins, mine.draws, mine.provisional, mine.rank) == (
        1520,
        1,
        1,
        True,
        1,
    )
    got = await until_games(stub, ann, 1)
    assert (got.rating, got.games, got.player_name, got.rank) == (1520, 1, f"name-{ann}", 1)
    assert got.HasField("update_time")
    nobody = await rating(stub, f"nobody-{tag}")
    assert (nobody.rating, nobody.games, nobody.rank, nobody.provisional) == (1500, 0, 0, True)

    board = await stub.GetLeaderboard(
        r.RatingServiceGetLeaderboardRequest(ladder=RANKED, top_n=100, player_id=cid)
    )
    assert [(e.rank, e.rating) for e in board.entries] == [
        (1, 1520),
        (1, 1520),
        (3, 1480),
        (3, 1480),
    ]
    assert board.ranked_player_count == 4
    assert (board.player_entry.rank, board.player_entry.player_name) == (3, f"name-{cid}")
    rank = await stub.GetRank(r.RatingServiceGetRankRequest(player_id=bea, ladder=RANKED))
    assert (rank.rank, rank.ranked_player_count) == (3, 4)
    batch = await stub.BatchGetRatings(
        r.RatingServiceBatchGetRatingsRequest(ladder=RANKED, player_ids=[bea, "x", ann])
    )
    assert [(p.player_id, p.rating, p.rank) for p in batch.ratings] == [
        (bea, 1480, 3),
        ("x", 1500, 0),
        (ann, 1520, 1),
    ]

    page = await stub.ListRatingHistory(
        r.RatingServiceListRatingHistoryRequest(player_id=dan, ladder=RANKED, page_size=1)
    )
    (newest,) = page.changes
    assert (newest.match_id, newest.delta, newest.k_factor, newest.games_after) == (
        f"m4-{tag}",
        20,
        40,
        2,
    )
    assert newest.opponent_name == f"name-{cid}" and newest.rating_before == 1500
    rest = await stub.ListRatingHistory(
        r.RatingServiceListRatingHistoryRequest(
            player_id=dan, ladder=RANKED, page_size=1, page_token=page.next_page_token
        )
    )
    assert [c.match_id for c in rest.changes] == [f"m2-{tag}"] and not rest.next_page_token

    # A change applied while a player watches reaches them.
    call = stub.WatchRatings(r.RatingServiceWatchRatingsRequest(player_id=bea))
    try:
        await asyncio.sleep(0.3)  # the stream has taken its starting point
        await publish(nc, stream, game(f"m5-{tag}", bea, cid, WIN))
        pushed = await asyncio.wait_for(call.read(), 10)
        assert isinstance(pushed, r.RatingServiceWatchRatingsResponse)
        assert pushed.change.match_id == f"m5-{tag}"
        assert (pushed.change.rating_before, pushed.change.games_after) == (1480, 2)
    finally:
        call.cancel()

    metrics = (
        urllib.request.urlopen(
            f"http://127.0.0.1:{rating_service.env['TRIAD_RATING_METRICS_PORT']}/metrics", timeout=5
        )
        .read()
        .decode()
    )
    assert 'triad_rating_updates_applied_total{ladder="ranked",season="0"} 4.0' in metrics
    assert 'triad_rating_duplicates_ignored_total{kind="event"} 9.0' in metrics
    assert 'triad_rating_results_ignored_total{reason="bot"} 1.0' in metrics


async def test_bad_requests_get_the_status_the_contract_names(
    stub: rating_pb2_grpc.RatingServiceAsyncStub,
) -> None:
    season_1 = pb.LadderKey(ladder=pb.LADDER_RANKED, season=1)
    invalid, not_found = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
    cases: list[tuple[Any, Any, grpc.StatusCode]] = [
        (stub.GetRating, r.RatingServiceGetRatingRequest(player_id="a"), invalid),
        (stub.GetRating, r.RatingServiceGetRatingRequest(ladder=RANKED), invalid),
        (
            stub.GetRating,
            r.RatingServiceGetRatingRequest(player_id="a", ladder=season_1),
            not_found,
        ),
        (
            stub.GetLeaderboard,
            r.RatingServiceGetLeaderboardRequest(ladder=RANKED, top_n=101),
            invalid,
        ),
        (
            stub.ListRatingHistory,
            r.RatingServiceListRatingHistoryRequest(player_id="a", ladder=RANKED, page_token="x"),
            invalid,
        ),
        (
            stub.BatchGetRatings,
            r.RatingServiceBatchGetRatingsRequest(ladder=RANKED, player_ids=["a"] * 1001),
            invalid,
        ),
        (stub.GetRank, r.RatingServiceGetRankRequest(ladder=RANKED), invalid),
    ]
    for method, request, code in cases:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await method(request, timeout=5)
        assert error.value.code() == code, request
        assert error.value.details()
    watch = stub.WatchRatings(r.RatingServiceWatchRatingsRequest())
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await watch.read()
    assert error.value.code() == invalid


async def test_killed_mid_backlog_and_restarted_it_rates_every_match_exactly_once(
    rating_service: Service,
    nc: Client,
    stream: EventStream,
    shared_database_url: str,
    schema: str,
) -> None:
    tag = uuid4().hex[:6]
    games = [
        game(
            f"{g.match_id}-{tag}",
            f"{g.seats[0].player_id}-{tag}",
            f"{g.seats[1].player_id}-{tag}",
            g.score_a,
        )
        for g in random_games(Random(21), 1500, players=40)
    ]
    await asyncio.gather(*(publish(nc, stream, g) for g in games[:750]))
    await asyncio.gather(*(publish(nc, stream, g) for g in games[750:]))
    pool = await asyncpg.create_pool(shared_database_url, min_size=1, max_size=2)
    try:
        reader = RatingReader(pool, schema)

        async def applied() -> int:
            return int(await pool.fetchval(f"SELECT count(*) FROM {schema}.rating_changes"))

        deadline = time.monotonic() + 20
        while await applied() < 100:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.005)
        rating_service.kill()
        at_kill = await applied()
        # Everything it acknowledged is redelivered only if not acked; some applied
        # events lost their ack with the process. Redeliver some more, as a relay would.
        for g in games[:50]:
            await publish(nc, stream, g, msg_id=str(uuid4()))
        rating_service.start()
        deadline = time.monotonic() + 30
        while await applied() < 2 * len(games):
            assert time.monotonic() < deadline, f"{await applied()} of {2 * len(games)}"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # nothing more arrives
        log = await reader.log()
    finally:
        await pool.close()
    assert 0 < at_kill < 2 * len(games), "the kill should land in the middle of the backlog"
    assert len(log) == 2 * len(games)
    check_log_against_the_formula(log)
    replayed = clean(in_log_order(games, log))
    async with grpc.aio.insecure_channel(rating_service.address) as channel:
        stub = rating_pb2_grpc.RatingServiceStub(channel)
        for (_, player), standing in sorted(replayed.rows.items())[:10]:
            got = await rating(stub, player)
            assert (got.rating, got.games, got.wins, got.losses, got.draws) == (
                standing.rating,
                standing.games,
                standing.wins,
                standing.losses,
                standing.draws,
            )
