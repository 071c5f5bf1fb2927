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
from services.platform.pushes import PREFIX, Pushes, player_filter, push_field

log = structlog.get_logger()

RESYNC = "resync"
"""A push of this gateway's own: read the player's state again (pushes may be lost)."""

SHUTDOWN = "shutdown"
"""A push of this gateway's own: it is stopping; the session ends, telling the client."""

SESSION_OPENED = "session_opened"
"""Announced when a session opens: an older session of the player closes (replaced)."""

SESSION_CLOSED = "session_closed"
"""Announced at a logout: sessions whose token it revoked close."""

ANSWERED = "answered_view"
"""A push of this gateway's own: the placer's view that a PlaceCard naming this session
answered with (and the match service therefore did not publish): the session shows what
it tells but does not send the view again."""


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


class Inbox:
    """A session's pushes not yet shown, oldest first.

    An ``asyncio.Queue`` would do, but it holds four deques, about 3.3 kB, and a
    gateway holds one inbox per connected player: this one is a list and, while its
    session waits, one future (about 0.2 kB idle)."""

    __slots__ = ("_pushes", "_waiter")

    def __init__(self) -> None:
        self._pushes: list[Push] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, push: Push) -> None:
        self._pushes.append(push)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def get(self) -> Push:
        """The oldest push, waiting for one when there is none (one waiter at a time)."""
        while not self._pushes:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._pushes.pop(0)


@dataclass(slots=True)
class _Listener:
    player_id: str
    inbox: Inbox
    session_id: str = ""
    subscription: Any = None
    subscribing: bool = False


class PushHub:
    """Subscribes sessions to their player's subject on this gateway's NATS connection.

    The gateway serves whether NATS is up or not: ``connect`` runs in the background;
    sessions opened before it is connected are subscribed once it is, and read the
    player's state again then (``RESYNC``). Without NATS at all (``PushHub(None)``, not
    connected) sessions get only what they read themselves."""

    def __init__(self, client: Client | None, prefix: str = PREFIX) -> None:
        self._client = client
        self.prefix = prefix
        """The deployment's player subjects (``pushes.player_prefix``)."""
        self._listeners: dict[int, _Listener] = {}
        self._sessions: dict[str, _Listener] = {}
        """The listeners of sessions held here, by session id."""
        self.publish = Pushes(client, prefix)
        """The gateway's own announcements (session opened, logout)."""

    @property
    def live(self) -> bool:
        """Whether announcements reach the sessions now (connected to NATS, not merely
        configured: while it is away, sessions look at the tables themselves)."""
        return self._client is not None and self._client.is_connected

    async def connect(self, servers: list[str], name: str) -> None:
        """Connect (waiting for NATS as long as it takes); sessions resync on every
        reconnection, since pushes may have been lost meanwhile."""

        async def reconnected() -> None:
            log.info("nats.reconnected", name=name)
            self.resync_all()

        client = await bus.connect(servers, name=name, reconnected_cb=reconnected)
        self._client = client
        self.publish = Pushes(client, self.prefix)
        for listener in list(self._listeners.values()):
            await self._subscribe(listener)
            listener.inbox.put_nowait(Push(RESYNC, None))

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    def shut_down(self) -> None:
        """Tell every session here that the gateway stops (SIGTERM): each ends with
        SERVER_SHUTDOWN, so clients reconnect at once (to another replica)."""
        for listener in self._listeners.values():
            listener.inbox.put_nowait(Push(SHUTDOWN, None))

    def resync_all(self) -> None:
        log.info("pushes.resync", sessions=len(self._listeners))
        for listener in self._listeners.values():
            listener.inbox.put_nowait(Push(RESYNC, None))

    def holds(self, player_id: str, session_id: str) -> bool:
        """Whether ``session_id`` is a session of ``player_id`` held here."""
        listener = self._sessions.get(session_id) if session_id else None
        return listener is not None and listener.player_id == player_id

    def tell(self, session_id: str, push: Push) -> None:
        """``push`` into the inbox of ``session_id``, if it is still held here."""
        if (listener := self._sessions.get(session_id)) is not None:
            listener.inbox.put_nowait(push)

    @contextlib.asynccontextmanager
    async def listen(
        self, player_id: str, inbox: Inbox, session_id: str = ""
    ) -> AsyncIterator[None]:
        """Deliver ``player_id``'s pushes into ``inbox`` while the block runs (and this
        gateway's own for ``session_id``: ``tell``)."""
        listener = _Listener(player_id, inbox, session_id)
        self._listeners[id(listener)] = listener
        if session_id:
            self._sessions[session_id] = listener
        try:
            await self._subscribe(listener)
            yield
        finally:
            del self._listeners[id(listener)]
            self._sessions.pop(session_id, None)
            if listener.subscription is not None:
                with contextlib.suppress(Exception):
                    await listener.subscription.unsubscribe()

    async def _subscribe(self, listener: _Listener) -> None:
        if self._client is None or listener.subscribing:
            return
        listener.subscribing = True
        inbox = listener.inbox

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

        listener.subscription = await self._client.subscribe(
            player_filter(listener.player_id, self.prefix), cb=deliver
        )
        if id(listener) not in self._listeners:  # the session ended meanwhile
            with contextlib.suppress(Exception):
                await listener.subscription.unsubscribe()
