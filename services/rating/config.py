"""The rating service's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.platform.settings import ServiceSettings, basics, number, optional, whole


@dataclass(frozen=True, slots=True)
class RatingSettings(ServiceSettings):
    nats_servers: tuple[str, ...]
    schema: str
    season: int
    """The current season: the newest readable one, and the one a rated match that
    names no ladder counts for. Opening a season is changing this; older ones stay."""
    consumer: str
    """The JetStream durable name; replicas share it and split the events between them."""
    ack_wait_seconds: float
    workers: int
    """Pull loops on the durable consumer in this process. 1 applies events in stream
    order; more apply several at once (a backlog drains faster), each from the ratings
    at the time it is applied, as with several replicas."""
    """How long JetStream waits for an ack before handing an event out again: after a
    crash, the events the dead process held come back after this long."""

    @property
    def draft_consumer(self) -> str:
        """The durable name of the consumer of DraftForfeited: ``<consumer>-drafts``."""
        return f"{self.consumer}-drafts"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RatingSettings:
        env = os.environ if environ is None else environ
        common = basics(env, "rating")
        return cls(
            **common,
            nats_servers=tuple(common["shared"].nats_servers),
            schema=optional(env, "TRIAD_RATING_SCHEMA") or "rating",
            season=whole(env, "TRIAD_RATING_SEASON", 0),
            consumer=optional(env, "TRIAD_RATING_CONSUMER") or "rating",
            ack_wait_seconds=number(env, "TRIAD_RATING_ACK_WAIT_SECONDS", 10.0, minimum=0.5),
            workers=whole(env, "TRIAD_RATING_WORKERS", 1, minimum=1),
        )
