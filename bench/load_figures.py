"""The load generator's figures: per-RPC latency and errors, the timeline a second at
a time, and the run's summary (what the report, the chart and the chaos test read)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.load_records import AckedPlacement, FinishedMatch, Sample
from bench.stats import percentile


@dataclass(frozen=True)
class RpcStats:
    calls: int
    ok: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    mean_ms: float | None
    errors: Mapping[str, int]
    examples: Mapping[str, str] = field(default_factory=dict)
    """One error message for each status code seen."""

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "ok": self.ok,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
            "p99_ms": self.p99_ms,
            "mean_ms": self.mean_ms,
            "errors": dict(self.errors),
            "error_examples": dict(self.examples),
        }


@dataclass(frozen=True)
class LoadSummary:
    clients: int
    seconds: float
    """The play window: no match started after it."""
    elapsed: float
    """The whole run, the drain of the last matches included."""
    matches: int
    """Matches finished within the play window."""
    placements: int
    """Placements acknowledged within the play window."""
    matches_total: int
    placements_total: int
    by_mode: Mapping[str, int]
    rpcs: Mapping[str, RpcStats]
    timeline: Sequence[Mapping[str, Any]]
    """One entry a second: placements, matches, calls and PlaceCard latency."""
    unfinished_clients: int
    """Clients still busy when the drain ran out (a match that did not finish)."""
    setup_seconds: float = 0.0
    """Signing the players up, before the play window (the timeline's first seconds)."""

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds

    @property
    def placements_per_second(self) -> float:
        return self.placements / self.seconds

    @property
    def errors(self) -> dict[str, dict[str, int]]:
        return {name: dict(s.errors) for name, s in self.rpcs.items() if s.errors}

    def to_json(self) -> dict[str, Any]:
        return {
            "clients": self.clients,
            "seconds": self.seconds,
            "elapsed_seconds": round(self.elapsed, 3),
            "setup_seconds": round(self.setup_seconds, 3),
            "matches": self.matches,
            "placements": self.placements,
            "matches_per_second": round(self.matches_per_second, 3),
            "placements_per_second": round(self.placements_per_second, 2),
            "matches_total": self.matches_total,
            "placements_total": self.placements_total,
            "matches_by_mode": dict(self.by_mode),
            "unfinished_clients": self.unfinished_clients,
            "rpcs": {name: s.to_json() for name, s in sorted(self.rpcs.items())},
            "errors": self.errors,
        }


def _ms(value: float) -> float:
    return round(value * 1000, 3)


def rpc_stats(samples: Sequence[Sample]) -> dict[str, RpcStats]:
    by_rpc: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_rpc[sample.rpc].append(sample)
    stats = {}
    for rpc, mine in by_rpc.items():
        ok = sorted(s.seconds for s in mine if s.code == "OK")
        errors = Counter(s.code for s in mine if s.code != "OK")
        stats[rpc] = RpcStats(
            calls=len(mine),
            ok=len(ok),
            p50_ms=_ms(percentile(ok, 50)) if ok else None,
            p95_ms=_ms(percentile(ok, 95)) if ok else None,
            p99_ms=_ms(percentile(ok, 99)) if ok else None,
            mean_ms=_ms(statistics.fmean(ok)) if ok else None,
            errors=dict(sorted(errors.items())),
            examples={s.code: s.detail for s in reversed(mine) if s.code != "OK"},
        )
    return stats


def timeline(
    samples: Sequence[Sample],
    acked: Sequence[AckedPlacement],
    finished: Sequence[FinishedMatch],
    wall_started: float,
    elapsed: float,
) -> list[dict[str, Any]]:
    seconds = max(1, int(elapsed) + 1)
    place: list[list[float]] = [[] for _ in range(seconds)]
    other: list[list[float]] = [[] for _ in range(seconds)]
    errors = [0] * seconds
    for s in samples:
        slot = min(seconds - 1, max(0, int(s.at)))
        if s.code != "OK":
            errors[slot] += 1
        elif s.rpc == "PlaceCard":
            place[slot].append(s.seconds)
        elif s.rpc != "OpenSession":  # a stream's "latency" is its time to first push
            other[slot].append(s.seconds)
    placements = [0] * seconds
    for a in acked:
        placements[min(seconds - 1, max(0, int(a.answered_at - wall_started)))] += 1
    matches = [0] * seconds
    for m in finished:
        matches[min(seconds - 1, max(0, int(m.finished_at - wall_started)))] += 1
    out = []
    for t in range(seconds):
        p, o = sorted(place[t]), sorted(other[t])
        out.append(
            {
                "t": t,
                "placements": placements[t],
                "matches": matches[t],
                "calls": len(p) + len(o),
                "errors": errors[t],
                "place_p50_ms": _ms(percentile(p, 50)) if p else None,
                "place_p99_ms": _ms(percentile(p, 99)) if p else None,
                "other_p50_ms": _ms(percentile(o, 50)) if o else None,
                "other_p99_ms": _ms(percentile(o, 99)) if o else None,
            }
        )
    return out
