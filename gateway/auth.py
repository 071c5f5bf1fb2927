"""Who is calling: one wrapper of the handlers authenticates every RPC but the open
ones, rate-limits per player, and makes the caller available to the servicer
(``caller()``).

Authenticating a call costs two dictionary look-ups in the common case: the token's
claims were verified at its first call on this replica (``VerifiedTokens``), and whether
it is revoked was read from the store within the last minute and is kept current by the
revocations the replicas push to each other (``gateway.revocations``).
"""

from __future__ import annotations

import contextvars
import ipaddress
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import grpc

from gateway.accounts import Claims, TokenSigner, VerifiedTokens
from gateway.revocations import (
    SUBJECT,
    RevocationFeed,
    RevocationReads,
    Revocations,
    Revoked,
)
from services.platform.errors import ResourceExhausted, Unauthenticated

if TYPE_CHECKING:
    from services.platform.interceptors import Handler, HandlerWrapper

OPEN_METHODS = frozenset(
    {
        "/triad.v1.TriadGateway/Register",
        "/triad.v1.TriadGateway/Login",
        "/triad.v1.TriadGateway/RefreshToken",
    }
)
"""Everything else needs a bearer token (health and reflection are not ours to guard)."""

_CALLER: contextvars.ContextVar[Claims] = contextvars.ContextVar("caller")


def caller() -> Claims:
    """The authenticated player of the current RPC."""
    return _CALLER.get()


FAILED_LOGINS_PER_MINUTE = 6.0
FAILED_LOGIN_BURST = 10.0
FAILED_LOGINS_PER_ADDRESS_PER_MINUTE = 30.0
FAILED_LOGIN_ADDRESS_BURST = 100.0
REGISTRATIONS_PER_MINUTE = 10.0
REGISTRATION_BURST = 30.0


def client_address(peer: str | None) -> str:
    """The host part of a gRPC peer ("ipv4:203.0.113.7:51234", "ipv6:[2001:db8::1]:443"),
    without the port, which changes with every connection. Behind a load balancer this
    is the balancer unless it keeps the client's address (Kubernetes:
    ``externalTrafficPolicy: Local``)."""
    if not peer:
        return "unknown"
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit("]", 1)[0].lstrip("[")
    return peer  # unix sockets and the like: the whole peer


class RateLimiter:
    """A token bucket per player: ``rate`` requests a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def ready(self, key: str, now: float | None = None) -> bool:
        """Whether :meth:`take` would succeed now (takes nothing)."""
        moment = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(key, (self.burst, moment))
        return min(self.burst, tokens + (moment - last) * self.rate) >= 1

    def take(self, player_id: str, now: float | None = None) -> bool:
        moment = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(player_id, (self.burst, moment))
        tokens = min(self.burst, tokens + (moment - last) * self.rate)
        if tokens < 1:
            self._buckets[player_id] = (tokens, moment)
            return False
        self._buckets[player_id] = (tokens - 1, moment)
        if len(self._buckets) > 100_000:  # forget idle players now and then
            self._buckets = {k: v for k, v in self._buckets.items() if moment - v[1] < 60}
        return True


NAME_CEILING = 10
"""Wrong passwords one name may take from all addresses together, in multiples of what
one address may try (``Authenticator.failed_logins_by_name``)."""


def _guesser(name: str, address: str) -> str:
    """The failed-login key of one name tried from one client address."""
    return f"{name}\x00{limit_key(address)}"


def limit_key(address: str) -> str:
    """What the per-address limits count a client address under: an IPv4 address
    itself; an IPv6 address's /64, the network one home or host is given whole, so that
    walking through it (2^64 addresses) does not start every limit afresh (found from
    outside). An IPv4 client seen through a dual-stack socket (``::ffff:a.b.c.d``) is
    its IPv4 address; anything else (a unix socket) is itself."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


