"""The match repository in memory: the contract of ``postgres.py`` in dictionaries, for
handler tests that run in milliseconds without a database.

Held to the same contract suite as PostgreSQL (``tests/test_store_contract.py``).
Events are stored as their bytes (``codec``) in the platform's in-memory event store
and read back through the codec, as from the log. One event loop and no ``await``
between a save's checks and its writes make each save atomic; a timer claim keeps
other claims off its match, and a move that lands while a claim is held makes the
claim's save lose the race (``WrongExpectedVersion``), as a locked row would make the
move wait and then find the new version.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime

from services.match import domain
from services.match.store.port import (
    Answered,
    PlayerBusy,
    SessionReport,
    TimerClaim,
    Write,
    describe,
    replay,
    stream_id,
)
from services.platform.eventstore import Recorded, WrongExpectedVersion
from services.platform.memstore import InMemoryEventStore
from services.platform.presence import report_wins, take_missed_memory
from services.platform.requests import Request
from services.platform.requests_memory import MemoryRequests


@dataclass(slots=True)
class _Session:
    session_id: str
    opened_at: datetime
    connected: bool
    missed: str | None = None
    away_since: datetime | None = None


@dataclass(frozen=True, slots=True)
class _Claim:
    store: MemoryMatchStore
    match_id: str | None

    async def save(self, before: domain.Match, decision: domain.Decision) -> domain.Match:
        return await self.store.save(before, decision)

    async def refresh_timers(self, match: domain.Match) -> None:
        self.store.refresh_timers(match)


class MemoryMatchStore:
    def __init__(self) -> None:
        self._events = InMemoryEventStore()
        self._cache: dict[str, domain.Match] = {}
        self.timers: dict[str, tuple[datetime, str]] = {}
        """match id -> (earliest due, the timers as operators read them)."""
        self._requests: MemoryRequests[Answered] = MemoryRequests()
        self._active: dict[str, str] = {}
        self._presence: dict[str, _Session] = {}
        self._claimed: set[str] = set()

    async def current(self, match_id: str) -> domain.Match | None:
        cached = self._cache.get(match_id)
        return cached if cached is not None else await self.load(match_id)

    async def load(self, match_id: str, known: int | None = None) -> domain.Match | None:
        cached = self._cache.get(match_id)
        if cached is not None and known is not None and cached.version >= known:
            return cached
        after = cached.version if cached is not None else 0
        state = replay(await self._events.read_stream(stream_id(match_id), after), cached)
        if state is not None:
            self._cache[match_id] = state
        return state

    async def load_at(self, match_id: str, version: int) -> domain.Match | None:
        records = await self._events.read_stream(stream_id(match_id))
        return replay([r for r in records if r.version <= version])

    async def answered(self, request: Request) -> Answered | None:
        return self._requests.answered(request)

    async def active_match(self, player_id: str) -> str | None:
        return self._active.get(player_id)

    async def record_presence(self, report: SessionReport) -> bool:
        known = self._presence.get(report.player_id)
        if not report_wins(known, report.session_id, report.opened_at, report.connected):
            return False
        missed = known.missed if known is not None else None
        away_since = report.away_since
        if known is not None and known.session_id == report.session_id and not known.connected:
            away_since = known.away_since or away_since  # the same end told again
        self._presence[report.player_id] = _Session(
            report.session_id, report.opened_at, report.connected, missed, away_since
        )
        return True

    async def away_since(self, player_id: str) -> datetime | None:
        known = self._presence.get(player_id)
        return None if known is None or known.connected else known.away_since

    async def missed_match(self, player_id: str) -> str | None:
        return take_missed_memory(self._presence.get(player_id))

    async def open_sessions(self, player_ids: Sequence[str]) -> dict[str, str]:
        found = {p: self._presence.get(p) for p in player_ids}
        return {p: s.session_id for p, s in found.items() if s is not None and s.connected}

    async def save(
        self,
        before: domain.Match | None,
        decision: domain.Decision,
        request: Request | None = None,
        correlation_id: str = "",
    ) -> domain.Match:
        write = Write.of(before, decision, request, correlation_id)
        head = len(await self._events.read_stream(write.stream))  # never suspends
        if head != write.expected:
            raise WrongExpectedVersion(write.stream, write.expected, head)
        busy = next((s for s in write.seated if s.player_id in self._active), None)
        if busy is not None:
            raise PlayerBusy.naming(busy.name)
        self._requests.check_new(request)
        # The in-memory store never suspends inside an append: still one step.
        await self._events.append(write.stream, write.expected, write.events)
        self._requests.remember(request, Answered(write.match_id, write.version))
        self._cache[write.match_id] = write.state
        self._written(write)
        return write.state

    def _written(self, write: Write) -> None:
        """The rows besides the events: timers, active matches."""
        if write.due is None:
            self.timers.pop(write.match_id, None)
        else:
            self.timers[write.match_id] = (write.due, write.timers)
        for seat in write.seated:
            self._active[seat.player_id] = write.match_id
        if write.finished:
            for player in [p for p, m in self._active.items() if m == write.match_id]:
                del self._active[player]
                if (known := self._presence.get(player)) is not None and not known.connected:
                    known.missed = write.match_id

    @asynccontextmanager
    async def claim_due(self, now: datetime) -> AsyncIterator[TimerClaim]:
        due = sorted(
            (at, match_id)
            for match_id, (at, _) in self.timers.items()
            if at <= now and match_id not in self._claimed
        )
        if not due:
            yield _Claim(self, None)
            return
        match_id = due[0][1]
        self._claimed.add(match_id)
        try:
            yield _Claim(self, match_id)
        finally:
            self._claimed.discard(match_id)

    def refresh_timers(self, match: domain.Match) -> None:
        timers = domain.deadlines(match)
        if not timers:
            self.timers.pop(match.match_id, None)
        elif match.match_id in self.timers:
            self.timers[match.match_id] = (min(t.due for t in timers), describe(timers))

    async def next_due(self) -> datetime | None:
        return min((at for at, _ in self.timers.values()), default=None)

    async def count_active(self) -> int:
        return len(self.timers)

    async def in_progress(self) -> list[str]:
        return sorted(set(self._active.values()))

    async def records(self, match_id: str, after_version: int, limit: int) -> list[Recorded]:
        return (await self._events.read_stream(stream_id(match_id), after_version))[:limit]

    def forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)
