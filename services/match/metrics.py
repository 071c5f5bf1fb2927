"""The match service's Prometheus metrics (names are what dashboards and alerts use)."""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import Counter, Gauge, Histogram

from services.match.domain.events import (
    CardPlaced,
    FinishReason,
    Forfeited,
    MatchCreated,
    MatchEvent,
    MatchFinished,
    Mode,
    TurnTimedOut,
)
from services.platform.metrics import zeroed

MODES = [mode.value for mode in Mode]
REASONS = [reason.value for reason in FinishReason]

MATCHES_CREATED = zeroed(
    Counter("triad_matches_created_total", "Matches created, by mode.", ["mode"]), mode=MODES
)
MATCHES_FINISHED = zeroed(
    Counter(
        "triad_matches_finished_total", "Matches finished, by mode and reason.", ["mode", "reason"]
    ),
    mode=MODES,
    reason=REASONS,
)
PLACEMENTS = Counter(
    "triad_placements_total", "Cards placed, by whether the server auto-played.", ["auto"]
)
PLACED_BY = {auto: PLACEMENTS.labels(auto=str(auto).lower()) for auto in (False, True)}
"""The two series of PLACEMENTS, looked up once: every move counts one."""
TURN_TIMEOUTS = Counter("triad_turn_timeouts_total", "Turns that ran out.")
FORFEITS = zeroed(
    Counter("triad_forfeits_total", "Forfeits, by reason.", ["reason"]), reason=REASONS
)
ACTIVE_MATCHES = Gauge("triad_active_matches", "Matches in progress (from the database).")
APPEND_SECONDS = Histogram(
    "triad_match_append_seconds",
    "Time to append a command's events with timers and keys, one transaction.",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
)
SAVE_BATCH = Histogram(
    "triad_match_save_batch_commands",
    "Commands written together in one transaction (group commit).",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)
MATCH_DURATION = Histogram(
    "triad_match_duration_seconds",
    "Wall time from creation to the end of a match.",
    buckets=(10, 30, 60, 120, 300, 600, 1200, 2400),
)


def observe(events: Sequence[MatchEvent], mode: str, started_seconds_ago: float) -> None:
    """Count what a committed command did."""
    for event in events:
        if isinstance(event, CardPlaced):
            PLACED_BY[event.auto_played].inc()
        elif isinstance(event, TurnTimedOut):
            TURN_TIMEOUTS.inc()
        elif isinstance(event, Forfeited):
            FORFEITS.labels(reason=event.reason.value).inc()
        elif isinstance(event, MatchCreated):
            MATCHES_CREATED.labels(mode=mode).inc()
        elif isinstance(event, MatchFinished):
            MATCHES_FINISHED.labels(mode=mode, reason=event.reason.value).inc()
            MATCH_DURATION.observe(started_seconds_ago)
