"""Exactly once on PostgreSQL: concurrent, duplicated, reordered deliveries of
MatchFinished through the consumer's transaction (processed mark + rating), no NATS.

The consumer's ``apply`` is what a JetStream delivery runs; here several deliveries run
at once, as when a redelivery races a slow first attempt or two replicas share the
durable consumer.
"""

from __future__ import annotations

import asyncio
from random import Random
from typing import Any, cast
from uuid import uuid4

import asyncpg
import pytest
from prometheus_client import CollectorRegistry

from services.rating.consumers import RatingConsumer
from services.rating.domain import ResultKey
from services.rating.metrics import RatingMetrics
from services.rating.store import MemoryRatings, PostgresLadders, RatingReader
from services.rating.tests.builders import (
    DRAFT,
    RANKED,
    Delivery,
    bot,
    envelope,
    game,
    messy,
    random_games,
)
from services.rating.tests.replay import check_log_against_the_formula, clean, in_log_order

pytestmark = pytest.mark.integration


def consumer(pool: Any, schema: str) -> tuple[RatingConsumer, CollectorRegistry]:
    registry = CollectorRegistry()
    # apply() never touches NATS: the JetStream context is not needed to run it.
    made = RatingConsumer(
        cast(Any, None), pool, schema, 0, metrics=RatingMetrics.register(registry)
    )
    return made, registry


async def standings(pool: Any, schema: str) -> dict[tuple[str, str], tuple[int, ...]]:
    rows = await pool.fetch(
        f"SELECT ladder, player_id, rating, games, wins, losses, draws FROM {schema}.ratings"
    )
    return {(r[0], r[1]): tuple(r[2:]) for r in rows}


def memory_standings(store: MemoryRatings) -> dict[tuple[str, str], tuple[int, ...]]:
    return {
        (k.ladder.value, p): (s.rating, s.games, s.wins, s.losses, s.draws)
        for (k, p), s in store.rows.items()
    }


async def buckets(pool: Any, schema: str) -> dict[tuple[str, int], int]:
    rows = await pool.fetch(
        f"SELECT ladder, rating, players FROM {schema}.rating_histogram WHERE players <> 0"
    )
    return {(r[0], r[1]): r[2] for r in rows}


async def deliver_concurrently(
    rated: RatingConsumer, deliveries: list[Delivery], workers: int
) -> list[bool]:
    queue: asyncio.Queue[Delivery] = asyncio.Queue()
    for d in deliveries:
        queue.put_nowait(d)
    results: list[bool] = []

    async def worker() -> None:
        while not queue.empty():
            d = queue.get_nowait()
            results.append(await rated.apply(envelope(d.game, d.event_id)))

    await asyncio.gather(*(worker() for _ in range(workers)))
    return results


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_concurrent_duplicated_deliveries_rate_each_match_once(
    pg_pool: Any, rating_schema: str, seed: int
) -> None:
    rng = Random(seed)
    games = random_games(rng, 150, players=12, keys=(RANKED, DRAFT))
    deliveries = messy(rng, games, 0.6)
    rng.shuffle(deliveries)
    rated, registry = consumer(pg_pool, rating_schema)

    applied = await deliver_concurrently(rated, deliveries, workers=8)

    assert sum(applied) == len(games)  # one fresh application per event id
    log = await RatingReader(pg_pool, rating_schema).log()
    assert len(log) == 2 * len(games)
    check_log_against_the_formula(log)
    # The ratings are those of one clean delivery in the order the log shows.
    replayed = clean(in_log_order(games, log))
    assert await standings(pg_pool, rating_schema) == memory_standings(replayed)
    assert await buckets(pg_pool, rating_schema) == {
        (k.ladder.value, r): n for (k, r), n in replayed.buckets.items() if n
    }
    duplicates = registry.get_sample_value(
        "triad_rating_duplicates_ignored_total", {"kind": "event"}
    )
    assert duplicates == len(deliveries) - len(games)


