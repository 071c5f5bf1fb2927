"""Bot decisions off the event loop: a pool of worker processes.

A hard bot searches for up to its whole budget (1 s by default) of pure-Python CPU
work. Run on the event loop it would stall every match of the service for that long,
and a thread would not help (the search holds the GIL), so the search runs in a worker
process. Only the seat's :class:`SeatKnowledge`, a seed and the budget cross over: the
worker never sees more than the bot's own view.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from datetime import datetime
from random import Random
from types import TracebackType

from services.match.bots.knowledge import knowledge
from services.match.bots.levels import DEFAULT_SECONDS, TURN_SHARE, Budget, Level, decide
from services.match.bots.realm import BotMove, realm_knowledge
from services.match.bots.realm import decide as decide_realm
from services.match.bots.sampling import CatalogEntry
from services.match.views import MatchView

INLINE = frozenset({Level.NOVICE, Level.EASY})
"""Levels that decide in well under a millisecond: not worth a trip to a worker."""

SEED_BITS = 32


def _ready() -> None:
    """A task that does nothing: submitting it starts a worker process."""


class BotPool:
    """Decides bot placements in worker processes. Use as an async context manager (or
    call :meth:`close`); ``executor`` lets tests pass a thread pool or a fake."""

    def __init__(
        self,
        workers: int = 1,
        seconds: float = DEFAULT_SECONDS,
        catalog: Sequence[CatalogEntry] | None = None,
        executor: Executor | None = None,
    ) -> None:
        if seconds <= 0:
            raise ValueError(f"a bot's time budget must be positive, got {seconds}")
        self.seconds = seconds
        self.catalog = tuple(catalog) if catalog is not None else None
        # spawn, not fork: forking a process that runs an event loop and threads can
        # copy held locks into the child.
        self._executor = executor or ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        )

    def budget(self, view: MatchView, now: datetime | None = None) -> Budget:
        """The configured budget, capped to a share of the turn timer and, when the time
        is known, of what is left of the turn, so the bot always moves in time."""
        seconds = min(self.seconds, view.turn_seconds * TURN_SHARE)
        if now is not None and view.deadline is not None:
            left = (view.deadline - now).total_seconds()
            seconds = min(seconds, max(0.0, left) * TURN_SHARE)
        return Budget(max(seconds, 0.001))

    async def choose(
        self, view: MatchView, rng: Random, now: datetime | None = None
    ) -> tuple[str, int]:
        """(card_id, cell) for the bot whose view this is, decided off the event loop."""
        seat = knowledge(view)
        seed = rng.getrandbits(SEED_BITS)
        budget = self.budget(view, now)
        if Level.of(seat.level) in INLINE:
            decision = decide(seat, seed, budget, self.catalog)
        else:
            loop = asyncio.get_running_loop()
            decision = await loop.run_in_executor(
                self._executor, decide, seat, seed, budget, self.catalog
            )
        return decision.card_id, decision.cell

    async def move(self, view: MatchView, rng: Random, now: datetime | None = None) -> BotMove:
        """The bot's move, Lair included at a Realm table (RULES.md 17), decided off the
        event loop from the seat's Realm knowledge (its own view) like :meth:`choose`."""
        if view.realm is None:
            return BotMove(*await self.choose(view, rng, now))
        seat = realm_knowledge(view)
        seed = rng.getrandbits(SEED_BITS)
        budget = self.budget(view, now)
        if Level.of(seat.level) in INLINE:
            return decide_realm(seat, seed, budget, self.catalog)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, decide_realm, seat, seed, budget, self.catalog
        )

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def __aenter__(self) -> BotPool:
        # Start a worker now (without waiting for it), so the first bot move of the
        # service does not pay for spawning a process inside its budget.
        self._executor.submit(_ready)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
