"""The scale model (issue 18, item 5; docs/SCALE.md): what 100,000 and 1,000,000
concurrent players need, worked out from the latest measured costs, never by hand.

    python -m bench.scale                       # from bench/results/*-latest.json
    python -m bench.scale --in-match 0.3 --placements-per-second 0.2 --players 250000

Inputs, each from one report (the table names its run: commit and time):

- ``gateway-latest.json`` (``python -m bench gateway``): per process, the CPU a
  placement costs at 64 matches and a match start; transactions, event log rows and
  session messages per placement and per start; the event log's bytes per row.
- ``idle-latest.json`` (``python -m bench idle``): per process, the CPU an idle
  session costs (at the largest size, against the no-session baseline); what each
  process spends with nobody connected (a replica's own timers); the gateway's memory
  per session; transactions with nobody connected.

A connected player always holds a session (the idle cost); a share of them
(``in_match``) is in a match and places ``placements_per_second`` cards a second; a
match is ``placements_per_match`` placements and one start. Each service replica is
one Python process, so one core at most (``cores_per_replica``), run at
``utilisation`` of it to keep latency; PostgreSQL and NATS are sized in cores at the
same utilisation. Costs measured on this 2-core machine, where every process competes
with every other, are taken as they are: a lower bound on replicas it is not.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.report import DEFAULT_OUT_DIR

SERVICES = ("gateway", "match", "matchmaker", "collection", "rating")
"""Python processes, scaled out in replicas."""
SERVERS = ("postgres", "nats")
"""Scaled up (and later out) in cores."""
PLAYERS = (100_000, 1_000_000)
LEVEL = 64
"""The gateway bench's level the model takes its per-placement costs from."""
LINEAR_LEVELS = (16, 64)
"""The two largest levels: the cost per placement at both says whether it grows
linearly (a ratio near 1)."""
DAY = 86_400


@dataclass(frozen=True, slots=True)
class Assumptions:
    """What players do, and how hard a core is run: stated, not measured."""

    in_match: float = 0.5
    """Share of connected players in a match at any moment; the rest are idle (menus,
    queue, collection)."""
    placements_per_second: float = 0.1
    """Placements per second of a player in a match: one card every 10 s, so a
    9-placement match between two players lasts 45 s."""
    placements_per_match: int = 9
    cores_per_replica: float = 1.0
    """A service replica is one Python process: one event loop, one core at most."""
    utilisation: float = 0.6
    """Share of a core a replica (or a server's core) is planned to use: the gateway
    bench's p99 grows fast past it."""


@dataclass(frozen=True, slots=True)
class Costs:
    """The measured costs the model multiplies, by process where they are per process."""

    placement_ms: Mapping[str, float]
    """CPU per placement, ms."""
    start_ms: Mapping[str, float]
    """CPU per match start, ms."""
    session_ms_per_second: Mapping[str, float]
    """CPU per idle session, ms per second."""
    replica_ms_per_second: Mapping[str, float]
    """CPU a process spends with nobody connected (its timers), ms per second."""
    transactions_per_placement: float
    transactions_per_start: float
    transactions_per_session_second: float
    transactions_per_second_unused: float
    """Transactions a second with nobody connected, one replica of each service."""
    events_per_placement: float
    events_per_start: float
    event_bytes_per_row: float
    messages_per_placement: float
    """Session messages (one NATS message each, service to gateway) per placement."""
    gateway_kb_per_session: float
    sources: Mapping[str, str] = field(default_factory=dict)
    """Which report and run each input came from."""

    @classmethod
    def from_reports(cls, gateway: Mapping[str, Any], idle: Mapping[str, Any]) -> Costs:
        cpu = gateway["extra"]["cpu"][f"placements_{LEVEL}"]
        windows = idle["extra"]["windows"]
        sizes = sorted(idle["extra"]["per_session"], key=int)
        session = idle["extra"]["per_session"][sizes[-1]]
        logs = gateway["extra"].get("event_logs", {})
        rows = sum(log["rows"] for log in logs.values())
        return cls(
            placement_ms=cpu["cpu_ms_per_placement"],
            start_ms=cpu["cpu_ms_per_match_start"],
            # Below zero is the baseline's noise, not a saving.
            session_ms_per_second={
                name: max(0.0, ms) for name, ms in session["cpu_ms_per_second"].items()
            },
            replica_ms_per_second=windows["0"]["cpu_ms_per_second"],
            transactions_per_placement=cpu["transactions_per_placement"],
            transactions_per_start=cpu["transactions_per_match_start"],
            transactions_per_session_second=max(0.0, session["transactions_per_second"]),
            transactions_per_second_unused=windows["0"]["transactions_per_second"],
            events_per_placement=cpu["events_per_placement"],
            events_per_start=cpu["events_per_match_start"],
            event_bytes_per_row=sum(log["bytes"] for log in logs.values()) / rows if rows else 0,
            messages_per_placement=cpu["session_messages_per_placement"],
            gateway_kb_per_session=session["rss_kb"]["gateway"],
            sources={
                "gateway": f"{_run(gateway)}, placements_{LEVEL}",
                "idle": f"{_run(idle)}, per session at {sizes[-1]} sessions, baseline at 0",
            },
        )


