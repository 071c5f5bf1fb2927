"""The limits of the open calls (log-in, refresh, registration), shared by every gateway
replica.

Wrong passwords, refused refresh tokens and new accounts are counted in token buckets
(``rate`` a second, bursts up to ``burst``). A guesser may spread their attempts over
every replica behind the load balancer, so the buckets live in the gateway's own
PostgreSQL schema (:class:`SharedBuckets`, the table ``rate_buckets``): the allowance is
the backend's, whatever the number of replicas. Before (found in review) each replica
kept its own in memory, and twenty replicas let a guesser try twenty times as often.

Only refusals and registrations touch the table: a good password costs one read of it
(is this guesser still allowed?), and nothing else in the gateway reads it. The
per-player rate of authenticated calls stays in each replica's memory
(``auth.RateLimiter``): it guards a replica's own work, on the hot path.

:class:`LocalBuckets` are the same buckets in one process's memory, for tests and tools
that run the guard without a database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

FAILED_LOGINS_PER_MINUTE = 6.0
FAILED_LOGIN_BURST = 10.0
FAILED_LOGINS_PER_ADDRESS_PER_MINUTE = 30.0
FAILED_LOGIN_ADDRESS_BURST = 100.0
REGISTRATIONS_PER_MINUTE = 10.0
REGISTRATION_BURST = 30.0
NAME_CEILING = 10
"""Wrong passwords one name may take from all addresses together, in multiples of what
one address may try (``OpenCallLimits.by_name``)."""


class RateLimiter:
    """A token bucket per key in memory: ``rate`` requests a second, bursts up to
    ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def ready(self, key: str, now: float | None = None) -> bool:
        """Whether :meth:`take` would succeed now (takes nothing)."""
        moment = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (self.burst, moment))
        return min(self.burst, tokens + (moment - last) * self.rate) >= 1

    def take(self, key: str, now: float | None = None) -> bool:
        moment = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (self.burst, moment))
        tokens = min(self.burst, tokens + (moment - last) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, moment)
            return False
        self._buckets[key] = (tokens - 1, moment)
        if len(self._buckets) > 100_000:  # forget idle keys now and then
            self._buckets = {k: v for k, v in self._buckets.items() if moment - v[1] < 60}
        return True

    def give_back(self, key: str) -> None:
        """Return one token :meth:`take` took (never above the burst)."""
        if key in self._buckets:
            tokens, last = self._buckets[key]
            self._buckets[key] = (min(self.burst, tokens + 1), last)


class Buckets(Protocol):
    """Token buckets of one kind, one a key (a name, an address, a name from an address)."""

    async def ready(self, key: str) -> bool:
        """Whether :meth:`take` would succeed now (takes nothing)."""
        ...

    async def take(self, key: str) -> bool:
        """One token taken from ``key``'s bucket; False (and none taken) when it is empty."""
        ...

    async def give_back(self, key: str) -> None:
        """A token taken for an attempt that turned out not to count (a good password)."""
        ...


class LocalBuckets:
    """Buckets in this process's memory (one replica's own count)."""

    def __init__(self, kind: str, rate: float, burst: float) -> None:
        self.kind = kind
        self._limiter = RateLimiter(rate, burst)

    async def ready(self, key: str) -> bool:
        return self._limiter.ready(key)

    async def take(self, key: str) -> bool:
        return self._limiter.take(key)

    async def give_back(self, key: str) -> None:
        self._limiter.give_back(key)


class SharedBuckets:
    """Buckets in the gateway schema's ``rate_buckets`` table, counted by every replica.

    A row a bucket: its tokens at ``at`` (the database's clock, the one clock the
    replicas share). Refilling is computed when the bucket is read or taken from, in one
    statement, so two replicas taking at the same instant never both take the last
    token. A row whose bucket has refilled is the same as no row: :meth:`sweep` deletes
    it."""

    def __init__(self, pool: Any, schema: str, kind: str, rate: float, burst: float) -> None:
        self.kind, self.rate, self.burst = kind, rate, burst
        self._pool = pool
        self._s = schema
        # The bucket's tokens now: what it held, refilled since, at most the burst ($2).
        since = "EXTRACT(EPOCH FROM now() - b.at)::float8"
        refilled = f"LEAST($2::float8, b.tokens + {since} * $3::float8)"
        self._ready = f"SELECT {refilled} >= 1 FROM {schema}.rate_buckets b WHERE b.bucket = $1"
        self._take = (
            f"INSERT INTO {schema}.rate_buckets AS b (bucket, tokens, took, at) "
            "VALUES ($1, $2::float8 - 1, true, now()) "
            "ON CONFLICT (bucket) DO UPDATE SET "
            f"tokens = CASE WHEN {refilled} >= 1 THEN {refilled} - 1 ELSE {refilled} END, "
            f"took = {refilled} >= 1, at = now() RETURNING took"
        )

    def _bucket(self, key: str) -> str:
        return f"{self.kind}:{key}"

    async def ready(self, key: str) -> bool:
        allowed = await self._pool.fetchval(self._ready, self._bucket(key), self.burst, self.rate)
        return allowed is None or bool(allowed)

    async def take(self, key: str) -> bool:
        return bool(await self._pool.fetchval(self._take, self._bucket(key), self.burst, self.rate))

    async def give_back(self, key: str) -> None:
        await self._pool.execute(
            f"UPDATE {self._s}.rate_buckets SET tokens = LEAST($2::float8, tokens + 1) "
            "WHERE bucket = $1",
            self._bucket(key),
            self.burst,
        )

    async def sweep(self) -> int:
        """Forget this kind's buckets that have refilled; how many were forgotten."""
        status = await self._pool.execute(
            f"DELETE FROM {self._s}.rate_buckets WHERE bucket LIKE $1 "
            "AND at < now() - make_interval(secs => $2)",
            f"{self.kind}:%",
            self.burst / self.rate,
        )
        return int(status.split()[-1])


