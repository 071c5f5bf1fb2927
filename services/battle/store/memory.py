"""The battle repository in memory, for handler tests: the platform's in-memory event
store plus dictionaries, held to the PostgreSQL adapter's contract."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from services.battle import codec
from services.battle.domain import BattleState, fold
from services.battle.domain.deadlines import DeadlineKind, deadline
from services.battle.domain.events import Created
from services.battle.store.port import Active, DueTimer, Write
from services.platform.eventstore import Recorded, WrongExpectedVersion
from services.platform.memstore import InMemoryEventStore
from services.platform.presence import report_wins, take_missed_memory
from services.platform.requests import Request
from services.platform.requests_memory import MemoryRequests

PHASES = (DeadlineKind.FORMATION, DeadlineKind.SELECTION)


@dataclass
class _Session:
    session_id: str
    opened_at: datetime
    connected: bool
    missed: str | None = None


class MemoryBattles:
    def __init__(self) -> None:
        self.events = InMemoryEventStore()
        self._timers: dict[tuple[str, DeadlineKind, int], datetime] = {}
        self._requests: MemoryRequests[str] = MemoryRequests()
        self._active: dict[str, Active] = {}
        self._presence: dict[str, _Session] = {}
        self._open: set[str] = set()

    async def load(self, battle_id: str) -> BattleState | None:
        records = await self.events.read_stream(codec.stream_id(battle_id))
        return fold(battle_id, [codec.decode_record(r) for r in records])

    async def current(self, battle_id: str) -> BattleState | None:
        return await self.load(battle_id)

    async def save(self, write: Write) -> None:
        decision, battle_id = write.decision, write.battle_id
        self._requests.check_new(write.request)
        if decision.events:
            current = len(await self.events.read_stream(codec.stream_id(battle_id)))
            if current != decision.before:
                raise WrongExpectedVersion(codec.stream_id(battle_id), decision.before, current)
            players = [s.player_id for s in decision.state.seats]
            new = [
                codec.new_event(battle_id, decision.before + i, e, players)
                for i, e in enumerate(decision.events, start=1)
            ]
            await self.events.append(codec.stream_id(battle_id), decision.before, new)
        state = decision.state
        for kind in PHASES:
            self._timers.pop((battle_id, kind, -1), None)
        for seat in write.settled:
            self._timers.pop((battle_id, DeadlineKind.DISCONNECT, seat), None)
        due = deadline(state)
        if due is not None:
            self._timers[(battle_id, due.kind, -1)] = due.due
        if any(isinstance(e, Created) for e in decision.events):
            self._open.add(battle_id)
            for seat, player in state.humans():
                self._active[player] = Active(battle_id, seat)
        if state.over:
            self._open.discard(battle_id)
            for key in [k for k in self._timers if k[0] == battle_id]:
                del self._timers[key]
            for _, player in state.humans():
                if self._active.get(player, Active("", 0)).battle_id == battle_id:
                    del self._active[player]
                    known = self._presence.get(player)
                    if known is not None and not known.connected:  # as schema.py's trigger
                        known.missed = battle_id
        self._requests.remember(write.request, battle_id)

    async def answered(self, request: Request) -> str | None:
        return self._requests.answered(request)

    async def active_battle(self, player_id: str) -> Active | None:
        return self._active.get(player_id)

    async def record_presence(
        self, player_id: str, session_id: str, connected: bool, opened_at: datetime
    ) -> bool:
        known = self._presence.get(player_id)
        if not report_wins(known, session_id, opened_at, connected):
            return False
        missed = known.missed if known is not None else None
        self._presence[player_id] = _Session(session_id, opened_at, connected, missed)
        return True

    async def missed_battle(self, player_id: str) -> str | None:
        return take_missed_memory(self._presence.get(player_id))

    async def connected(self, player_id: str) -> bool:
        known = self._presence.get(player_id)
        return known is not None and known.connected

    async def set_disconnect(self, battle_id: str, seat: int, due: datetime) -> None:
        self._timers.setdefault((battle_id, DeadlineKind.DISCONNECT, seat), due)

    async def clear_disconnect(self, battle_id: str, seat: int) -> None:
        self._timers.pop((battle_id, DeadlineKind.DISCONNECT, seat), None)

    async def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[DueTimer]:
        due = sorted((when, key) for key, when in self._timers.items() if when <= now)[:limit]
        for _, key in due:
            self._timers[key] = now + lease
        return [DueTimer(k[0], k[1], k[2]) for _, k in due]

    async def next_due(self) -> datetime | None:
        return min(self._timers.values(), default=None)

    async def in_progress(self) -> list[str]:
        return sorted(self._open)

    async def records(self, battle_id: str, after_version: int, limit: int) -> list[Recorded]:
        return (await self.events.read_stream(codec.stream_id(battle_id), after_version))[:limit]
