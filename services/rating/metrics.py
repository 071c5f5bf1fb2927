"""The rating service's Prometheus metrics (names are what dashboards and alerts use).

Registered into the registry ``main()`` makes, never at import time (platform
``metrics.py``). The consumer's own metrics (lag, redeliveries, handler failures) come
from ``services.platform.consumer.ConsumerMetrics`` with ``consumer="rating"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge

from services.platform.metrics import zeroed
from services.rating.domain import LadderKey, Unrated
from services.rating.handlers import AlreadyRated, Ignored, Outcome, Rated

BAND = 100
"""Width of the rating bands of the distribution gauge."""


@dataclass(frozen=True, slots=True)
class RatingMetrics:
    updates: Counter
    duplicates: Counter
    ignored: Counter
    players: Gauge
    ranked: Gauge

    @classmethod
    def register(cls, registry: CollectorRegistry) -> RatingMetrics:
        return cls(
            updates=Counter(
                "triad_rating_updates_applied_total",
                "Rated matches applied: each changed both players' ratings once.",
                ("ladder", "season"),
                registry=registry,
            ),
            duplicates=zeroed(
                Counter(
                    "triad_rating_duplicates_ignored_total",
                    "Deliveries that changed nothing because they were applied before: the "
                    "same event again (kind=event) or the same match under another event id "
                    "(kind=match).",
                    ("kind",),
                    registry=registry,
                ),
                kind=("event", "match"),
            ),
            ignored=zeroed(
                Counter(
                    "triad_rating_results_ignored_total",
                    "Finished matches that change no rating, by reason (not rated, bot, ...).",
                    ("reason",),
                    registry=registry,
                ),
                reason=[reason.value for reason in Unrated],
            ),
            players=Gauge(
                "triad_rating_players",
                f"Ranked players by {BAND}-point rating band (band = its lowest rating), "
                "current season: the rating distribution per ladder.",
                ("ladder", "season", "band"),
                registry=registry,
            ),
            ranked=Gauge(
                "triad_rating_ranked_players",
                "Players with at least one rated game on the ladder, current season.",
                ("ladder", "season"),
                registry=registry,
            ),
        )

    def observe(self, outcome: Outcome) -> None:
        """Count what a committed event did."""
        if isinstance(outcome, Rated):
            self.updates.labels(outcome.key.ladder.value, str(outcome.key.season)).inc()
        elif isinstance(outcome, AlreadyRated):
            self.duplicates.labels("match").inc()
        elif isinstance(outcome, Ignored):
            self.ignored.labels(outcome.reason.value).inc()

    def duplicate_event(self) -> None:
        self.duplicates.labels("event").inc()

    def distribution(self, key: LadderKey, bands: Iterable[tuple[int, int]]) -> None:
        """Set the gauge from ``(band, players)``; the total is the ranked count."""
        ladder, season = key.ladder.value, str(key.season)
        total = 0
        for band, players in bands:
            self.players.labels(ladder, season, str(band)).set(players)
            total += players
        self.ranked.labels(ladder, season).set(total)
