"""The battle service's Prometheus metrics (names are what the Battles dashboard and
the alerts use). Registered into the registry ``main()`` makes, never at import time."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge

from services.battle.domain import Decision
from services.battle.domain.events import (
    Created,
    Finished,
    FinishReason,
    PlanCommitted,
    SeatTakenOver,
)
from services.platform.metrics import zeroed


@dataclass(frozen=True, slots=True)
class BattleMetrics:
    created: Counter
    finished: Counter
    turns: Counter
    plans: Counter
    takeovers: Counter
    active: Gauge

    @classmethod
    def register(cls, registry: CollectorRegistry) -> BattleMetrics:
        return cls(
            created=zeroed(
                Counter(
                    "triad_battles_created_total",
                    "Skirmish battles created, by kind (practice against the CPU, or versus).",
                    ("kind",),
                    registry=registry,
                ),
                kind=("practice", "versus"),
            ),
            finished=zeroed(
                Counter(
                    "triad_battles_finished_total",
                    "Skirmish battles finished, by reason (wipeout, decision, give_up, "
                    "disconnect).",
                    ("reason",),
                    registry=registry,
                ),
                reason=[reason.value for reason in FinishReason],
            ),
            turns=Counter(
                "triad_battle_turns_resolved_total",
                "Battle turns resolved (each recorded once with its outcome).",
                registry=registry,
            ),
            plans=zeroed(
                Counter(
                    "triad_battle_plans_committed_total",
                    "Plans committed, by who committed them (player, cpu, deadline).",
                    ("by",),
                    registry=registry,
                ),
                by=("player", "cpu", "deadline"),
            ),
            takeovers=Counter(
                "triad_battle_takeovers_total",
                "Seats the CPU took over after their player was away 30 s.",
                registry=registry,
            ),
            active=Gauge(
                "triad_battles_active",
                "Battles in progress (created, not finished).",
                registry=registry,
            ),
        )

    def observe(self, decision: Decision) -> None:
        """Count what a saved decision did."""
        self.turns.inc(len(decision.resolved))
        for event in decision.events:
            if isinstance(event, Created):
                cpu = any(s.cpu for s in event.seats)
                self.created.labels("practice" if cpu else "versus").inc()
            elif isinstance(event, PlanCommitted):
                by = "cpu" if event.by_cpu else "deadline" if event.at_deadline else "player"
                self.plans.labels(by).inc()
            elif isinstance(event, SeatTakenOver):
                self.takeovers.inc()
            elif isinstance(event, Finished):
                self.finished.labels(event.reason.value).inc()
