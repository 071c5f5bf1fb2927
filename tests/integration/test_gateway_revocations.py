"""Logouts pushed between gateway replicas (issue 18): two replicas' authenticators on one
real PostgreSQL schema, each with its revocation feed on real NATS. A replica keeps its
"not revoked" answers a minute while it hears the pushes, so a token revoked on one is
refused on the other only because the push reached it; without NATS each reads the
tables every 2 s again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from devtools.embedded import NatsProcess
from gateway.accounts import Issued, TokenSigner
from gateway.auth import Authenticator
from gateway.limits import RateLimiter
from gateway.revocations import POLLED_SECONDS, Revoked
from gateway.schema import SCHEMA_MIGRATIONS
from gateway.store import Account, GatewayStore, Revocation
from services.platform.errors import Unauthenticated
from services.platform.migrations import migrate

pytestmark = pytest.mark.integration

SIGNER = TokenSigner(b"r" * 48, timedelta(minutes=15))


async def until(check: Callable[[], Awaitable[bool]], seconds: float) -> float:
    """Seconds until ``check()`` holds (fails after ``seconds``)."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < seconds, f"not within {seconds} s"
        await asyncio.sleep(0.02)
    return time.monotonic() - start


@dataclass
class CountedReads:
    store: GatewayStore
    reads: int = 0

    async def revocation(self, player_id: str, jti: str) -> Revocation:
        self.reads += 1
        return await self.store.revocation(player_id, jti)


class Replica:
    def __init__(self, store: GatewayStore) -> None:
        self.store = store
        self.counted = CountedReads(store)
        self.auth = Authenticator(SIGNER, self.counted, RateLimiter(1000, 1000))

    @property
    def reads(self) -> int:
        return self.counted.reads

    async def accepts(self, issued: Issued) -> bool:
        metadata = (("authorization", f"Bearer {issued.token}"),)
        try:
            await self.auth.authenticate(metadata)
        except Unauthenticated as error:
            assert "revoked" in str(error)
            return False
        return True

    async def logout(self, issued: Issued, everywhere: bool) -> None:
        """What Logout does on this replica."""
        me, now = issued.claims, datetime.now(UTC)
        await self.store.revoke(me.player_id, me.jti, me.expires_at, everywhere, now)
        await self.auth.revoked(Revoked(me.player_id, me.jti, now if everywhere else None))


@asynccontextmanager
async def replicas(pool: Any, schema: str, nats: str) -> AsyncIterator[tuple[Replica, Replica]]:
    await migrate(pool, schema, SCHEMA_MIGRATIONS)
    store = GatewayStore(pool, schema)
    pair = Replica(store), Replica(store)
    subject = f"test.{uuid4().hex}.revocations"  # NATS is shared by the tests
    for replica in pair:
        replica.auth.feed.subject = subject
        await replica.auth.feed.connect([nats], "test-revocations")
    try:
        yield pair
    finally:
        for replica in pair:
            await replica.auth.feed.close()


async def player(store: GatewayStore) -> str:
    player_id = str(uuid4())
    async with store.pool.acquire() as conn:
        account = Account(player_id, f"p{player_id[:8]}", "x", datetime.now(UTC))
        await store.create_account(conn, account)
    return player_id


def issue(player_id: str, at: datetime | None = None) -> Issued:
    return SIGNER.issue(player_id, "P", at or datetime.now(UTC))


async def test_a_token_revoked_on_one_replica_is_refused_on_the_other_within_a_second(
    pg_pool: Any, pg_schema: str, nats_url: str
) -> None:
    async with replicas(pg_pool, pg_schema, nats_url) as (a, b):
        assert a.auth.revocations.pushed and b.auth.revocations.pushed
        me = await player(a.store)
        token, other = issue(me), issue(me)
        assert await b.accepts(token) and await b.accepts(other)  # "not revoked", kept a minute
        await a.logout(token, everywhere=False)
        assert not await a.accepts(token)  # here at once
        assert await until(lambda: _refused(b, token), 1) < 1
        assert await b.accepts(other)  # only that token
        assert b.reads == 2  # one per token: the refusal came by push, not by a read


async def _refused(replica: Replica, issued: Issued) -> bool:
    return not await replica.accepts(issued)


async def test_a_logout_everywhere_refuses_the_players_older_tokens_on_every_replica(
    pg_pool: Any, pg_schema: str, nats_url: str
) -> None:
    async with replicas(pg_pool, pg_schema, nats_url) as (a, b):
        me, someone = await player(a.store), await player(a.store)
        earlier = datetime.now(UTC) - timedelta(seconds=5)
        old, current, theirs = issue(me, earlier), issue(me, earlier), issue(someone, earlier)
        for issued in (old, current, theirs):
            assert await b.accepts(issued)
        await a.logout(current, everywhere=True)
        await until(lambda: _refused(b, old), 1)
        assert not await b.accepts(current)
        assert await b.accepts(theirs)
        assert await b.accepts(issue(me, datetime.now(UTC) + timedelta(seconds=2)))
        assert b.reads == 4  # the three, and the new token's first call


async def test_while_nats_is_away_the_replicas_read_the_tables_every_two_seconds(
    pg_pool: Any, pg_schema: str, tmp_path: Path
) -> None:
    nats = NatsProcess(tmp_path / "jetstream", tmp_path / "nats")
    url = nats.start()
    try:
        async with replicas(pg_pool, pg_schema, url) as (a, b):
            me = await player(a.store)
            token, other, third = issue(me), issue(me), issue(me)
            assert await b.accepts(token) and await b.accepts(other)
            nats.stop()
            await until(lambda: _true(not b.auth.revocations.pushed), 10)
            await a.logout(token, everywhere=False)  # its push cannot reach b now
            took = await until(lambda: _refused(b, token), POLLED_SECONDS + 1)
            assert took <= POLLED_SECONDS + 0.5
            assert await b.accepts(other)
            # A logout whose push is lost: in the tables only.
            claims = other.claims
            await a.store.revoke(me, claims.jti, claims.expires_at, False, datetime.now(UTC))
            nats.start()  # the same port: the feeds reconnect and hear pushes again
            both = lambda: _true(a.auth.revocations.pushed and b.auth.revocations.pushed)  # noqa: E731
            await until(both, 15)
            assert not await b.accepts(other)  # what b kept while away is asked again
            assert await b.accepts(third)
            await a.logout(third, everywhere=False)
            assert await until(lambda: _refused(b, third), 1) < 1
    finally:
        nats.stop()


async def _true(value: bool) -> bool:
    return value
