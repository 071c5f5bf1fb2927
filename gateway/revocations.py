"""Revoked access tokens as one gateway replica knows them: the store's answer for each
token id, cached, and the revocations the replicas push to each other.

A logout revokes in the gateway's tables (``GatewayStore.revoke``); then the replica
that served it publishes the revocation on :data:`SUBJECT` (core NATS), which every
replica subscribes to and applies to its cache at once (``RevocationFeed``). So the
cached "not revoked" answer can live long, :data:`PUSHED_SECONDS` (60 s): it is only a
safety net for a lost push (the publisher lost NATS between its commit and its publish,
or NATS dropped the message), and a revocation whose push was lost is honoured
everywhere within a minute.

While this replica hears no pushes (no NATS configured, or NATS away) the answer is
read again every :data:`POLLED_SECONDS` (2 s), as before pushes. When the subscription
is made again after a break, every cached answer is dropped: pushes may have been
missed meanwhile.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg

from gateway.accounts import Claims
from gateway.store import Revocation
from services.platform import bus

log = structlog.get_logger()

SUBJECT = "triad.gateway.revocations"


def revocation_subject(namespace: str) -> str:
    """:data:`SUBJECT`, or ``triad.ns.<ns>.gateway.revocations`` in a NATS namespace
    (``Settings.namespace``)."""
    return f"triad.ns.{namespace}.gateway.revocations" if namespace else SUBJECT


"""Where every gateway replica publishes its logouts and hears the others'."""
PUSHED_SECONDS = 60.0
"""How long a cached answer is used while revocations come by push (a lost push's bound)."""
POLLED_SECONDS = 2.0
"""How long a cached answer is used while they do not (no NATS, or NATS away)."""
CAPACITY = 100_000
"""Cached answers per replica (tokens used in the last minute), and pushed logouts."""


@dataclass(frozen=True, slots=True)
class Revoked:
    """One logout: the token ``jti`` of ``player_id`` is revoked, and with ``before``
    (a logout everywhere) every token of the player issued up to that time."""

    player_id: str
    jti: str
    before: datetime | None = None

    def encode(self) -> bytes:
        before = None if self.before is None else self.before.isoformat()
        return json.dumps(
            {"player_id": self.player_id, "jti": self.jti, "before": before},
            separators=(",", ":"),
        ).encode()

    @classmethod
    def decode(cls, data: bytes) -> Revoked:
        raw = json.loads(data)
        before = raw.get("before")
        return cls(
            str(raw["player_id"]),
            str(raw["jti"]),
            None if before is None else datetime.fromisoformat(before),
        )


class RevocationReads(Protocol):
    """Where the revocations are recorded (``GatewayStore``)."""

    async def revocation(self, player_id: str, jti: str) -> Revocation: ...


@dataclass(frozen=True, slots=True)
class _Answer:
    at: float
    """``clock()`` when the store was asked (or the push arrived)."""
    revocation: Revocation


