"""Faults injected on a schedule while the load runs: processes killed, servers taken away.

Every fault is blocking (it waits until what it broke is back: a service SERVING again,
PostgreSQL accepting connections, NATS serving JetStream), so ``Faults.run`` drives
them from a worker thread and the load keeps its event loop. Each fault records when
it began and when its target was back, in seconds since the load began.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from devtools.embedded import NatsProcess, PostgresProcess


class Services(Protocol):
    """The part of the backend launcher the faults use."""

    def kill(self, name: str) -> None: ...
    def restart(self, name: str, timeout: float | None = None) -> None: ...
    def exited(self) -> dict[str, int]: ...
    def pid(self, name: str) -> int | None: ...


@dataclass(frozen=True, slots=True)
class Planned:
    at: float
    """Seconds after the load began."""
    kind: str
    """``kill`` (SIGKILL a service, restart it), ``nats`` (stop, wait, start) or
    ``postgres`` (stop, start)."""
    target: str
    down: float = 1.0
    """How long the target stays away before it is started again."""

    @property
    def name(self) -> str:
        if self.kind == "kill":
            return f"SIGKILL {self.target}"
        if self.kind == "nats":
            return f"stop NATS for {self.down:g} s"
        return f"restart PostgreSQL ({self.target})"


@dataclass(slots=True)
class Injected:
    plan: Planned
    began: float = 0.0
    back: float = 0.0
    began_utc: datetime = field(default_factory=lambda: datetime.now(UTC))
    back_utc: datetime = field(default_factory=lambda: datetime.now(UTC))
    error: str = ""
    processes: str = ""
    """The target's process id before and after: proof it really went and came back."""
    catch_up_seconds: float | None = None
    """From ``back`` until everything logged before it was published and consumed."""

    @property
    def since_began(self) -> float | None:
        """Seconds from the fault's start until the pipeline had caught up after it."""
        if self.catch_up_seconds is None:
            return None
        return round(self.back - self.began + self.catch_up_seconds, 2)

    def as_dict(self) -> dict[str, Any]:
        return {
            "fault": self.plan.name,
            "kind": self.plan.kind,
            "target": self.plan.target,
            "planned_at_s": self.plan.at,
            "began_s": round(self.began, 2),
            "back_s": round(self.back, 2),
            "outage_s": round(self.back - self.began, 2),
            "began_utc": self.began_utc.isoformat(),
            "back_utc": self.back_utc.isoformat(),
            "catch_up_s": None
            if self.catch_up_seconds is None
            else round(self.catch_up_seconds, 2),
            "caught_up_after_fault_began_s": self.since_began,
            "processes": self.processes,
            "error": self.error,
        }


def standard_plan(services: Sequence[str], start: float, every: float) -> list[Planned]:
    """Each service killed in turn, then NATS away for 10 s, then PostgreSQL restarted
    as after a crash (``immediate``: the next start replays the WAL)."""
    plan = [Planned(start + i * every, "kill", name) for i, name in enumerate(services)]
    after = start + len(services) * every
    plan.append(Planned(after, "nats", "nats-server", down=10.0))
    plan.append(Planned(after + every + 10.0, "postgres", "immediate"))
    return plan


@dataclass
class Faults:
    services: Services
    postgres: PostgresProcess
    nats: NatsProcess
    plan: Sequence[Planned]
    injected: list[Injected] = field(default_factory=list)

    async def run(
        self, began: float, caught_up: Callable[[datetime], Awaitable[float | None]]
    ) -> list[Injected]:
        """Inject each planned fault at its time; after each, measure in the background
        how long the pipeline took to catch up with what was logged before it ended."""
        measures: list[asyncio.Task[None]] = []
        for planned in self.plan:
            await asyncio.sleep(max(0.0, began + planned.at - time.monotonic()))
            fault = Injected(planned, began=time.monotonic() - began)
            try:
                fault.processes = await asyncio.to_thread(self._inject, planned)
            except Exception as error:  # recorded and failed on at the end
                fault.error = repr(error)
            fault.back = time.monotonic() - began
            fault.back_utc = datetime.now(UTC)
            self.injected.append(fault)
            measures.append(asyncio.create_task(self._measure(fault, caught_up)))
        await asyncio.gather(*measures)
        return self.injected

    @staticmethod
    async def _measure(
        fault: Injected, caught_up: Callable[[datetime], Awaitable[float | None]]
    ) -> None:
        fault.catch_up_seconds = await caught_up(fault.back_utc)

    def _inject(self, planned: Planned) -> str:
        """Break the target, bring it back; return its process ids before and after."""
        if planned.kind == "kill":
            before = self.services.pid(planned.target)
            self.services.kill(planned.target)
            time.sleep(planned.down)
            self.services.restart(planned.target)
            after = self.services.pid(planned.target)
        elif planned.kind == "nats":
            before = self.nats.pid
            self.nats.stop()
            time.sleep(planned.down)
            self.nats.start()
            after = self.nats.pid
        elif planned.kind == "postgres":
            before = self.postgres.pid
            self.postgres.stop(planned.target)
            time.sleep(planned.down)
            self.postgres.start()
            after = self.postgres.pid
        else:
            raise ValueError(f"unknown fault {planned.kind!r}")
        if before is None or after is None or before == after:
            raise RuntimeError(f"{planned.name}: process {before} -> {after}, not a new one")
        return f"{before} -> {after}"
