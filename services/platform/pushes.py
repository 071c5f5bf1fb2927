"""Player updates over NATS: what a service has to tell one player travels on that
player's subject, and whichever gateway replica holds the player's session hears it.

Subjects
    ``triad.player.<player_id>.<field>``, where ``field`` is the name of the session
    push it becomes (``OpenSessionResponse.push``: ``match_view``, ``queue_status``,
    ``trade_prompt``, ``trade_result``, ``balance``, ``draft``, ``rating_change``,
    ``notice``, ...) and the payload is that field's message, serialised. A gateway
    subscribes ``triad.player.<player_id>.>`` for each session it holds, so a session
    costs one subscription and no internal stream, and an idle one costs nothing.

Core NATS, not JetStream
    A push is a hint that something changed, not the record of it: the record is the
    service's database. Pushes are published after the change commits, at most once;
    what a lost push would have shown is shown again by the next one (match views carry
    their version, the session drops older ones), and a session re-reads the player's
    whole state when it opens and when the gateway's NATS connection comes back, so a
    reconnect gets the current view and every pending prompt. A service that restarts
    publishes what its players may have missed (the match service: the views of the
    matches in progress).

Without NATS (``TRIAD_NATS_URL`` unset, local tests), ``Pushes(None)`` drops what it is
given: sessions then show the state read at their opening and heartbeats.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import structlog
from google.protobuf.message import Message
from prometheus_client import REGISTRY, CollectorRegistry, Counter

from services.platform.settings import Settings

if TYPE_CHECKING:
    from nats.aio.client import Client

log = structlog.get_logger()

PREFIX = "triad.player"
_NOT_IN_TOKEN = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class PushMetrics:
    """What a process published to its players, in the registry its /metrics serves."""

    sent: Counter

    @classmethod
    def register(cls, registry: CollectorRegistry) -> PushMetrics:
        return cls(
            sent=Counter(
                "triad_player_pushes_total",
                "Player updates published on the players' NATS subjects, by push field and "
                "outcome.",
                ["field", "outcome"],
                registry=registry,
            )
        )

    @classmethod
    def of(cls, registry: CollectorRegistry) -> PushMetrics:
        """The push metrics of ``registry``, registered on first use: a process makes
        several publishers (the gateway one per NATS connection) and they share them."""
        metrics = _BY_REGISTRY.get(registry)
        if metrics is None:
            metrics = _BY_REGISTRY[registry] = cls.register(registry)
        return metrics


_BY_REGISTRY: weakref.WeakKeyDictionary[CollectorRegistry, PushMetrics] = (
    weakref.WeakKeyDictionary()
)


def player_token(player_id: str) -> str:
    """The player id as one subject token (ids are UUIDs; anything else is replaced)."""
    return _NOT_IN_TOKEN.sub("_", player_id) or "_"


def player_prefix(shared: Settings) -> str:
    """The deployment's player subjects: ``triad.player``, or ``triad.ns.<ns>.player`` in
    a namespace (``Settings.namespace``)."""
    return f"triad.ns.{shared.namespace}.player" if shared.namespace else PREFIX


def subject(player_id: str, push: str, prefix: str = PREFIX) -> str:
    """Where ``push`` (a session push field) for ``player_id`` is published."""
    return f"{prefix}.{player_token(player_id)}.{push}"


def player_filter(player_id: str, prefix: str = PREFIX) -> str:
    """Every push for ``player_id``: what a session subscribes."""
    return f"{prefix}.{player_token(player_id)}.>"


def push_field(subject_name: str) -> str:
    """The push field a subject carries (its last token)."""
    return subject_name.rsplit(".", 1)[-1]


class PlayerPushes(Protocol):
    """The port a service's use cases tell players through (tests record them)."""

    async def send(self, player_id: str, push: str, message: Message) -> None: ...


class Pushes:
    """Publishes player updates on NATS; with no client (yet), drops them (counted).

    A service serves whether NATS is up or not: ``connect`` runs in the background and
    the pushes start once it is connected (``connected`` is set then)."""

    def __init__(
        self,
        client: Client | None,
        prefix: str = PREFIX,
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        """``registry`` is the one the process serves on /metrics: the services that make
        their own (``metrics.new_registry``) pass it; the others serve the default one."""
        self._client = client
        self.prefix = prefix
        self._sent = PushMetrics.of(registry).sent
        self._hooks: list[Callable[[], Awaitable[None]]] = []
        self._running: set[asyncio.Future[None]] = set()

    def when_connected(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run ``hook`` each time the connection is made or made again: what was sent
        while there was none was dropped, and the hook publishes it again (the match
        service: the views of the matches in progress)."""
        self._hooks.append(hook)
        if self._client is not None and self._client.is_connected:
            self._start(hook)  # connected already: what the hook repairs may be lost

    async def connect(self, servers: list[str], name: str) -> None:
        """Connect (waiting for NATS as long as it takes), then publish from then on.

        NATS's client (and aiohttp under it) is loaded here, by a process that connects:
        the presenters naming ``PlayerPushes``, and the terminal tests' stand-ins that
        build views with them, need none of it (a third of a second per process)."""
        from services.platform import bus

        async def reconnected() -> None:
            log.info("nats.reconnected", name=name)
            self._run_hooks()

        self._client = await bus.connect(servers, name=name, reconnected_cb=reconnected)
        self._run_hooks()

    async def close(self) -> None:
        for running in self._running:
            running.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        if self._client is not None:
            await self._client.close()

    def _run_hooks(self) -> None:
        for hook in self._hooks:
            self._start(hook)

    def _start(self, hook: Callable[[], Awaitable[None]]) -> None:
        running = asyncio.ensure_future(hook())
        self._running.add(running)
        running.add_done_callback(self._running.discard)

    async def send(self, player_id: str, push: str, message: Message) -> None:
        if self._client is None or self._client.is_closed:
            self._sent.labels(push, "dropped").inc()
            return
        try:
            raw = message.SerializeToString()
            await self._client.publish(subject(player_id, push, self.prefix), raw)
        except Exception as error:  # a push is a hint: the next one or a reconnect repairs
            self._sent.labels(push, "failed").inc()
            log.warning("push.failed", player_id=player_id, push=push, error=repr(error))
            return
        self._sent.labels(push, "sent").inc()

    async def send_all(self, pushes: Iterable[tuple[str, str, Message]]) -> None:
        for player_id, push, message in pushes:
            await self.send(player_id, push, message)


@dataclass
class RecordedPushes:
    """A ``PlayerPushes`` that keeps what it was given, for handler tests."""

    sent: list[tuple[str, str, Message]] = field(default_factory=list)

    async def send(self, player_id: str, push: str, message: Message) -> None:
        self.sent.append((player_id, push, message))

    def of(self, player_id: str, push: str | None = None) -> list[Message]:
        return [m for p, f, m in self.sent if p == player_id and (push is None or f == push)]
