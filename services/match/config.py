"""The match service's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.platform.settings import ServiceSettings, basics, number, optional

COMMIT_LINGER_SECONDS = 0.004
"""Under concurrency, how long a command may wait for others to share its group commit
(``GroupCommit``'s ``linger``, counted from its arrival). 4 ms on a move is nothing to a
player (their round trip is 20-100 ms) and halves what a move costs the database under
load."""


@dataclass(frozen=True, slots=True)
class MatchSettings(ServiceSettings):
    schema: str
    turn_seconds: float
    disconnect_seconds: float
    timer_late_seconds: float
    """A timer found this much later than due restarts the match's clocks (the server
    could not act meanwhile) instead of charging a missed turn or a forfeit."""
    timer_poll_seconds: float
    """The longest an idle timer loop sleeps before it looks again: a timer another
    replica wrote is found then (one set by this process wakes its loops at once)."""
    admin_token: str | None
    bot_seconds: float
    """A bot's thinking budget per move (issue 8: 1 s), capped to half the turn timer."""
    bot_workers: int
    """Worker processes for bot searches; as many timer loops plus one run meanwhile."""
    commit_linger_seconds: float
    """``COMMIT_LINGER_SECONDS`` unless set; 0 writes each batch as soon as the one before
    it is done."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> MatchSettings:
        env = os.environ if environ is None else environ
        return cls(
            **basics(env, "match"),
            schema=optional(env, "TRIAD_MATCH_SCHEMA") or "match",
            turn_seconds=number(env, "TRIAD_TURN_SECONDS", 60.0, minimum=0.05),
            disconnect_seconds=number(env, "TRIAD_DISCONNECT_SECONDS", 120.0, minimum=0.05),
            timer_late_seconds=number(env, "TRIAD_TIMER_LATE_SECONDS", 10.0, minimum=0.001),
            timer_poll_seconds=number(env, "TRIAD_TIMER_POLL_SECONDS", 1.0, minimum=0.001),
            admin_token=optional(env, "TRIAD_ADMIN_TOKEN"),
            bot_seconds=number(env, "TRIAD_BOT_SECONDS", 1.0, minimum=0.01),
            bot_workers=int(number(env, "TRIAD_BOT_WORKERS", 1.0, minimum=1.0)),
            commit_linger_seconds=number(
                env,
                "TRIAD_MATCH_COMMIT_LINGER_SECONDS",
                COMMIT_LINGER_SECONDS,
                minimum=0.0,
            ),
        )
