"""The matchmaker's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.matchmaker.domain import BotLevel, WindowPolicy
from services.matchmaker.handlers import Config
from services.platform.endpoints import default_address
from services.platform.settings import ServiceSettings, SettingsError, basics, number, optional

MM = "TRIAD_MATCHMAKER_"


@dataclass(frozen=True, slots=True)
class MatchmakerSettings(ServiceSettings):
    schema: str
    match_addr: str
    collection_addr: str | None
    rating_addr: str | None
    battle_addr: str | None
    call_timeout_seconds: float
    timer_poll_seconds: float
    """The longest an idle loop (pairing with no ticket waiting, lease take-overs, table
    expiry) sleeps before it looks again: work another replica wrote is found then (work
    written by this process wakes its loop at once)."""
    watch_heartbeat_seconds: float
    consumer: str
    """Durable name of the JetStream consumer of DraftCompleted."""
    config: Config

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> MatchmakerSettings:
        env = os.environ if environ is None else environ
        level = optional(env, MM + "BOT_LEVEL") or BotLevel.NORMAL.value
        if level not in {b.value for b in BotLevel}:
            raise SettingsError(
                f"{MM}BOT_LEVEL must be one of novice, easy, normal, hard; got {level!r}"
            )
        try:
            policy = WindowPolicy(
                start=int(number(env, MM + "WINDOW_START", 50)),
                step=int(number(env, MM + "WINDOW_STEP", 25)),
                step_seconds=number(env, MM + "WINDOW_STEP_SECONDS", 5.0, minimum=0.001),
                cap=int(number(env, MM + "WINDOW_CAP", 300)),
            )
        except ValueError as error:
            raise SettingsError(f"{MM}WINDOW_*: {error}") from None
        lease = number(env, MM + "LEASE_SECONDS", 10.0, minimum=0.1)
        timeout = number(env, MM + "CALL_TIMEOUT_SECONDS", 2.0, minimum=0.05)
        if timeout * 4 > lease:
            # A start makes up to three rounds of calls; a lease must outlast them, or
            # another replica would take the start over from one still working on it.
            raise SettingsError(f"{MM}LEASE_SECONDS must be at least 4 x the call timeout")
        return cls(
            **basics(env, "matchmaker"),
            schema=optional(env, MM + "SCHEMA") or "matchmaker",
            match_addr=optional(env, "TRIAD_MATCH_ADDR") or default_address("match"),
            collection_addr=optional(env, "TRIAD_COLLECTION_ADDR"),
            rating_addr=optional(env, "TRIAD_RATING_ADDR"),
            battle_addr=optional(env, "TRIAD_BATTLE_ADDR"),
            call_timeout_seconds=timeout,
            timer_poll_seconds=number(env, "TRIAD_TIMER_POLL_SECONDS", 1.0, minimum=0.001),
            watch_heartbeat_seconds=number(env, MM + "WATCH_HEARTBEAT_SECONDS", 3.0, minimum=0.05),
            consumer=optional(env, MM + "CONSUMER") or "matchmaker-draft-completed",
            config=Config(
                policy=policy,
                bot_fill_seconds=number(env, MM + "BOT_FILL_SECONDS", 20.0),
                bot_level=BotLevel(level),
                table_ttl_seconds=number(env, MM + "TABLE_TTL_SECONDS", 600.0, minimum=1.0),
                lease_seconds=lease,
                pair_interval_seconds=number(env, MM + "PAIR_INTERVAL_SECONDS", 0.5, minimum=0.01),
            ),
        )
