"""The battle repository on PostgreSQL: the platform's event store (``events``) and the
tables of ``schema.py``. Saves go through a group commit: those of concurrent commands
share one statement and one transaction (``battle_save_batch()``), each with its own
outcome.

Loading keeps the states it folded (and saving the states it wrote), newest battles
first, and reads only the events after a kept state's version: a cache checked against
the stream on every load, so a battle another replica moved on is caught up, never
served stale. A turn's events carry the whole battle after it, so folding from the
start costs a JSON decode per turn; from the kept state, one per new event."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg

from services.battle import codec
from services.battle.domain import BattleState
from services.battle.domain.deadlines import Deadline, DeadlineKind, deadline
from services.battle.domain.events import Created
from services.battle.domain.state import evolve
from services.battle.store.port import Active, DueTimer, Write
from services.platform.claims import DueWork, next_due, take_due
from services.platform.eventstore import (
    NewEvent,
    PostgresEventStore,
    Recorded,
    WrongExpectedVersion,
    encode_metadata,
)
from services.platform.groupcommit import GroupCommit
from services.platform.migrations import quote_schema
from services.platform.presence import REPORT_WINS, take_missed
from services.platform.requests import Request, RequestSeen, answered


@dataclass(frozen=True, slots=True)
class _Save:
    """A command's write as its group commit's flush needs it."""

    write: Write
    events: list[NewEvent]
    due: Deadline | None
    humans: list[tuple[int, str]]


def timer_id(battle_id: str, kind: DeadlineKind, seat: int) -> str:
    return f"{battle_id}:{kind.value}:{seat}"


KEPT = 20_000
"""Battle states kept in memory (about 20 kB each at turn 10)."""


class PostgresBattles:
    def __init__(self, pool: Any, schema: str, kept: int = KEPT, linger: float = 0.0) -> None:
        self._pool = pool
        self._kept: OrderedDict[str, BattleState] = OrderedDict()
        self._most = kept
        self._s = quote_schema(schema)
        self.events = PostgresEventStore(pool, schema)
        self._timers = DueWork(table=f"{self._s}.battle_timers", key="timer_id")
        self._batch_sql = (
            f"SELECT {self._s}.battle_save_batch($1::integer[], $2::text[], $3::integer[], "
            "$4::uuid[], $5::text[], $6::integer[], $7::bytea[], $8::text[], $9::text[], "
            "$10::text[], $11::timestamptz[], $12::integer[], $13::integer[], $14::boolean[], "
            "$15::boolean[], $16::integer[], $17::text[], $18::integer[], $19::text[], "
            "$20::text[], $21::text[])"
        )
        self._group: GroupCommit[_Save, str] = GroupCommit(self._flush, linger=linger)

    async def current(self, battle_id: str) -> BattleState | None:
        """The kept state if there is one, with no round trip (a command's save checks
        it was current), else the state loaded from the stream."""
        kept = self._kept.get(battle_id)
        return kept if kept is not None else await self.load(battle_id)

    async def load(self, battle_id: str) -> BattleState | None:
        state = self._kept.get(battle_id)
        after = 0 if state is None else state.version
        for record in await self.events.read_stream(codec.stream_id(battle_id), after):
            state = evolve(state, codec.decode_record(record), battle_id)
        if state is not None:
            self._keep(state)
        return state

    def _keep(self, state: BattleState) -> None:
        if state.over:
            self._kept.pop(state.battle_id, None)  # read again at most by a late view
            return
        self._kept[state.battle_id] = state
        self._kept.move_to_end(state.battle_id)
        while len(self._kept) > self._most:
            self._kept.popitem(last=False)

    async def save(self, write: Write) -> None:
        """Written by ``battle_save()`` (schema.py) in a group commit: the commands of
        concurrent callers go in one statement, one transaction (``battle_save_batch()``),
        each with its own outcome."""
        decision, battle_id = write.decision, write.battle_id
        state = decision.state
        players = [seat.player_id for seat in state.seats]
        new = [
            codec.new_event(battle_id, decision.before + i, e, players)
            for i, e in enumerate(decision.events, start=1)
        ]
        created = any(isinstance(e, Created) for e in decision.events)
        outcome = await self._group.submit(
            _Save(write, new, deadline(state), state.humans() if created else [])
        )
        stream = codec.stream_id(battle_id)
        if outcome == "moved":
            raise WrongExpectedVersion(stream, decision.before, None)
        if outcome == "seen":
            raise RequestSeen(write.request.request_id if write.request else "")
        if decision.events:
            self._keep(state)

    async def _flush(self, batch: Sequence[_Save]) -> list[str | BaseException]:
        order = sorted(range(len(batch)), key=lambda i: batch[i].write.battle_id)
        saves = [batch[i] for i in order]
        events = [e for save in saves for e in save.events]
        settled = [seat for save in saves for seat in save.write.settled]
        humans = [h for save in saves for h in save.humans]
        requests = [save.write.request for save in saves]
        try:
            found = await self._pool.fetchval(
                self._batch_sql,
                [len(save.events) for save in saves],
                [codec.stream_id(save.write.battle_id) for save in saves],
                [save.write.decision.before for save in saves],
                [e.event_id for e in events],
                [e.type for e in events],
                [e.schema_version for e in events],
                [e.data for e in events],
                [encode_metadata(e.metadata) for e in events],
                [save.write.battle_id for save in saves],
                [None if save.due is None else save.due.kind.value for save in saves],
                [None if save.due is None else save.due.due for save in saves],
                [len(save.write.settled) for save in saves],
                settled,
                [save.write.decision.state.over for save in saves],
                [bool(save.humans) for save in saves],
                [len(save.humans) for save in saves],
                [player for _, player in humans],
                [seat for seat, _ in humans],
                [None if r is None else r.scope for r in requests],
                [None if r is None else r.request_id for r in requests],
                [None if r is None else r.fingerprint for r in requests],
            )
        except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError):
            found = ["moved"] * len(saves)  # contention: each decides again, as if moved
        outcomes: list[str | BaseException] = ["moved"] * len(batch)
        for i, outcome in zip(order, found, strict=True):
            outcomes[i] = outcome
        return outcomes

    async def answered(self, request: Request) -> str | None:
        row = await answered(self._pool, f"{self._s}.requests", request, "battle_id")
        return None if row is None else str(row["battle_id"])

    async def active_battle(self, player_id: str) -> Active | None:
        row = await self._pool.fetchrow(
            f"SELECT battle_id, seat FROM {self._s}.active WHERE player_id = $1", player_id
        )
        return None if row is None else Active(row["battle_id"], row["seat"])

    async def record_presence(
        self, player_id: str, session_id: str, connected: bool, opened_at: datetime
    ) -> bool:
        changed = await self._pool.fetchval(
            f"INSERT INTO {self._s}.presence AS p VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (player_id) DO UPDATE SET session_id = EXCLUDED.session_id, "
            "opened_at = EXCLUDED.opened_at, connected = EXCLUDED.connected "
            f"WHERE {REPORT_WINS} RETURNING true",
            player_id,
            session_id,
            opened_at,
            connected,
        )
        return bool(changed)

    async def connected(self, player_id: str) -> bool:
        return bool(
            await self._pool.fetchval(
                f"SELECT connected FROM {self._s}.presence WHERE player_id = $1", player_id
            )
        )

    async def missed_battle(self, player_id: str) -> str | None:
        return await take_missed(self._pool, f"{self._s}.presence", "missed_battle_id", player_id)

    async def set_disconnect(self, battle_id: str, seat: int, due: datetime) -> None:
        kind = DeadlineKind.DISCONNECT
        await self._pool.execute(
            f"INSERT INTO {self._s}.battle_timers VALUES ($1, $2, $3, $4, $5) "
            "ON CONFLICT (timer_id) DO NOTHING",
            timer_id(battle_id, kind, seat),
            battle_id,
            kind.value,
            seat,
            due,
        )

    async def clear_disconnect(self, battle_id: str, seat: int) -> None:
        await self._pool.execute(
            f"DELETE FROM {self._s}.battle_timers WHERE timer_id = $1",
            timer_id(battle_id, DeadlineKind.DISCONNECT, seat),
        )

    async def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[DueTimer]:
        rows = await take_due(
            self._pool,
            self._timers,
            now,
            change="due_at = $2",
            returning="battle_id, kind, seat",
            args=(now + lease,),
            limit=limit,
        )
        return [DueTimer(r["battle_id"], DeadlineKind(r["kind"]), r["seat"]) for r in rows]

    async def next_due(self) -> datetime | None:
        return await next_due(self._pool, self._timers)

    async def in_progress(self) -> list[str]:
        rows = await self._pool.fetch(
            f"SELECT battle_id FROM {self._s}.open_battles ORDER BY battle_id"
        )
        return [r["battle_id"] for r in rows]

    async def records(self, battle_id: str, after_version: int, limit: int) -> list[Recorded]:
        """The raw stored events of a battle, for operators."""
        found = await self.events.read_stream(codec.stream_id(battle_id), after_version)
        return found[:limit]