class Authenticator:
    def __init__(
        self,
        signer: TokenSigner,
        store: RevocationReads,
        limiter: RateLimiter,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        failed_logins: RateLimiter | None = None,
        registrations: RateLimiter | None = None,
        revocations: Revocations | None = None,
        failed_logins_by_address: RateLimiter | None = None,
        revocation_subject: str = SUBJECT,
    ) -> None:
        self.signer, self.store, self.limiter, self.clock = signer, store, limiter, clock
        self.tokens = VerifiedTokens(signer)
        self.revocations = revocations or Revocations(store)
        self.feed = RevocationFeed(self.revocations, revocation_subject)
        """Connected by ``main`` when there is NATS (``feed.connect``)."""
        self.failed_logins = failed_logins or RateLimiter(
            FAILED_LOGINS_PER_MINUTE / 60, FAILED_LOGIN_BURST
        )
        """Wrong passwords per player name from one address: guessing costs a wait, not
        only scrypt's time. Per address, so a stranger's guesses do not lock the player
        out of their own account (found from outside: ten wrong passwords from anywhere
        locked the name for everyone). Kept per replica (each replica allows its own
        burst), which bounds guessing to a few attempts a minute per replica without a
        shared store on the log-in path."""
        self.failed_logins_by_name = RateLimiter(
            NAME_CEILING * self.failed_logins.rate, NAME_CEILING * self.failed_logins.burst
        )
        """Wrong passwords per player name from every address together: a guesser with
        many addresses is held to ``NAME_CEILING`` times one address's allowance."""
        self.failed_logins_by_address = failed_logins_by_address or RateLimiter(
            FAILED_LOGINS_PER_ADDRESS_PER_MINUTE / 60, FAILED_LOGIN_ADDRESS_BURST
        )
        """Wrong passwords per client address, whatever the name: one host guessing a
        few passwords for each of many accounts (within every name's own burst) is slowed
        too. Generous, so players behind one shared address are not locked out."""
        self.failed_refreshes = RateLimiter(
            self.failed_logins_by_address.rate, self.failed_logins_by_address.burst
        )
        """Refused refresh tokens (made up, spent, expired or revoked) per client address,
        as generous as wrong passwords but counted apart (neither holds up the other):
        each costs database reads and names no player to hold to the per-player rate
        (found from outside: 300 made-up tokens from one host in half a second, all
        answered)."""
        self.registrations = registrations or RateLimiter(
            REGISTRATIONS_PER_MINUTE / 60, REGISTRATION_BURST
        )
        """New accounts per client address: each costs a slow password hash and a starter
        collection, so one host cannot make the server hash (or hoard accounts) at will.
        Per replica and in memory, like the log-in limit."""

    def check_login_allowed(self, name: str, address: str) -> None:
        if not self.failed_logins.ready(_guesser(name, address)) or not (
            self.failed_logins_by_name.ready(name)
        ):
            raise ResourceExhausted(
                f"too many wrong passwords for {name!r}: wait a minute before trying again"
            )
        if not self.failed_logins_by_address.ready(limit_key(address)):
            raise ResourceExhausted(
                "too many wrong passwords from your address: wait a minute before trying again"
            )

    def login_failed(self, name: str, address: str) -> None:
        self.failed_logins.take(_guesser(name, address))
        self.failed_logins_by_name.take(name)
        self.failed_logins_by_address.take(limit_key(address))

    def check_refresh_allowed(self, address: str) -> None:
        if not self.failed_refreshes.ready(limit_key(address)):
            raise ResourceExhausted(
                "too many refused refresh tokens from your address: wait a minute before "
                "trying again, or log in"
            )

    def refresh_failed(self, address: str) -> None:
        self.failed_refreshes.take(limit_key(address))

    def take_registration(self, address: str) -> None:
        if not self.registrations.take(limit_key(address)):
            raise ResourceExhausted(
                "too many new accounts from your address: wait a minute before registering again"
            )

    async def authenticate(self, metadata: Any) -> Claims:
        # The scheme's name is case-insensitive (RFC 9110 11.1): found in review,
        # "bearer <token>" was refused.
        scheme, _, token = _authorization(metadata).partition(" ")
        if scheme.lower() != "bearer":
            raise Unauthenticated("send your access token as 'authorization: Bearer <token>'")
        claims = self.tokens.verify(token.strip(), self.clock())
        if await self.revocations.refuses(claims):
            raise Unauthenticated("the access token was revoked: log in again")
        if not self.limiter.take(claims.player_id):
            raise ResourceExhausted("too many requests: slow down and retry in a moment")
        return claims

    async def revoked(self, revoked: Revoked) -> None:
        """After a logout on this replica (recorded in the store): refused here at once,
        and on the other replicas as soon as the push reaches them."""
        self.revocations.apply(revoked)
        await self.feed.publish(revoked)

    def forget(self, claims: Claims) -> None:
        """Ask the store again whether this token is revoked, at its next call."""
        self.revocations.forget(claims.jti)


def _authorization(metadata: Any) -> str:
    """The ``authorization`` header's value ("" if none, or not text); the last one if
    several, as ``dict(metadata)`` read it."""
    found: Any = ""
    for key, value in metadata or ():
        if key == "authorization":
            found = value
    return found if isinstance(found, str) else ""


def authenticated(authenticator: Authenticator) -> HandlerWrapper:
    """The wrapper (``build_server(wrappers=...)``) that makes each method of the player
    API authenticate its caller first; applied once per method, at registration."""

    def wrap(method: str, registered: Handler) -> Handler:
        if method in OPEN_METHODS or not method.startswith("/triad.v1."):
            return registered
        handler: Any = registered  # the stubs type handlers for the sync API
        serialize = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(request: Any, context: Any) -> Any:
                _CALLER.set(await authenticator.authenticate(context.invocation_metadata()))
                return await inner(request, context)

            return grpc.unary_unary_rpc_method_handler(unary, **serialize)
        if handler.unary_stream is not None:
            inner_stream = handler.unary_stream

            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                _CALLER.set(await authenticator.authenticate(context.invocation_metadata()))
                # aclosing: when the stream ends mid-way (the client went away), the
                # handler's finally blocks (the session's disconnect report) run now,
                # not whenever the generator is garbage collected.
                async with aclosing(inner_stream(request, context)) as messages:
                    async for message in messages:
                        yield message

            return grpc.unary_stream_rpc_method_handler(stream, **serialize)
        return registered

    return wrap
