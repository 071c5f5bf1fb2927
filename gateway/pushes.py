"""The gateway's end of the players' push subjects (``services.platform.pushes``): one
NATS subscription per session this replica holds, delivering the player's updates into
the session's queue; and the gateway's own announcements on those subjects (a session
opened, a logout), which every replica holding a session of that player hears.

A session holds no internal gRPC stream and polls nothing: between pushes it waits. When
the NATS connection comes back after a break, pushes may have been missed, so every
session is told to read the player's state again (``RESYNC``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import structlog
from google.protobuf.message import Message
from nats.aio.client import Client
from nats.aio.msg import Msg
from triad.v1 import gateway_pb2 as g

from services.platform import bus
from services.platform.pushes import Pushes, player_filter, push_field

log = structlog.get_logger()

RESYNC = "resync"
"""A push of this gateway's own: read the player's state again (pushes may be lost)."""

SESSION_OPENED = "session_opened"
"""Announced when a session opens: an older session of the player closes (replaced)."""

SESSION_CLOSED = "session_closed"
"""Announced at a logout: sessions whose token it revoked close."""


def _push_types() -> dict[str, type[Message]]:
    """The message class of every session push field, by field name."""
    sample = g.OpenSessionResponse()
    types: dict[str, type[Message]] = {}
    for descriptor in g.OpenSessionResponse.DESCRIPTOR.oneofs_by_name["push"].fields:
        types[descriptor.name] = type(getattr(sample, descriptor.name))
    return types


_PUSH_TYPES = _push_types()


@dataclass(frozen=True, slots=True)
class Push:
    """A session push: the field of ``OpenSessionResponse.push`` and its message (None
    for ``RESYNC``)."""

    field: str
    message: Message | None


class PushHub:
    """Subscribes sessions to their player's subject on this gateway's NATS connection
    (none: sessions get only what they read themselves)."""

    def __init__(self, client: Client | None) -> None:
        self._client = client
        self._inboxes: set[asyncio.Queue[Push]] = set()
        self.publish = Pushes(client)
        """The gateway's own announcements (session opened, logout)."""

    @property
    def live(self) -> bool:
        return self._client is not None

    @classmethod
    async def connect(cls, servers: list[str], name: str) -> PushHub:
        """A hub on a NATS connection of its own; sessions resync when it reconnects."""
        hub = cls(None)

        async def reconnected() -> None:
            log.info("nats.reconnected", name=name)
            hub.resync_all()

        hub._client = await bus.connect(servers, name=name, reconnected_cb=reconnected)
        hub.publish = Pushes(hub._client)
        return hub

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    def resync_all(self) -> None:
        log.info("pushes.resync", sessions=len(self._inboxes))
        for inbox in self._inboxes:
            inbox.put_nowait(Push(RESYNC, None))

    @contextlib.asynccontextmanager
    async def listen(self, player_id: str, inbox: asyncio.Queue[Push]) -> AsyncIterator[None]:
        """Deliver ``player_id``'s pushes into ``inbox`` while the block runs."""
        if self._client is None:
            yield
            return

        async def deliver(msg: Msg) -> None:
            field = push_field(msg.subject)
            kind = _PUSH_TYPES.get(field)
            if kind is None:
                log.warning("push.unknown_field", subject=msg.subject)
                return
            try:
                message = kind.FromString(msg.data)
            except Exception as error:  # a malformed publish must not end the session
                log.warning("push.unreadable", subject=msg.subject, error=repr(error))
                return
            inbox.put_nowait(Push(field, message))

        subscription: Any = await self._client.subscribe(player_filter(player_id), cb=deliver)
        self._inboxes.add(inbox)
        try:
            yield
        finally:
            self._inboxes.discard(inbox)
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()