def _run(report: Mapping[str, Any]) -> str:
    """A report's run: benchmark, time, commit (and whether the tree was dirty)."""
    git = report.get("git", {})
    commit = (git.get("commit") or "?")[:7] + ("+dirty" if git.get("dirty") else "")
    return f"bench {report['benchmark']} {report['utc_time']} at {commit}"


@dataclass(frozen=True, slots=True)
class Plan:
    """What ``players`` concurrent players need."""

    players: int
    placements_per_second: float
    starts_per_second: float
    cpu_ms_per_second: Mapping[str, float]
    """By process: the whole load's CPU."""
    replicas: Mapping[str, int]
    """By service: replicas of ``cores_per_replica`` at ``utilisation``."""
    server_cores: Mapping[str, float]
    """PostgreSQL and NATS: cores at ``utilisation``."""
    transactions_per_second: float
    events_per_second: float
    event_log_bytes_per_day: float
    subscriptions: int
    """NATS subscriptions: one per session (``triad.player.<id>.>``)."""
    messages_per_second: float
    """Session messages published on those subjects a second."""
    gateway_gb: float
    """The gateway replicas' memory for the sessions, in all."""


def plan(costs: Costs, players: int, assume: Assumptions) -> Plan:
    placements = players * assume.in_match * assume.placements_per_second
    starts = placements / assume.placements_per_match
    names = dict.fromkeys([*SERVICES, *SERVERS, *costs.placement_ms])
    cpu = {
        name: players * costs.session_ms_per_second.get(name, 0.0)
        + placements * costs.placement_ms.get(name, 0.0)
        + starts * costs.start_ms.get(name, 0.0)
        for name in names
    }
    replicas = {name: replicas_for(cpu[name], costs, name, assume) for name in SERVICES}
    server_cores = {
        name: (cpu[name] + costs.replica_ms_per_second.get(name, 0.0)) / (1000 * assume.utilisation)
        for name in SERVERS
    }
    # The services' own timers run transactions with nobody connected: one replica of
    # each ran ``transactions_per_second_unused``; more replicas run that many per set.
    sets = max(replicas.values()) if replicas else 1
    transactions = (
        placements * costs.transactions_per_placement
        + starts * costs.transactions_per_start
        + players * costs.transactions_per_session_second
        + sets * costs.transactions_per_second_unused
    )
    events = placements * costs.events_per_placement + starts * costs.events_per_start
    return Plan(
        players=players,
        placements_per_second=placements,
        starts_per_second=starts,
        cpu_ms_per_second=cpu,
        replicas=replicas,
        server_cores=server_cores,
        transactions_per_second=transactions,
        events_per_second=events,
        event_log_bytes_per_day=events * DAY * costs.event_bytes_per_row,
        subscriptions=players,
        messages_per_second=placements * costs.messages_per_placement,
        gateway_gb=players * costs.gateway_kb_per_session / 1024 / 1024,
    )


def replicas_for(cpu_ms_per_second: float, costs: Costs, name: str, assume: Assumptions) -> int:
    """Replicas of a service for a load: each has ``cores_per_replica`` at
    ``utilisation``, less what it spends on its own with nobody connected; at least 1."""
    room = 1000 * assume.cores_per_replica * assume.utilisation
    room -= costs.replica_ms_per_second.get(name, 0.0)
    if room <= 0:
        raise ValueError(f"a {name} replica's own timers take all of its planned core")
    return max(1, math.ceil(cpu_ms_per_second / room))


@dataclass(frozen=True, slots=True)
class Linearity:
    """The cost per unit at the two largest sizes of each run: near 1, it grows
    linearly."""

    placement_ms: Mapping[int, float]
    """All processes' CPU per placement, by level (matches)."""
    session_ms: Mapping[int, float]
    """All processes' CPU per idle session per second, by sessions, against the
    baseline."""
    session_marginal_ms: float | None
    """Between the two largest sizes: what one more session adds."""

    @property
    def placement_ratio(self) -> float:
        low, high = sorted(self.placement_ms)[-2:]
        return self.placement_ms[high] / self.placement_ms[low]

    @property
    def session_ratio(self) -> float:
        low, high = sorted(self.session_ms)[-2:]
        return self.session_ms[high] / self.session_ms[low]

    @classmethod
    def from_reports(cls, gateway: Mapping[str, Any], idle: Mapping[str, Any]) -> Linearity:
        cpu = gateway["extra"]["cpu"]
        per_session = idle["extra"]["per_session"]
        marginal = list(idle["extra"].get("marginal", {}).values())
        return cls(
            placement_ms={
                level: cpu[f"placements_{level}"]["cpu_ms_per_placement_total"]
                for level in LINEAR_LEVELS
            },
            session_ms={
                int(n): p["cpu_ms_per_second_total"]
                for n, p in sorted(per_session.items(), key=lambda item: int(item[0]))[-2:]
            },
            session_marginal_ms=marginal[0]["cpu_ms_per_second_total"] if marginal else None,
        )


