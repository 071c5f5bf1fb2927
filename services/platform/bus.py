"""The event bus: a NATS connection that never gives up, and the JetStream stream of events.

Every event in the log is published once to one JetStream stream (``TRIAD_EVENTS`` by
default) on the subject ``<prefix>.<component>.<ShortType>``: ``triad.events.match.
CardPlaced`` for a ``triad.v1.CardPlaced`` in stream ``match-<uuid>``. A consumer filters
on what it needs (``triad.events.match.>``, ``triad.events.*.MatchFinished``).

The message body is the ``EventEnvelope`` (protobuf); headers repeat what a consumer
may want to route on without decoding it, and ``Nats-Msg-Id`` is the event id, so
JetStream drops a republished event within the stream's duplicate window.

Reconnecting: nats-py gives up after 60 attempts (about two minutes at its default
wait), after which the client is closed for good and every publish fails until the
process restarts. A relay or consumer must outlive any NATS outage, so ``connect``
retries forever (``max_reconnect_attempts=-1``), the first connection included.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from google.protobuf.timestamp_pb2 import Timestamp
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import StorageType, StreamConfig, StreamInfo
from nats.js.errors import BadRequestError
from triad.v1 import events_pb2

from services.platform.eventstore import Recorded
from services.platform.settings import Settings

log = structlog.get_logger()

MSG_ID = "Nats-Msg-Id"
STREAM_ID = "Triad-Stream-Id"
VERSION = "Triad-Version"
EVENT_TYPE = "Triad-Event-Type"

# What a subject token may not hold: '.', the wildcards, whitespace.
_NOT_IN_TOKEN = re.compile(r"[.*>\s]")
# JetStream's "stream name already in use with a different configuration".
_STREAM_NAME_IN_USE = 10058


@dataclass(frozen=True, slots=True)
class EventStream:
    """The JetStream stream events are published to, and how subjects are named in it.

    Tests give each their own name and prefix: one NATS server serves them all.
    """

    name: str = "TRIAD_EVENTS"
    prefix: str = "triad.events"
    replicas: int = 1  # 3 on a JetStream cluster
    duplicate_window: float = 120.0  # seconds during which a repeated Nats-Msg-Id is dropped
    max_age: float = 0.0  # seconds; 0 keeps events for ever (deployments: Settings.stream_max_age)
    namespace: str = ""
    """The deployment's NATS namespace the stream is of (``of``); empty: the plain one."""

    @classmethod
    def of(cls, shared: Settings) -> EventStream:
        """The deployment's stream: the plain one, or its namespace's own
        (``TRIAD_EVENTS_<NS>`` on ``triad.ns.<ns>.events.>``)."""
        ns = shared.namespace
        if not ns:
            return cls(replicas=shared.stream_replicas, max_age=shared.stream_max_age)
        return cls(
            "TRIAD_EVENTS_" + ns.upper(),
            f"triad.ns.{ns}.events",
            shared.stream_replicas,
            max_age=shared.stream_max_age,
            namespace=ns,
        )

    def subject(self, stream_id: str, event_type: str) -> str:
        """``<prefix>.<component>.<ShortType>``, e.g. ``triad.events.match.CardPlaced``."""
        return f"{self.prefix}.{_token(component(stream_id))}.{_token(short_type(event_type))}"

    def filter(self, component: str = "*", event_type: str = "*") -> str:
        """A subject filter for consumers; ``filter()`` is every event."""
        if component == "*" and event_type == "*":
            return f"{self.prefix}.>"
        return f"{self.prefix}.{component}.{event_type}"

    def config(self) -> StreamConfig:
        return StreamConfig(
            name=self.name,
            subjects=[f"{self.prefix}.>"],
            storage=StorageType.FILE,
            num_replicas=self.replicas,
            duplicate_window=self.duplicate_window,
            max_age=self.max_age,
        )


def component(stream_id: str) -> str:
    """The part of a stream id before the first '-': "match-<uuid>" -> "match"."""
    return stream_id.split("-", 1)[0]


def short_type(event_type: str) -> str:
    """The message name without its package: "triad.v1.CardPlaced" -> "CardPlaced"."""
    return event_type.rsplit(".", 1)[-1]


