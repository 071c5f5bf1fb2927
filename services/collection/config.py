"""The collection service's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.platform.settings import PREFIX, Settings, SettingsError, number, optional, port


@dataclass(frozen=True, slots=True)
class CollectionSettings:
    database_url: str
    nats_url: str | None
    host: str
    port: int
    metrics_port: int
    schema: str
    trade_choice_seconds: float
    draft_pick_seconds: float
    draft_inactivity_seconds: float
    timer_poll_seconds: float
    admin_token: str | None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> CollectionSettings:
        env = os.environ if environ is None else environ
        shared = Settings.from_env(env)
        if shared.database_url is None:
            raise SettingsError(
                "TRIAD_DATABASE_URL is required by triad-collection (make run starts an "
                "embedded PostgreSQL and sets it for every service)"
            )
        return cls(
            database_url=shared.database_url,
            nats_url=shared.nats_url,
            host=optional(env, PREFIX + "COLLECTION_HOST") or "127.0.0.1",
            port=port(env, PREFIX + "COLLECTION_PORT", 50063),
            metrics_port=port(env, PREFIX + "COLLECTION_METRICS_PORT", 9163),
            schema=optional(env, PREFIX + "COLLECTION_SCHEMA") or "collection",
            trade_choice_seconds=number(env, PREFIX + "TRADE_CHOICE_SECONDS", 120.0, 0.05),
            draft_pick_seconds=number(env, PREFIX + "DRAFT_PICK_SECONDS", 180.0, 0.05),
            draft_inactivity_seconds=number(env, PREFIX + "DRAFT_INACTIVITY_SECONDS", 120.0, 0.05),
            timer_poll_seconds=number(env, PREFIX + "TIMER_POLL_SECONDS", 0.05, minimum=0.001),
            admin_token=optional(env, PREFIX + "ADMIN_TOKEN"),
        )
