"""What a placement through the gateway costs the backend (issue 18, item 2): the pure
part of bench/gateway.py's CPU budget.

A level of the gateway benchmark alternates two phases per wave: starting the pairs'
matches (clock stopped) and playing them to the end (clock running). What every
backend process spent (CPU from /proc, its process tree; bench/cpu.py), the
transactions the database committed, the rows its event logs gained and the session
messages the bench's players received are read at each phase's edges and summed per
phase over the counted waves: the playing phases divided by the placements made in
them are the cost of a placement; the starting phases divided by the matches started,
that of a start.

Work a phase sets off and finishes later (a match's end rated, collected and relayed
after its last placement; PostgreSQL reports a backend's transactions up to a second
late when busy) lands in the next phase: each bucket holds about one wave's spill of
the other. A quiet window after the levels gives what the backend spends with nobody
placing (its own timers), which the figures include and the report names per level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.stats import rounded

PLACEMENT_TARGET_MS = 1.8
"""ms of CPU per placement, all backend processes together, at 64 matches (issue 18)."""
PROCESSES = (
    "gateway",
    "match",
    "matchmaker",
    "collection",
    "rating",
    "battle",
    "postgres",
    "nats",
)
"""The backend's processes, in the report's order; the bench client is not one of them."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What had been spent so far at one moment."""

    at: float
    """``time.perf_counter()``."""
    cpu_seconds: Mapping[str, float]
    """By backend process (tree)."""
    client_seconds: float
    """This process's CPU (``time.process_time()``): reported, never counted."""
    transactions: int
    """The database's ``xact_commit`` so far."""
    events: int
    """Rows inserted so far into every service's ``events`` table (the event logs)."""
    messages: int
    """Session stream messages the bench's players had received so far."""


@dataclass(frozen=True, slots=True)
class Spent:
    """What was spent between readings, or over several such stretches summed."""

    seconds: float = 0.0
    cpu_seconds: Mapping[str, float] = field(default_factory=dict)
    client_seconds: float = 0.0
    transactions: int = 0
    events: int = 0
    messages: int = 0

    @classmethod
    def between(cls, start: Reading, end: Reading) -> Spent:
        if end.at < start.at:
            raise ValueError("a stretch ends after it starts")
        return cls(
            seconds=end.at - start.at,
            cpu_seconds={
                name: end.cpu_seconds[name] - start.cpu_seconds[name] for name in start.cpu_seconds
            },
            client_seconds=end.client_seconds - start.client_seconds,
            transactions=end.transactions - start.transactions,
            events=end.events - start.events,
            messages=end.messages - start.messages,
        )

    def __add__(self, other: Spent) -> Spent:
        names = dict.fromkeys([*self.cpu_seconds, *other.cpu_seconds])
        return Spent(
            seconds=self.seconds + other.seconds,
            cpu_seconds={
                name: self.cpu_seconds.get(name, 0.0) + other.cpu_seconds.get(name, 0.0)
                for name in names
            },
            client_seconds=self.client_seconds + other.client_seconds,
            transactions=self.transactions + other.transactions,
            events=self.events + other.events,
            messages=self.messages + other.messages,
        )

    def cpu_ms_per(self, count: int) -> dict[str, float]:
        """Milliseconds of CPU each process spent per one of ``count`` things done."""
        if count <= 0:
            raise ValueError(f"a cost per thing needs things done, got {count}")
        return {name: seconds * 1000 / count for name, seconds in self.cpu_seconds.items()}

    def cpu_ms_per_second(self) -> dict[str, float]:
        if self.seconds <= 0:
            raise ValueError("a rate needs time to pass")
        return {name: seconds * 1000 / self.seconds for name, seconds in self.cpu_seconds.items()}