async def test_a_clean_delivery_in_order_gives_what_memory_gives(
    pg_pool: Any, rating_schema: str
) -> None:
    games = random_games(Random(9), 200, players=10)
    rated, registry = consumer(pg_pool, rating_schema)
    for d in messy(Random(10), games, 0.3):
        await rated.apply(envelope(d.game, d.event_id))
    assert await standings(pg_pool, rating_schema) == memory_standings(clean(games))
    assert registry.get_sample_value(
        "triad_rating_updates_applied_total", {"ladder": "ranked", "season": "0"}
    ) == len(games)


async def test_the_same_match_under_other_event_ids_is_rated_once(
    pg_pool: Any, rating_schema: str
) -> None:
    rated, registry = consumer(pg_pool, rating_schema)
    g = game("m1", "ann", "bea")
    results = await asyncio.gather(*(rated.apply(envelope(g, uuid4())) for _ in range(10)))
    assert all(results)  # ten fresh event ids...
    assert await standings(pg_pool, rating_schema) == {  # ...one rating
        ("ranked", "ann"): (1520, 1, 1, 0, 0),
        ("ranked", "bea"): (1480, 1, 0, 1, 0),
    }
    assert (
        registry.get_sample_value("triad_rating_duplicates_ignored_total", {"kind": "match"}) == 9
    )


async def test_the_log_refuses_a_second_change_for_a_match_even_past_the_check(
    pg_pool: Any, rating_schema: str
) -> None:
    g = game("m1", "ann", "bea")
    rated, _ = consumer(pg_pool, rating_schema)
    await rated.apply(envelope(g))
    from services.rating import domain

    updates = domain.rate(g, domain.Standing(), domain.Standing())
    async with pg_pool.acquire() as conn:
        with pytest.raises(asyncpg.UniqueViolationError):
            async with conn.transaction():  # as a buggy handler skipping the lock would
                await PostgresLadders(conn, rating_schema).record(
                    ResultKey(RANKED, "m1"), uuid4(), updates
                )
    assert len(await RatingReader(pg_pool, rating_schema).log()) == 2


async def test_a_rating_that_fails_midway_leaves_nothing_and_the_retry_applies_once(
    pg_pool: Any, rating_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rated, _ = consumer(pg_pool, rating_schema)
    g = game("m1", "ann", "bea")
    original = PostgresLadders.record

    async def crash(self: PostgresLadders, *args: Any) -> None:
        await original(self, *args)
        raise ConnectionResetError("the process died before the commit")

    monkeypatch.setattr(PostgresLadders, "record", crash)
    with pytest.raises(ConnectionResetError):
        await rated.apply(envelope(g))
    monkeypatch.undo()
    assert await standings(pg_pool, rating_schema) == {}
    assert await rated.apply(envelope(g)) is True  # the redelivery
    assert await rated.apply(envelope(g)) is False  # and any later one
    assert (await standings(pg_pool, rating_schema))["ranked", "ann"] == (1520, 1, 1, 0, 0)


async def test_unrated_and_bot_games_are_marked_processed_and_change_nothing(
    pg_pool: Any, rating_schema: str
) -> None:
    rated, registry = consumer(pg_pool, rating_schema)
    assert await rated.apply(envelope(game("m1", "ann", bot("bot-1"))))
    assert await rated.apply(envelope(game("m2", "ann", "bea", rated=False)))
    assert not await rated.apply(envelope(game("m1", "ann", bot("bot-1"))))
    assert await standings(pg_pool, rating_schema) == {}
    assert registry.get_sample_value("triad_rating_results_ignored_total", {"reason": "bot"}) == 1


async def test_a_match_finished_that_cannot_be_read_is_counted_and_not_retried_forever(
    pg_pool: Any, rating_schema: str
) -> None:
    rated, registry = consumer(pg_pool, rating_schema)
    broken = envelope(game("m1", "ann", "bea"))
    broken.payload = b"\xff\xff not a MatchFinished"
    assert await rated.apply(broken) is True  # marked processed: no retry can fix it
    assert await standings(pg_pool, rating_schema) == {}
    assert (
        registry.get_sample_value("triad_rating_results_ignored_total", {"reason": "malformed"})
        == 1
    )