def format_plans(plans: Sequence[Plan], costs: Costs, assume: Assumptions) -> str:
    """The model as a Markdown table, its inputs named."""
    head = "| | " + " | ".join(f"{p.players:,} players" for p in plans) + " |"
    rows = [head, "| --- |" + " ---: |" * len(plans)]

    def row(label: str, values: Sequence[str]) -> None:
        rows.append(f"| {label} | " + " | ".join(values) + " |")

    row("placements/s", [f"{p.placements_per_second:,.0f}" for p in plans])
    row("match starts/s", [f"{p.starts_per_second:,.0f}" for p in plans])
    for name in SERVICES:
        row(
            f"{name} replicas (CPU ms/s)",
            [f"{p.replicas[name]:,} ({p.cpu_ms_per_second[name]:,.0f})" for p in plans],
        )
    row("service replicas in all", [f"{sum(p.replicas.values()):,}" for p in plans])
    for name in SERVERS:
        row(f"{name} cores", [f"{p.server_cores[name]:,.1f}" for p in plans])
    row("PostgreSQL transactions/s", [f"{p.transactions_per_second:,.0f}" for p in plans])
    row("event log rows/s", [f"{p.events_per_second:,.0f}" for p in plans])
    row("event log rows/day", [f"{p.events_per_second * DAY:,.0f}" for p in plans])
    row("event log GB/day", [f"{p.event_log_bytes_per_day / 1e9:,.1f}" for p in plans])
    row("NATS subscriptions (sessions)", [f"{p.subscriptions:,}" for p in plans])
    row("NATS session messages/s", [f"{p.messages_per_second:,.0f}" for p in plans])
    row("gateway memory for sessions, GB", [f"{p.gateway_gb:,.1f}" for p in plans])
    lines = [*rows, ""]
    lines.append(
        f"Assumed: {assume.in_match:.0%} of players in a match, "
        f"{assume.placements_per_second} placements/s each, "
        f"{assume.placements_per_match} placements a match, "
        f"{assume.cores_per_replica:g} core per replica at {assume.utilisation:.0%}."
    )
    lines += [f"Measured: {name}: {source}." for name, source in costs.sources.items()]
    return "\n".join(lines)


def format_linearity(linear: Linearity) -> str:
    placement = ", ".join(f"{ms:.3f} ms at {n}" for n, ms in linear.placement_ms.items())
    session = ", ".join(f"{ms:.4f} ms/s at {n}" for n, ms in linear.session_ms.items())
    lines = [
        f"CPU per placement, all processes: {placement}; "
        f"ratio {linear.placement_ratio:.2f} (64 over 16 matches).",
        f"CPU per idle session, all processes: {session}; "
        f"ratio {linear.session_ratio:.2f} (largest over next size).",
    ]
    if linear.session_marginal_ms is not None:
        lines.append(
            f"One more idle session between the two largest sizes: "
            f"{linear.session_marginal_ms:.4f} ms/s."
        )
    return "\n".join(lines)


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a report")
    return data


def _players(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.scale", description=(__doc__ or "").split("\n\n")[0]
    )
    defaults = Assumptions()
    parser.add_argument("--results", type=Path, default=DEFAULT_OUT_DIR)
    parser.add_argument("--players", type=_players, default=PLAYERS)
    parser.add_argument("--in-match", type=float, default=defaults.in_match)
    parser.add_argument(
        "--placements-per-second", type=float, default=defaults.placements_per_second
    )
    parser.add_argument("--cores-per-replica", type=float, default=defaults.cores_per_replica)
    parser.add_argument("--utilisation", type=float, default=defaults.utilisation)
    args = parser.parse_args(argv)
    gateway = _load(args.results / "gateway-latest.json")
    idle = _load(args.results / "idle-latest.json")
    if "cpu" not in gateway.get("extra", {}):
        parser.error("gateway-latest.json has no CPU per placement: run python -m bench gateway")
    assume = Assumptions(
        in_match=args.in_match,
        placements_per_second=args.placements_per_second,
        cores_per_replica=args.cores_per_replica,
        utilisation=args.utilisation,
    )
    costs = Costs.from_reports(gateway, idle)
    print(format_plans([plan(costs, n, assume) for n in args.players], costs, assume))
    print()
    print(format_linearity(Linearity.from_reports(gateway, idle)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
