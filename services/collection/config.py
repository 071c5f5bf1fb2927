"""The collection service's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.collection.domain.wealth import PAIR_REWARDED_MATCHES_PER_DAY
from services.platform.settings import ServiceSettings, basics, number, optional, whole


@dataclass(frozen=True, slots=True)
class CollectionSettings(ServiceSettings):
    schema: str
    trade_choice_seconds: float
    draft_pick_seconds: float
    draft_inactivity_seconds: float
    timer_poll_seconds: float
    """The longest an idle deadline loop (trade choices, drafts) sleeps before it looks
    again: a deadline another replica wrote is found then (one written by this process
    wakes its loop at once)."""
    admin_token: str | None
    reward_matches_per_pair_per_day: int
    """How many matches two players are paid for against each other per UTC day
    (domain.match_reward); 0 pays no match between two humans."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> CollectionSettings:
        env = os.environ if environ is None else environ
        return cls(
            **basics(env, "collection"),
            schema=optional(env, "TRIAD_COLLECTION_SCHEMA") or "collection",
            trade_choice_seconds=number(env, "TRIAD_TRADE_CHOICE_SECONDS", 120.0, 0.05),
            draft_pick_seconds=number(env, "TRIAD_DRAFT_PICK_SECONDS", 180.0, 0.05),
            draft_inactivity_seconds=number(env, "TRIAD_DRAFT_INACTIVITY_SECONDS", 120.0, 0.05),
            timer_poll_seconds=number(env, "TRIAD_TIMER_POLL_SECONDS", 1.0, minimum=0.001),
            admin_token=optional(env, "TRIAD_ADMIN_TOKEN"),
            reward_matches_per_pair_per_day=whole(
                env,
                "TRIAD_REWARD_MATCHES_PER_PAIR_PER_DAY",
                PAIR_REWARDED_MATCHES_PER_DAY,
            ),
        )
