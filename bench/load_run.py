"""One run of the load generator: N simulated players (bench/load_client.py) against
one gateway, signed up first, then playing for a window, then finishing their matches;
every acknowledged placement and finished match recorded for the checks afterwards."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bench.load_client import MIX_NAMES, SimClient
from bench.load_figures import LoadSummary, rpc_stats, timeline
from bench.load_records import AckedPlacement, AckedPlan, FinishedMatch, Meeting, Sample
from bench.load_tables import Rendezvous


@dataclass(frozen=True)
class LoadConfig:
    gateway: str
    root_cert: bytes
    clients: int
    seconds: float
    mix: Mapping[str, int]
    seed: int = 0
    rpc_timeout: float = 5.0
    drain_seconds: float = 60.0
    """After ``seconds``: how long matches in progress may take to finish."""
    setup_seconds: float = 120.0
    """Before ``seconds``: how long signing every player up may take."""
    name_prefix: str = ""
    """Player names start with it (default: a random one per run, so runs never clash)."""


class LoadRun:
    """N simulated players against one gateway; see the module docstring."""

    def __init__(self, config: LoadConfig) -> None:
        unknown = set(config.mix) - set(MIX_NAMES)
        if unknown or not any(config.mix.values()) or min(config.mix.values()) < 0:
            raise ValueError(f"mix must weigh some of {list(MIX_NAMES)}, got {dict(config.mix)}")
        self.config = config
        self.acknowledged: list[AckedPlacement] = []
        self.plans: list[AckedPlan] = []
        """Acknowledged CommitPlans (Skirmish battles in the mix)."""
        self.battles: set[str] = set()
        """Battles a client saw finished."""
        self.finished: list[FinishedMatch] = []
        self.samples: list[Sample] = []
        self.started = time.perf_counter()
        self.wall_started = time.time()
        self.play_started = self.wall_started
        """Unix time the play window began (after every player signed up)."""
        self._play_until = float("inf")
        self._alive_until = float("inf")
        self._seen: set[str] = set()
        self.clients: list[SimClient] = []
        self.rendezvous = Rendezvous()
        """Where players who drew a custom table meet their partner."""

    # The clients' view of the run (bench.load_records.Shared).
    @property
    def playing(self) -> bool:
        return time.perf_counter() < self._play_until

    @property
    def alive(self) -> bool:
        return time.perf_counter() < self._alive_until

    def acked(self, placement: AckedPlacement) -> None:
        self.acknowledged.append(placement)

    def acked_plan(self, plan: AckedPlan) -> None:
        self.plans.append(plan)

    def battle_finished(self, battle_id: str) -> None:
        self.battles.add(battle_id)

    @property
    def players(self) -> dict[str, str]:
        """Every registered simulated player: name -> player id."""
        return {c.name: c.player_id for c in self.clients if c.player_id}

    def finished_match(self, match: FinishedMatch) -> None:
        if match.match_id not in self._seen:  # both players of a match report it
            self._seen.add(match.match_id)
            ids = self.players
            self.finished.append(
                dataclasses.replace(match, player_ids=tuple(ids.get(n) for n in match.players))
            )

    async def meet(self, kind: str, name: str, patience: float) -> Meeting | None:
        return await self.rendezvous.meet(kind, name, patience)

    async def run(self) -> LoadSummary:
        """Sign every client up (at most ``setup_seconds``), then play for
        ``config.seconds``, let matches in progress finish (at most ``drain_seconds``
        more), and return the summary."""
        config = self.config
        rng = random.Random(config.seed)
        prefix = config.name_prefix or f"ld{rng.getrandbits(24):06x}{random.getrandbits(16):04x}"
        self.started = time.perf_counter()
        self.wall_started = time.time()
        self._play_until = self._alive_until = float("inf")
        self.clients = [
            SimClient(
                index=i,
                gateway=config.gateway,
                root_cert=config.root_cert,
                run=self,
                mix=config.mix,
                rng=random.Random(rng.getrandbits(64)),
                rpc_timeout=config.rpc_timeout,
                prefix=prefix,
            )
            for i in range(config.clients)
        ]
        go = asyncio.Event()
        tasks = [asyncio.create_task(c.live(go)) for c in self.clients]
        # Signing up is scrypt twice per player: slow on purpose, and not what the
        # figures are about, so the play window starts once every player is in.
        await asyncio.wait(
            [asyncio.create_task(c.ready.wait()) for c in self.clients],
            timeout=config.setup_seconds,
        )
        self.play_started = time.time()
        self._play_until = time.perf_counter() + config.seconds
        self._alive_until = self._play_until + config.drain_seconds
        go.set()
        _, pending = await asyncio.wait(
            tasks, timeout=max(0.0, self._alive_until - time.perf_counter())
        )
        self._alive_until = time.perf_counter()
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return self.summary(time.perf_counter() - self.started, len(pending))

    def summary(self, elapsed: float, unfinished: int) -> LoadSummary:
        window, at = self.config.seconds, self.play_started
        placements = sum(1 for a in self.acknowledged if 0 <= a.answered_at - at <= window)
        matches = sum(1 for m in self.finished if 0 <= m.finished_at - at <= window)
        return LoadSummary(
            clients=self.config.clients,
            seconds=window,
            elapsed=elapsed,
            matches=matches,
            placements=placements,
            matches_total=len(self.finished),
            placements_total=len(self.acknowledged),
            by_mode=dict(Counter(m.mode for m in self.finished)),
            rpcs=rpc_stats(self.samples),
            timeline=timeline(
                self.samples, self.acknowledged, self.finished, self.wall_started, elapsed
            ),
            unfinished_clients=unfinished,
            setup_seconds=self.play_started - self.wall_started,
        )
