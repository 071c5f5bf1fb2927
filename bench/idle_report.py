"""The idle-session benchmark's findings (bench/idle.py): what was measured in one run
(``Found``), the JSON report with issue 18's targets checked, and the per-process
table printed beside the registry's short one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bench.idle_figures import PerSession, Window, checks
from bench.idle_sessions import STREAMS_PER_CHANNEL
from bench.report import Measurement, Report
from bench.service import window_measurement

NAME = "idle"
SATURATED = 0.9
"""Share of the machine's cores busy at which a size is reported as saturated: its
per-session figures are then lower bounds."""


@dataclass
class Found:
    windows: dict[int, Window]
    client_cpu_ms_per_second: dict[int, float]
    open_seconds: dict[int, float]
    settle_seconds: dict[int, float]
    gateway_fds: dict[int, int]
    pushes: dict[str, int]
    ended: dict[str, int]
    provision_seconds: float


def report(found: Found, parameters: dict[str, Any]) -> Report:
    windows = found.windows
    baseline = windows[0]
    per_session = [PerSession.against(w, baseline) for n, w in windows.items() if n and w.sessions]
    # Between the two largest sizes: what one more session adds once the first opening's
    # one-off growth (pools, caches, the allocator's arenas) is behind.
    top = sorted(n for n in windows if n)[-2:]
    marginal = (
        [PerSession.against(windows[top[1]], windows[top[0]])]
        if len(top) == 2 and windows[top[1]].sessions > windows[top[0]].sessions
        else []
    )
    targets = checks(per_session, windows, marginal)
    cores = max(1, len(parameters.get("cores") or [0]))
    saturated = [n for n, w in windows.items() if w.cpu_ms_total >= SATURATED * cores * 1000]
    measurements: dict[str, Measurement] = {}
    for size, w in windows.items():
        measurements |= {
            f"cpu_{size}": window_measurement(
                f"cpu_{size}",
                "ms CPU/s",
                f"CPU of every process but the client, {w.sessions} idle sessions",
                w.cpu_ms_total,
                w.sessions,
                w.seconds,
            ),
            f"transactions_{size}": window_measurement(
                f"transactions_{size}",
                "transactions/s",
                f"database transactions, {w.sessions} idle sessions",
                w.transactions_per_second,
                w.sessions,
                w.seconds,
            ),
            f"gateway_rss_{size}": window_measurement(
                f"gateway_rss_{size}",
                "kB",
                f"gateway resident memory, {w.sessions} idle sessions",
                w.rss_kb["gateway"],
                w.sessions,
                w.seconds,
            ),
        }
    notes = [
        "Per-session figures are a size's window minus the baseline's (no sessions, same "
        "run), over the sessions open at the window's start; CPU counts each service's "
        "process tree (PostgreSQL's backends, the match service's bot workers) and "
        "excludes the bench client.",
        "Players are provisioned (accounts written by the gateway's store code, starter "
        "collections granted, tokens signed with the backend's secret) rather than "
        "signed up: scrypt would spend minutes before anything is measured.",
        f"File descriptors go per connection, not per stream: the bench holds its streams "
        f"on one TLS connection per {STREAMS_PER_CHANNEL}; the gateway's open files at "
        "each size are in extra.gateway_open_files. Clients each on their own connection "
        "need the gateway's RLIMIT_NOFILE above the session count.",
    ]
    if saturated:
        notes.append(
            f"Saturated at {saturated} sessions (over {SATURATED:.0%} of {cores} cores busy): "
            "the work per session was capped by the machine, so those figures are lower bounds."
        )
    return Report(
        benchmark=NAME,
        parameters=parameters,
        measurements=measurements,
        baseline=None,
        notes=notes,
        extra={
            "windows": {str(n): w.to_json() for n, w in windows.items()},
            "per_session": {str(p.sessions): p.to_json() for p in per_session},
            "marginal": {f"{top[0]}-{top[1]}": m.to_json() for m in marginal},
            "targets": {t.name: t.to_json() for t in targets},
            "saturated_sizes": saturated,
            "client_cpu_ms_per_second": {
                str(n): round(v, 1) for n, v in found.client_cpu_ms_per_second.items()
            },
            "open_seconds": {str(n): round(v, 2) for n, v in found.open_seconds.items()},
            "settle_seconds": {str(n): round(v, 2) for n, v in found.settle_seconds.items()},
            "gateway_open_files": {str(n): v for n, v in found.gateway_fds.items()},
            "provision_seconds": round(found.provision_seconds, 2),
            "pushes": found.pushes,
            "streams_ended": found.ended,
        },
    )


def format_idle(extra: Mapping[str, Any]) -> str:
    """The per-process table: each size's figures, then per session against the
    baseline at each size and between the two largest (``marginal``); the targets."""
    windows = list(extra["windows"].values())
    per = [(f"/session@{n}", p) for n, p in extra["per_session"].items()]
    per += [(f"/session {span}", p) for span, p in extra["marginal"].items()]
    names = list(windows[0]["cpu_ms_per_second"])
    header = ["", *(f"n={w['sessions']}" for w in windows), *(title for title, _ in per)]

    def row(label: str, at: Any, each: str, per_each: str) -> list[str]:
        return [
            label,
            *(format(at(w), each) for w in windows),
            *(format(at(p), per_each) for _, p in per),
        ]

    rows = [header]
    for name in names:
        rows.append(
            row(f"{name} ms CPU/s", lambda f, n=name: f["cpu_ms_per_second"][n], ".1f", ".4f")
        )
    rows.append(row("all ms CPU/s", lambda f: f["cpu_ms_per_second_total"], ".1f", ".4f"))
    rows.append(row("transactions/s", lambda f: f["transactions_per_second"], ".1f", ".4f"))
    for name in names:
        rows.append(row(f"{name} RSS kB", lambda f, n=name: f["rss_kb"][n], ",.0f", ".1f"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "  "
        + "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r))
        for r in rows
    ]
    for name, t in extra["targets"].items():
        measured = ", ".join(f"{v} at {n}" for n, v in t["measured"].items())
        verdict = "MET" if t["met"] else "NOT MET"
        lines.append(
            f"  target {name} <= {t['maximum']} {t['unit']} at {t['judged_at']}: {verdict} "
            f"({measured})"
        )
    if extra["saturated_sizes"]:
        lines.append(
            f"  saturated at {extra['saturated_sizes']}: per-session figures are lower bounds"
        )
    return "\n".join(lines)