class Revocations:
    """Whether a token is revoked, asked of the store at most once per token per
    :attr:`fresh_for` seconds, and told at once of the revocations pushed here.

    ``pushed`` is set by the feed while its subscription is live. A logout everywhere
    pushed here is kept for :data:`PUSHED_SECONDS` after it arrives: by then every
    cached answer was read after it committed, so it knows it.
    """

    def __init__(
        self,
        store: RevocationReads,
        clock: Callable[[], float] = time.monotonic,
        capacity: int = CAPACITY,
    ) -> None:
        self.store, self.clock, self.capacity = store, clock, capacity
        self.pushed = False
        self._answers: OrderedDict[str, _Answer] = OrderedDict()
        """By token id, oldest first."""
        self._before: OrderedDict[str, tuple[float, datetime]] = OrderedDict()
        """Pushed logouts everywhere by player: when each arrived, and its time."""
        self._applied = 0
        """Pushes applied: a store read that a push overtook is not cached."""

    @property
    def fresh_for(self) -> float:
        return PUSHED_SECONDS if self.pushed else POLLED_SECONDS

    def __len__(self) -> int:
        return len(self._answers)

    async def refuses(self, claims: Claims) -> bool:
        """Whether the token of ``claims`` is revoked."""
        now = self.clock()
        answer = self._answers.get(claims.jti)
        if answer is None or now - answer.at >= self.fresh_for:
            applied = self._applied
            revocation = await self.store.revocation(claims.player_id, claims.jti)
            if applied == self._applied:
                self._keep(claims.jti, _Answer(now, revocation), now)
        else:
            revocation = answer.revocation
        if revocation.refuses(claims.issued_at):
            return True
        pushed = self._before.get(claims.player_id)
        return pushed is not None and claims.issued_at <= pushed[1]

    def apply(self, revoked: Revoked) -> None:
        """A revocation (this replica's own or pushed by another): refused from now on."""
        now = self.clock()
        self._applied += 1
        self._keep(revoked.jti, _Answer(now, Revocation(True, revoked.before)), now)
        if revoked.before is not None:
            self._before.pop(revoked.player_id, None)
            self._before[revoked.player_id] = (now, revoked.before)
            while now - next(iter(self._before.values()))[0] >= PUSHED_SECONDS:
                self._before.popitem(last=False)
            if len(self._before) > self.capacity:
                self._before.popitem(last=False)
                self._answers.clear()  # dropped before its time: a cached answer may not know it

    def forget(self, jti: str) -> None:
        """Ask the store again the next time ``jti`` is presented."""
        self._answers.pop(jti, None)

    def clear(self) -> None:
        """Ask the store again for every token (pushes may have been missed)."""
        self._answers.clear()

    def _keep(self, jti: str, answer: _Answer, now: float) -> None:
        kept = self._answers
        kept.pop(jti, None)
        while kept:
            oldest = next(iter(kept.values()))
            if len(kept) < self.capacity and now - oldest.at < PUSHED_SECONDS:
                break
            kept.popitem(last=False)
        kept[jti] = answer


class RevocationFeed:
    """This replica's end of :data:`SUBJECT`: every revocation published there (its own
    included) is applied to ``revocations``, and ``publish`` sends this replica's.

    ``connect`` runs in the background and waits for NATS as long as it takes; until
    then, and whenever NATS is away, ``revocations`` are read every 2 s, and a
    revocation published meanwhile is buffered by the client or dropped (the others
    then honour it within :data:`PUSHED_SECONDS`)."""

    def __init__(self, revocations: Revocations, subject: str = SUBJECT) -> None:
        self.revocations, self.subject = revocations, subject
        self._client: Client | None = None

    async def connect(self, servers: list[str], name: str) -> None:
        revocations = self.revocations

        async def disconnected() -> None:
            log.warning("revocations.disconnected")
            revocations.pushed = False

        async def reconnected() -> None:
            log.info("revocations.reconnected")
            revocations.clear()
            revocations.pushed = True

        client = await bus.connect(
            servers, name=name, disconnected_cb=disconnected, reconnected_cb=reconnected
        )
        self._client = client
        await client.subscribe(self.subject, cb=self._heard)
        await client.flush()  # subscribed at the server: from now on nothing is missed
        revocations.clear()
        revocations.pushed = True

    async def _heard(self, msg: Msg) -> None:
        try:
            revoked = Revoked.decode(msg.data)
        except Exception as error:  # a malformed publish must not stop the feed
            log.warning("revocations.unreadable", error=repr(error))
            return
        self.revocations.apply(revoked)

    async def publish(self, revoked: Revoked) -> None:
        """Tell every replica (this one hears it too; applying it twice is harmless)."""
        if self._client is None or self._client.is_closed:
            log.warning("revocations.not_published", jti=revoked.jti)
            return
        try:
            await self._client.publish(self.subject, revoked.encode())
        except Exception as error:  # the others honour it at their next store read
            log.warning("revocations.publish_failed", jti=revoked.jti, error=repr(error))

    async def close(self) -> None:
        self.revocations.pushed = False
        if self._client is not None:
            await self._client.close()