@dataclass(frozen=True, slots=True)
class Allowance:
    """How many a minute, and how many at once."""

    per_minute: float
    burst: float


@dataclass(frozen=True, slots=True)
class Allowances:
    """The open calls' allowances (``GatewaySettings`` reads them from the environment)."""

    failed_logins: Allowance = Allowance(FAILED_LOGINS_PER_MINUTE, FAILED_LOGIN_BURST)
    """Wrong passwords for one name from one address."""
    failed_logins_by_address: Allowance = Allowance(
        FAILED_LOGINS_PER_ADDRESS_PER_MINUTE, FAILED_LOGIN_ADDRESS_BURST
    )
    """Wrong passwords from one address, whatever the name; refused refresh tokens from
    one address are counted apart at the same allowance."""
    registrations: Allowance = Allowance(REGISTRATIONS_PER_MINUTE, REGISTRATION_BURST)
    """New accounts from one address."""


Make = Callable[[str, float, float], Buckets]
"""Buckets of a kind, at a rate a second and a burst."""


class OpenCallLimits:
    """Every bucket the open calls count in (``auth.Authenticator`` asks them)."""

    def __init__(self, allowances: Allowances = Allowances(), make: Make = LocalBuckets) -> None:
        def buckets(kind: str, allowance: Allowance, times: float = 1.0) -> Buckets:
            return make(kind, times * allowance.per_minute / 60, times * allowance.burst)

        self.guesses = buckets("login", allowances.failed_logins)
        """Wrong passwords per name from one address: guessing costs a wait, not only
        scrypt's time. Per address, so a stranger's guesses do not lock the player out
        of their own account (found from outside: ten wrong passwords from anywhere
        locked the name for everyone)."""
        self.by_name = buckets("login-name", allowances.failed_logins, NAME_CEILING)
        """Wrong passwords per name from every address together: a guesser with many
        addresses is held to ``NAME_CEILING`` times one address's allowance."""
        self.by_address = buckets("login-address", allowances.failed_logins_by_address)
        """Wrong passwords per client address, whatever the name: one host guessing a
        few passwords for each of many accounts (within every name's own burst) is
        slowed too. Generous, so players behind one shared address are not locked out."""
        self.refreshes = buckets("refresh", allowances.failed_logins_by_address)
        """Refused refresh tokens (made up, spent, expired or revoked) per client
        address, as generous as wrong passwords but counted apart: each costs database
        reads and names no player to hold to the per-player rate (found from outside:
        300 made-up tokens from one host in half a second, all answered)."""
        self.registrations = buckets("register", allowances.registrations)
        """New accounts per client address: each costs a slow password hash and a
        starter collection, so one host cannot make the server hash (or hoard accounts)
        at will."""
        self.all: tuple[Buckets, ...] = (
            self.guesses,
            self.by_name,
            self.by_address,
            self.refreshes,
            self.registrations,
        )

    @classmethod
    def shared(cls, pool: Any, schema: str, allowances: Allowances) -> OpenCallLimits:
        """The limits every replica on ``schema`` counts together."""

        def make(kind: str, rate: float, burst: float) -> Buckets:
            return SharedBuckets(pool, schema, kind, rate, burst)

        return cls(allowances, make)

    async def sweep(self) -> bool:
        """Forget the shared buckets that have refilled (a background step: False, it
        rests until the next)."""
        for buckets in self.all:
            if isinstance(buckets, SharedBuckets):
                await buckets.sweep()
        return False
