"""The open calls' rate limits (gateway/limits.py): the buckets every gateway replica
counts in, on real PostgreSQL, held to the same contract as one process's own.

Found in review: each replica counted wrong passwords and new accounts in its own memory,
so a guesser spreading attempts over N replicas had N times the allowance."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from gateway.limits import Buckets, LocalBuckets, SharedBuckets
from gateway.schema import SCHEMA_MIGRATIONS
from services.platform.migrations import migrate

pytestmark = pytest.mark.integration

NEVER = 1e-9
"""A rate a second that refills nothing within a test."""


@pytest.fixture(params=["local", "shared"])
async def buckets(
    request: pytest.FixtureRequest, pg_pool: Any, pg_schema: str
) -> Callable[[str, float, float], Buckets]:
    if request.param == "local":
        return LocalBuckets
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)

    def shared(kind: str, rate: float, burst: float) -> Buckets:
        return SharedBuckets(pg_pool, pg_schema, kind, rate, burst)

    return shared


async def test_a_bucket_gives_its_burst_then_refuses_and_ready_takes_nothing(
    buckets: Callable[[str, float, float], Buckets],
) -> None:
    login = buckets("login", NEVER, 3)
    assert await login.ready("ann")
    assert await login.ready("ann"), "ready takes nothing"
    assert [await login.take("ann") for _ in range(4)] == [True, True, True, False]
    assert not await login.ready("ann")
    assert await login.take("bea"), "each key its own bucket"
    assert await buckets("register", NEVER, 1).take("ann"), "each kind its own buckets"


async def test_a_bucket_refills_at_its_rate(
    buckets: Callable[[str, float, float], Buckets],
) -> None:
    fast = buckets("refresh", 20.0, 1)  # one token every 50 ms
    assert await fast.take("203.0.113.7")
    assert not await fast.take("203.0.113.7")
    await asyncio.sleep(0.2)
    assert await fast.ready("203.0.113.7")
    assert await fast.take("203.0.113.7")


async def test_takes_at_the_same_instant_never_share_the_last_token(
    buckets: Callable[[str, float, float], Buckets],
) -> None:
    """Twenty replicas' worth of guesses at once: exactly the burst is let through."""
    login = buckets("login", NEVER, 5)
    taken = await asyncio.gather(*(login.take("ann 203.0.113.7") for _ in range(20)))
    assert sum(taken) == 5


async def test_two_replicas_count_in_one_bucket(pg_pool: Any, pg_schema: str) -> None:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    one, two = (SharedBuckets(pg_pool, pg_schema, "login", NEVER, 4) for _ in range(2))
    assert [await one.take("ann"), await two.take("ann")] == [True, True]
    assert [await one.take("ann"), await two.take("ann")] == [True, True]
    assert not await one.ready("ann") and not await two.ready("ann")
    assert not await two.take("ann")


async def test_a_sweep_forgets_refilled_buckets_only(pg_pool: Any, pg_schema: str) -> None:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    quick = SharedBuckets(pg_pool, pg_schema, "refresh", 100.0, 2)  # full again in 20 ms
    slow = SharedBuckets(pg_pool, pg_schema, "login", NEVER, 2)
    await quick.take("203.0.113.7")
    await slow.take("ann")
    await asyncio.sleep(0.1)
    assert await quick.sweep() == 1
    assert await slow.sweep() == 0
    assert await pg_pool.fetchval(f"SELECT count(*) FROM {pg_schema}.rate_buckets") == 1
    assert [await slow.take("ann"), await slow.take("ann")] == [True, False], "still counted"


async def test_a_token_given_back_can_be_taken_again_never_past_the_burst(
    buckets: Callable[[str, float, float], Buckets],
) -> None:
    """A good password gives back the token its attempt took (gateway.auth.begin_login)."""
    login = buckets("login", NEVER, 2)
    assert [await login.take("ann"), await login.take("ann")] == [True, True]
    await login.give_back("ann")
    assert await login.take("ann")
    assert not await login.take("ann")
    fresh = buckets("login", NEVER, 2)
    await fresh.give_back("bea")  # nothing taken: still the burst, no more
    assert [await fresh.take("bea") for _ in range(3)] == [True, True, False]
