"""The matchmaker's Prometheus metrics (the names are what dashboards and alerts use).

Registered into the registry the composition root passes, never at import time, so
tests (and two replicas in one test process) each get their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from services.matchmaker.domain import CancelReason, Mode, StartKind, StartPlan, rating_band
from services.matchmaker.domain.modes import PRACTICE_ORIGINS, QUEUES
from services.platform.metrics import zeroed

QUEUED = [mode.value for mode in QUEUES]
TABLE_EVENTS = ("created", "joined", "declined", "closed", "expired")

WAIT_BUCKETS = (1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600)
# Around the pairing window: its start (50), its steps and its cap (300) are edges.
GAP_BUCKETS = (0, 10, 25, 50, 75, 100, 150, 200, 250, 300, 400)


@dataclass(frozen=True, slots=True)
class MatchmakerMetrics:
    queue_length: Gauge
    pairable: Gauge
    wait_seconds: Histogram
    rating_gap: Histogram
    pairings: Counter
    bot_fills: Counter
    cancels: Counter
    tickets: Counter
    practices: Counter
    tables: Counter
    open_tables: Gauge
    recovered_starts: Counter

    @classmethod
    def register(cls, registry: CollectorRegistry) -> MatchmakerMetrics:
        pairable = Gauge(
            "triad_matchmaker_pairable_tickets",
            "Tickets this replica's last pairing round found a seat for (an opponent within "
            "the window, or an Unranked bot), by queue: a working round starts them, so the "
            "next one finds 0; players far from everyone are not counted.",
            ["mode"], registry=registry,
        )  # fmt: skip
        for mode in QUEUED:
            pairable.labels(mode).set(0)
        return cls(
            queue_length=Gauge(
                "triad_matchmaker_queue_length", "Tickets waiting, by queue.", ["mode"],
                registry=registry,
            ),
            pairable=pairable,
            wait_seconds=Histogram(
                "triad_matchmaker_wait_seconds",
                "Time from enqueue to a started match (or draft), by queue and rating band.",
                ["mode", "band"], buckets=WAIT_BUCKETS, registry=registry,
            ),
            rating_gap=Histogram(
                "triad_matchmaker_pair_rating_gap",
                "Absolute rating difference of two paired humans, by queue.",
                ["mode"], buckets=GAP_BUCKETS, registry=registry,
            ),
            pairings=zeroed(Counter(
                "triad_matchmaker_pairings_total",
                "Pairings by queue and outcome (started, or failed: a player could not play).",
                ["mode", "outcome"], registry=registry,
            ), mode=QUEUED, outcome=("started", "failed")),
            bot_fills=zeroed(Counter(
                "triad_matchmaker_bot_fills_total",
                "Tickets seated against a populated bot after the fill delay.",
                ["mode"], registry=registry,
            ), mode=QUEUED),
            cancels=zeroed(Counter(
                "triad_matchmaker_cancels_total",
                "Tickets cancelled, by queue and reason.",
                ["mode", "reason"], registry=registry,
            ), mode=QUEUED, reason=[reason.value for reason in CancelReason]),
            tickets=zeroed(Counter(
                "triad_matchmaker_tickets_total", "Tickets queued, by queue.", ["mode"],
                registry=registry,
            ), mode=QUEUED),
            practices=zeroed(Counter(
                "triad_matchmaker_practice_matches_total",
                "Practice matches started, by the mode whose rules they use.",
                ["origin"], registry=registry,
            ), origin=[mode.value for mode in PRACTICE_ORIGINS]),
            tables=zeroed(Counter(
                "triad_matchmaker_tables_total",
                "Custom tables by what happened (created, joined, declined, closed, expired).",
                ["event"], registry=registry,
            ), event=TABLE_EVENTS),
            open_tables=Gauge(
                "triad_matchmaker_open_tables", "Custom tables open in the lobby.",
                registry=registry,
            ),
            recovered_starts=Counter(
                "triad_matchmaker_recovered_starts_total",
                "Match starts finished by another attempt after a lease ran out.",
                registry=registry,
            ),
        )  # fmt: skip

    def started(self, plan: StartPlan) -> None:
        """Count a start whose match (or draft) now exists."""
        mode = plan.mode.value
        if plan.kind is StartKind.PAIRING:
            self.pairings.labels(mode, "started").inc()
            for seat in plan.humans:
                self.wait_seconds.labels(mode, rating_band(seat.rating)).observe(seat.waited)
            if plan.bot is not None:
                self.bot_fills.labels(mode).inc()
            else:
                self.rating_gap.labels(mode).observe(plan.rating_gap)
        elif plan.kind in (StartKind.PRACTICE, StartKind.SWITCH):
            origin = plan.origin_mode or plan.mode
            self.practices.labels(origin.value).inc()
            if plan.kind is StartKind.SWITCH:
                self.cancel(origin, CancelReason.SWITCHED_TO_PRACTICE)
        elif plan.kind is StartKind.TABLE:
            self.tables.labels("joined").inc()

    def failed(self, plan: StartPlan, culprits: int) -> None:
        if plan.kind is StartKind.PAIRING:
            self.pairings.labels(plan.mode.value, "failed").inc()
            for _ in range(culprits):
                self.cancel(plan.mode, CancelReason.PAIRING_FAILED)

    def cancel(self, mode: Mode, reason: CancelReason) -> None:
        self.cancels.labels(mode.value, reason.value).inc()
