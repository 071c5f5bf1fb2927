"""The battle service's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.platform.settings import ServiceSettings, SettingsError, basics, number, optional

LEVELS = ("random", "greedy", "search")
COMMIT_LINGER_SECONDS = 0.0


@dataclass(frozen=True, slots=True)
class BattleSettings(ServiceSettings):
    schema: str
    formation_seconds: float
    """BATTLE.md 2: 30 s to place the characters, then the default formation."""
    selection_seconds: float
    """BATTLE.md 4.2: 60 s to commit a plan, then the plan set (SetPlan; none if none)."""
    disconnect_seconds: float
    """BATTLE.md 5: 30 s without a session stream, then the CPU takes the seat over."""
    takeover_level: str
    """The CPU level that plays a disconnected player's seat."""
    timer_poll_seconds: float
    admin_token: str | None
    """The operators' bearer token (``GetBattleEvents``, ``triad-admin battle show``);
    unset: operator calls are refused."""
    commit_linger_seconds: float = 0.0
    """The group commit's ``linger`` (``services.platform.groupcommit``): how long a save
    made among others waits for more to share its transaction; 0 writes each batch as
    soon as the one before it is done."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> BattleSettings:
        env = os.environ if environ is None else environ
        level = optional(env, "TRIAD_BATTLE_TAKEOVER_LEVEL") or "greedy"
        if level not in LEVELS:
            raise SettingsError(
                f"TRIAD_BATTLE_TAKEOVER_LEVEL must be one of {', '.join(LEVELS)}, not {level!r}"
            )
        return cls(
            **basics(env, "battle"),
            schema=optional(env, "TRIAD_BATTLE_SCHEMA") or "battle",
            formation_seconds=number(env, "TRIAD_BATTLE_FORMATION_SECONDS", 30.0, minimum=0.05),
            selection_seconds=number(env, "TRIAD_BATTLE_SELECTION_SECONDS", 60.0, minimum=0.05),
            disconnect_seconds=number(env, "TRIAD_BATTLE_DISCONNECT_SECONDS", 30.0, minimum=0.05),
            takeover_level=level,
            timer_poll_seconds=number(env, "TRIAD_TIMER_POLL_SECONDS", 1.0, minimum=0.001),
            admin_token=optional(env, "TRIAD_ADMIN_TOKEN"),
            commit_linger_seconds=number(
                env, "TRIAD_BATTLE_COMMIT_LINGER_SECONDS", COMMIT_LINGER_SECONDS, minimum=0.0
            ),
        )
