"""Match starts in PostgreSQL: a pairing, practice or table join recorded with its plan
and a lease; taken over when the lease runs out; settled (started or failed) together
with the tickets, tables and events it concerns, by the current lease holder only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import uuid4

from services.matchmaker import codec
from services.matchmaker.domain import CancelReason, Card, StartKind, StartPlan
from services.matchmaker.store import plans
from services.matchmaker.store.base import (
    Base,
    Hold,
    Request,
    StartRecord,
    StartState,
    started_event,
)
from services.platform.claims import DueWork, next_due, take_due

_START_COLUMNS = "plan::text AS plan, state, lease_token, error"


class _Refused(Exception):
    """Rolls a transaction back when a conditional update found the wrong state."""


class StartRepository(Base):
    async def open_start(
        self, start: StartRecord, lease_until: datetime, request: Request | None, now: datetime
    ) -> bool:
        """Record a start a player asked for (practice, switch, join) under our lease,
        engaging the player and claiming the ticket or table it needs. False (nothing
        written) when that ticket is no longer queued or that table no longer open."""
        plan = start.plan
        human = plan.humans[-1]  # the practising player, or the guest of a table
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await self._remember(conn, request, plan.start_id)
                if plan.kind is StartKind.PRACTICE:
                    await self._engage(conn, human.player_id, Hold.PRACTICE, plan.start_id)
                elif plan.kind is StartKind.SWITCH:
                    claimed = await conn.fetchval(
                        f"UPDATE {self._s}.tickets SET state = 'claimed', start_id = $3 "
                        "WHERE ticket_id = $1 AND player_id = $2 AND state = 'queued' "
                        "RETURNING true",
                        human.ticket_id,
                        human.player_id,
                        plan.start_id,
                    )
                    if not claimed:
                        raise _Refused
                elif plan.kind is StartKind.TABLE:
                    await self._engage(conn, human.player_id, Hold.JOINING, plan.table_id)
                    claimed = await conn.fetchval(
                        f"UPDATE {self._s}.lobby_tables SET state = 'joining', guest_id = $2, "
                        "guest_name = $3 WHERE table_id = $1 AND state = 'open' "
                        "AND expire_at > $4 RETURNING true",
                        plan.table_id,
                        human.player_id,
                        human.name,
                        now,
                    )
                    if not claimed:
                        raise _Refused
                await self.insert_start(conn, plan, lease_until, start.token)
        except _Refused:
            return False
        return True

    async def paired_draft(self, draft_id: str) -> bool:
        """Whether one of our pairings asked for this draft (its start is recorded
        before the draft is created, so a fast DraftCompleted still finds it)."""
        found = await self._pool.fetchval(
            f"SELECT true FROM {self._s}.match_starts "
            "WHERE kind = 'pairing' AND plan->>'draft_id' = $1",
            draft_id,
        )
        return bool(found)

    async def start(self, start_id: str) -> StartRecord | None:
        row = await self._pool.fetchrow(
            f"SELECT {_START_COLUMNS} FROM {self._s}.match_starts WHERE start_id = $1", start_id
        )
        return None if row is None else self._start(row)

    async def claim_due_start(self, now: datetime, lease_until: datetime) -> StartRecord | None:
        """Take over the most overdue pending start whose lease ran out (its replica died
        or hung), with a new lease token: the old holder can no longer record it."""
        rows = await take_due(
            self._pool,
            self._leases,
            now,
            change="lease_token = $3, lease_until = $2, attempts = attempts + 1",
            returning=_START_COLUMNS,
            args=(lease_until, uuid4()),
        )
        return self._start(rows[0]) if rows else None

    async def next_due_start(self) -> datetime | None:
        return await next_due(self._pool, self._leases)

    @property
    def _leases(self) -> DueWork:
        """Pending starts, due when their lease runs out."""
        return DueWork(f"{self._s}.match_starts", "start_id", "lease_until", "state = 'pending'")

    async def take_over(
        self, start_id: str, now: datetime, lease_until: datetime
    ) -> StartRecord | None:
        """Take one pending start whose lease ran out (a retried request found it)."""
        row = await self._pool.fetchrow(
            f"UPDATE {self._s}.match_starts SET lease_token = $4, lease_until = $3, "
            "attempts = attempts + 1 WHERE start_id = $1 AND state = 'pending' "
            f"AND lease_until <= $2 RETURNING {_START_COLUMNS}",
            start_id,
            now,
            lease_until,
            uuid4(),
        )
        return None if row is None else self._start(row)

    def _start(self, row: Any) -> StartRecord:
        return StartRecord(
            plans.plan_from(row["plan"]),
            StartState(row["state"]),
            row["lease_token"],
            row["error"],
        )

    async def _settle(
        self, conn: Any, start: StartRecord, state: StartState, error: str, now: datetime
    ) -> bool:
        done = await conn.fetchval(
            f"UPDATE {self._s}.match_starts SET state = $3, error = $4, finished_at = $5 "
            "WHERE start_id = $1 AND state = 'pending' AND lease_token = $2 RETURNING true",
            start.plan.start_id,
            start.token,
            state.value,
            error,
            now,
        )
        return bool(done)

    async def finish_start(
        self, start: StartRecord, bot_cards: Sequence[Card], now: datetime
    ) -> bool:
        """Record that the match (or draft) exists: tickets paired, table started,
        events appended. False if this lease no longer holds the start."""
        plan = start.plan
        players = [s.player_id for s in plan.humans]
        async with self._pool.acquire() as conn, conn.transaction():
            if not await self._settle(conn, start, StartState.STARTED, "", now):
                return False
            if plan.kind is StartKind.PAIRING:
                await conn.execute(
                    f"UPDATE {self._s}.tickets SET state = 'paired', match_id = $2, "
                    "draft_id = $3, ended_at = $4 WHERE start_id = $1 AND state = 'claimed'",
                    plan.start_id,
                    plan.match_id,
                    plan.draft_id,
                    now,
                )
                for seat in plan.humans:
                    await self._disengage(conn, [seat.player_id], seat.ticket_id)
            elif plan.kind in (StartKind.PRACTICE, StartKind.SWITCH):
                human = plan.humans[0]
                await self._disengage(conn, players, plan.start_id)
                if plan.kind is StartKind.SWITCH:
                    await self._cancel_claimed(
                        conn, human.ticket_id, human.player_id,
                        CancelReason.SWITCHED_TO_PRACTICE, now,
                    )  # fmt: skip
            elif plan.kind is StartKind.TABLE:
                await conn.execute(
                    f"UPDATE {self._s}.lobby_tables SET state = 'started', match_id = $2 "
                    "WHERE table_id = $1 AND state = 'joining'",
                    plan.table_id,
                    plan.match_id,
                )
                await self._disengage(conn, players, plan.table_id)
            if (started := started_event(plan, bot_cards)) is not None:
                await self._append(conn, *started)
            await self._notify(conn, players)
        return True

    async def fail_start(
        self, start: StartRecord, culprits: Mapping[str, str], reason: str, now: datetime
    ) -> bool:
        """Record that the match cannot start because of ``culprits`` (player id -> why):
        their tickets are cancelled (PAIRING_FAILED) saying why; everyone else's claim is
        undone, so an innocent opponent is back in the queue with the wait they had."""
        plan = start.plan
        players = [s.player_id for s in plan.humans]
        async with self._pool.acquire() as conn, conn.transaction():
            if not await self._settle(conn, start, StartState.FAILED, reason, now):
                return False
            if plan.kind is StartKind.PAIRING:
                for seat in plan.humans:
                    if seat.player_id in culprits:
                        await self._cancel_claimed(
                            conn, seat.ticket_id, seat.player_id, CancelReason.PAIRING_FAILED,
                            now, f"your match could not start: {culprits[seat.player_id]}",
                        )  # fmt: skip
            elif plan.kind is StartKind.PRACTICE:
                await self._disengage(conn, players, plan.start_id)
            elif plan.kind is StartKind.TABLE:
                await self._reopen_or_close(conn, plan, culprits)
                await self._disengage(conn, [plan.seats[1].player_id], plan.table_id)
            # Whatever is still claimed by this start goes back to the queue.
            await conn.execute(
                f"UPDATE {self._s}.tickets SET state = 'queued', start_id = NULL "
                "WHERE start_id = $1 AND state = 'claimed'",
                plan.start_id,
            )
            await self._notify(conn, players)
        return True

    async def _cancel_claimed(
        self,
        conn: Any,
        ticket_id: str,
        player_id: str,
        reason: CancelReason,
        now: datetime,
        why: str = "",
    ) -> None:
        done = await conn.fetchval(
            f"UPDATE {self._s}.tickets SET state = 'cancelled', cancel_reason = $2, "
            "ended_at = $3, cancel_message = $4 WHERE ticket_id = $1 AND state = 'claimed' "
            "RETURNING true",
            ticket_id,
            reason.value,
            now,
            why,
        )
        if done:
            await self._disengage(conn, [player_id], ticket_id)
            message = codec.ticket_cancelled(ticket_id, player_id, reason)
            await self._append(conn, f"ticket-{ticket_id}", 1, message)

    async def _reopen_or_close(
        self, conn: Any, plan: StartPlan, culprits: Mapping[str, str]
    ) -> None:
        host = plan.seats[0].player_id
        if host not in culprits:
            await conn.execute(
                f"UPDATE {self._s}.lobby_tables SET state = 'open', guest_id = '', "
                "guest_name = '' WHERE table_id = $1 AND state = 'joining'",
                plan.table_id,
            )
            return
        # The host can no longer play it (a broken deck, another match): nobody could
        # join it, so it closes on the host's behalf.
        await conn.execute(
            f"UPDATE {self._s}.lobby_tables SET state = 'closed', closed_because = $2 "
            "WHERE table_id = $1 AND state = 'joining'",
            plan.table_id,
            culprits[host],
        )
        await self._disengage(conn, [host], plan.table_id)
        await self._append(
            conn,
            f"table-{plan.table_id}",
            1,
            codec.table_closed(plan.table_id, host),
        )