def _token(value: str) -> str:
    # Replaced, not refused: a raise here would stop the relay at that event forever.
    return _NOT_IN_TOKEN.sub("_", value) or "_"


DRAIN_TIMEOUT_SECONDS = 8
"""The longest a drain of a connection waits (nats-py's default is 30 s): a pod's stop is
its preStop sleep (5 s), the server's drain (10 s) and then NATS, within the 30 s grace
period (``tests/deploy`` holds the sum to the manifests)."""


async def connect(
    servers: str | Sequence[str],
    *,
    name: str = "triad",
    reconnect_time_wait: float = 1.0,
    ping_interval: int = 20,
    **options: Any,
) -> Client:
    """Connect to NATS and keep reconnecting forever, logging every change of state.

    While disconnected, publishes are buffered by the client (up to its pending size)
    and requests time out; callers treat that as "NATS is down" and retry later.
    ``ping_interval`` is shorter than nats-py's two minutes so a silently dead TCP
    connection (a partition, a vanished pod) is noticed in about a minute.
    """
    target = [servers] if isinstance(servers, str) else list(servers)

    async def on_error(error: Exception) -> None:
        log.warning("nats.error", error=repr(error))

    async def on_disconnected() -> None:
        # Closed on purpose (a service stopping) is no warning: found from outside, every
        # service warned "nats.disconnected" at each rollout's graceful stop.
        if client.is_closed:
            log.info("nats.disconnected", closing=True)
        else:
            log.warning("nats.disconnected")

    async def on_reconnected() -> None:
        log.info("nats.reconnected", server=_server(client))

    async def on_closed() -> None:
        log.info("nats.closed")

    client = Client()
    # nats-py types reconnect_time_wait as int but sleeps on it, so fractions work;
    # passing the options through a dict keeps that from mypy.
    settings: dict[str, Any] = {
        "name": name,
        "allow_reconnect": True,
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": reconnect_time_wait,
        "ping_interval": ping_interval,
        "drain_timeout": DRAIN_TIMEOUT_SECONDS,
        "error_cb": on_error,
        "disconnected_cb": on_disconnected,
        "reconnected_cb": on_reconnected,
        "closed_cb": on_closed,
        **options,
    }
    await client.connect(target, **settings)
    log.info("nats.connected", server=_server(client), name=name)
    return client


def _server(client: Client) -> str:
    url = client.connected_url
    return "" if url is None else url.netloc


async def ensure_stream(js: JetStreamContext, stream: EventStream) -> StreamInfo:
    """Create the stream, or bring an existing one to this configuration (idempotent).

    Several replicas may start at once: creating an identical stream is a no-op for
    JetStream, and one created with another configuration is updated in place.
    """
    config = stream.config()
    try:
        info = await js.add_stream(config)
    except BadRequestError as error:
        if error.err_code != _STREAM_NAME_IN_USE:
            raise
        info = await js.update_stream(config)
        log.info("nats.stream_updated", stream=stream.name)
    return info


def envelope(event: Recorded) -> events_pb2.EventEnvelope:
    """The published form of a stored event.

    ``global_position`` carries the event's ``seq``: unique, but the global order is
    ``(tx_id, seq)``, which is the order the relay publishes in, so a consumer follows
    the JetStream sequence rather than this number. Correlation and causation ids come
    from the event's metadata when the writer put them there.
    """
    record_time = Timestamp()
    record_time.FromDatetime(event.recorded_at)
    return events_pb2.EventEnvelope(
        event_id=str(event.event_id),
        stream_id=event.stream_id,
        version=event.version,
        global_position=event.position.seq,
        event_type=event.type,
        schema_version=event.schema_version,
        record_time=record_time,
        correlation_id=str(event.metadata.get("correlation_id", "")),
        causation_id=str(event.metadata.get("causation_id", "")),
        payload=event.data,
    )


def headers(event: Recorded) -> dict[str, str]:
    return {
        MSG_ID: str(event.event_id),
        STREAM_ID: event.stream_id,
        VERSION: str(event.version),
        EVENT_TYPE: event.type,
    }
