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
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import grpc

from gateway.accounts import Claims, TokenSigner, VerifiedTokens
from gateway.limits import Buckets, OpenCallLimits, RateLimiter
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


def _guesser(name: str, address: str) -> str:
    """The failed-login key of one name tried from one client address (a name has no
    space: ``accounts.NAME``)."""
    return f"{name} {limit_key(address)}"


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
        limits: OpenCallLimits | None = None,
        revocations: Revocations | None = None,
        revocation_subject: str = SUBJECT,
    ) -> None:
        self.signer, self.store, self.limiter, self.clock = signer, store, limiter, clock
        """``limiter``: each player's authenticated calls, in this replica's memory."""
        self.tokens = VerifiedTokens(signer)
        self.revocations = revocations or Revocations(store)
        self.feed = RevocationFeed(self.revocations, revocation_subject)
        """Connected by ``main`` when there is NATS (``feed.connect``)."""
        self.limits = limits or OpenCallLimits()
        """The open calls' limits: shared by every replica in ``main``
        (``OpenCallLimits.shared``), one process's own in tests."""

    async def begin_login(self, name: str, address: str) -> None:
        """Take a guess's tokens before its password is checked (``login_succeeded``
        gives them back): found from outside, the limits were read before the slow check
        and spent after it, so guesses sent at the same moment all passed the read."""
        limits = self.limits
        taken: list[tuple[Buckets, str]] = []
        for buckets, key in (
            (limits.guesses, _guesser(name, address)),
            (limits.by_name, name),
            (limits.by_address, limit_key(address)),
        ):
            if not await buckets.take(key):
                for back, its in taken:
                    await back.give_back(its)
                if buckets is limits.by_address:
                    raise ResourceExhausted(
                        "too many wrong passwords from your address: wait a minute before "
                        "trying again"
                    )
                raise ResourceExhausted(
                    f"too many wrong passwords for {name!r}: wait a minute before trying again"
                )
            taken.append((buckets, key))

    async def login_succeeded(self, name: str, address: str) -> None:
        """A good password: its guess did not count."""
        await self.limits.guesses.give_back(_guesser(name, address))
        await self.limits.by_name.give_back(name)
        await self.limits.by_address.give_back(limit_key(address))

    async def begin_refresh(self, address: str) -> None:
        """Take a refresh's token before the refresh token is looked up
        (``refresh_succeeded`` gives it back), as ``begin_login`` does."""
        if not await self.limits.refreshes.take(limit_key(address)):
            raise ResourceExhausted(
                "too many refused refresh tokens from your address: wait a minute before "
                "trying again, or log in"
            )

    async def refresh_succeeded(self, address: str) -> None:
        await self.limits.refreshes.give_back(limit_key(address))

    async def take_registration(self, address: str) -> None:
        if not await self.limits.registrations.take(limit_key(address)):
            raise ResourceExhausted(
                "too many new accounts from your address: wait a minute before registering again"
            )

    async def check(self, metadata: Any) -> Claims:
        """The caller's claims, if their token is valid and not revoked; no call is
        counted. For a session stream asking again whether its token still holds (a
        logout announced, NATS back): found in review, that spent one of the player's
        calls, and a player at their limit then had the stream end RESOURCE_EXHAUSTED
        instead of with its SessionClosed."""
        # The scheme's name is case-insensitive (RFC 9110 11.1): found in review,
        # "bearer <token>" was refused.
        scheme, _, token = _authorization(metadata).partition(" ")
        if scheme.lower() != "bearer":
            raise Unauthenticated("send your access token as 'authorization: Bearer <token>'")
        claims = self.tokens.verify(token.strip(), self.clock())
        if await self.revocations.refuses(claims):
            raise Unauthenticated("the access token was revoked: log in again")
        return claims

    async def authenticate(self, metadata: Any) -> Claims:
        """``check``, and the call counted against the player's rate."""
        claims = await self.check(metadata)
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