@dataclass(frozen=True, slots=True)
class LevelCost:
    """One concurrency level's counted waves, by phase."""

    level: int
    placements: int
    starts: int
    """Matches started in the counted waves' starting phases."""
    placing: Spent
    starting: Spent

    def cpu_ms_per_placement(self) -> dict[str, float]:
        return self.placing.cpu_ms_per(self.placements)

    @property
    def cpu_ms_per_placement_total(self) -> float:
        return sum(self.cpu_ms_per_placement().values())

    def background_ms_per_placement(self, quiet: Spent) -> float:
        """What the backend spends with nobody placing (``quiet``), over this level's
        placing time, per placement: the part of the figure no placement caused."""
        return sum(quiet.cpu_ms_per_second().values()) * self.placing.seconds / self.placements

    def background_ms_per_start(self, quiet: Spent) -> float:
        """The same over the starting phases, per match started."""
        return sum(quiet.cpu_ms_per_second().values()) * self.starting.seconds / self.starts

    def to_json(self, quiet: Spent | None = None) -> dict[str, Any]:
        per = self.cpu_ms_per_placement()
        found: dict[str, Any] = {
            "placements": self.placements,
            "placing_seconds": round(self.placing.seconds, 3),
            "cpu_ms_per_placement": rounded(per, 4),
            "cpu_ms_per_placement_total": round(sum(per.values()), 4),
            "client_cpu_ms_per_placement": round(
                self.placing.client_seconds * 1000 / self.placements, 4
            ),
            "transactions_per_placement": round(self.placing.transactions / self.placements, 3),
            "events_per_placement": round(self.placing.events / self.placements, 3),
            "session_messages_per_placement": round(self.placing.messages / self.placements, 3),
        }
        if quiet is not None and quiet.seconds > 0:
            found["background_cpu_ms_per_placement"] = round(
                self.background_ms_per_placement(quiet), 4
            )
        if self.starts:
            start = self.starting.cpu_ms_per(self.starts)
            found |= {
                "match_starts": self.starts,
                "starting_seconds": round(self.starting.seconds, 3),
                "cpu_ms_per_match_start": rounded(start, 4),
                "cpu_ms_per_match_start_total": round(sum(start.values()), 4),
                "transactions_per_match_start": round(self.starting.transactions / self.starts, 3),
                "events_per_match_start": round(self.starting.events / self.starts, 3),
            }
            if quiet is not None and quiet.seconds > 0:
                found["background_cpu_ms_per_match_start"] = round(
                    self.background_ms_per_start(quiet), 4
                )
        return found


def quiet_json(quiet: Spent) -> dict[str, Any]:
    """The quiet window's figures: every process's rate with nobody placing."""
    rates = quiet.cpu_ms_per_second()
    return {
        "seconds": round(quiet.seconds, 3),
        "cpu_ms_per_second": rounded(rates, 3),
        "cpu_ms_per_second_total": round(sum(rates.values()), 3),
        "transactions_per_second": round(quiet.transactions / quiet.seconds, 3),
    }


def format_costs(levels: Sequence[LevelCost], quiet: Spent | None = None) -> str:
    """CPU per placement by process and level, for the terminal."""
    names = [n for n in PROCESSES if any(n in c.placing.cpu_seconds for c in levels)]
    header = ["matches", *names, "total", "xacts", "msgs"]
    rows = [header]
    for cost in levels:
        per = cost.cpu_ms_per_placement()
        rows.append(
            [
                str(cost.level),
                *(f"{per.get(n, 0.0):.3f}" for n in names),
                f"{sum(per.values()):.3f}",
                f"{cost.placing.transactions / cost.placements:.2f}",
                f"{cost.placing.messages / cost.placements:.2f}",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  CPU ms per placement by process (transactions and session messages per placement)"]
    lines += [
        "  " + "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    ]
    if quiet is not None and quiet.seconds > 0:
        lines.append(
            f"  nobody placing: {sum(quiet.cpu_ms_per_second().values()):.0f} ms/s of CPU, "
            f"{quiet.transactions / quiet.seconds:.0f} transactions/s"
        )
    return "\n".join(lines)
