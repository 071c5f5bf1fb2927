"""Tickets in PostgreSQL: enqueue, cancel, look up, and the pairing round that locks a
queue and claims its pairs (see ``schema.py`` for why this is safe between replicas)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any
from uuid import UUID

from services.matchmaker import codec
from services.matchmaker.domain import CancelReason, Mode, StartPlan, Ticket, TicketState
from services.matchmaker.store.base import Base, Hold, Request, decode_deck, encode_deck

_TICKET_COLUMNS = (
    "ticket_id, player_id, player_name, mode, deck, rating, enqueued_at, state, match_id, "
    "draft_id, cancel_reason, cancel_message, ended_at, start_id"
)


class QueueRound:
    """One pairing round of one queue: the waiting tickets it locked, and claims."""

    def __init__(self, store: Base, conn: Any, tickets: list[Ticket]) -> None:
        self.tickets = tickets
        self._store = store
        self._conn = conn

    async def claim(self, plan: StartPlan, lease_until: datetime, token: UUID) -> None:
        """Claim the plan's tickets for its start (this round holds their locks)."""
        await self._store.insert_start(self._conn, plan, lease_until, token)
        claimed = await self._conn.fetchval(
            f"WITH c AS (UPDATE {self._store.schema_sql}.tickets SET state = 'claimed', "
            "start_id = $1 WHERE ticket_id = ANY($2) AND state = 'queued' RETURNING 1) "
            "SELECT count(*) FROM c",
            plan.start_id,
            list(plan.ticket_ids),
        )
        if claimed != len(plan.ticket_ids):
            raise RuntimeError(f"pairing {plan.start_id} lost a ticket it had locked")


class TicketRepository(Base):
    async def enqueue(self, ticket: Ticket, request: Request) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            await self._remember(conn, request, ticket.ticket_id)
            await self._engage(conn, ticket.player_id, Hold.TICKET, ticket.ticket_id)
            await conn.execute(
                f"INSERT INTO {self._s}.tickets (ticket_id, player_id, player_name, mode, deck, "
                "rating, enqueued_at, state) VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued')",
                ticket.ticket_id,
                ticket.player_id,
                ticket.player_name,
                ticket.mode.value,
                encode_deck(ticket.deck),
                ticket.rating,
                ticket.enqueued_at,
            )
            await self._append(
                conn,
                f"ticket-{ticket.ticket_id}",
                0,
                codec.ticket_queued(ticket),
                request.request_id,
            )
            await self._notify(conn, [ticket.player_id])

    async def cancel(
        self, ticket_id: str, player_id: str, request: Request, now: datetime
    ) -> tuple[Ticket | None, bool]:
        """Cancel a queued ticket: (the ticket, True), or (its state now, False)."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                f"UPDATE {self._s}.tickets SET state = 'cancelled', cancel_reason = 'player', "
                "ended_at = $3 WHERE ticket_id = $1 AND player_id = $2 AND state = 'queued' "
                f"RETURNING {_TICKET_COLUMNS}",
                ticket_id,
                player_id,
                now,
            )
            if row is None:
                # On this connection: another from the pool while holding this one
                # would deadlock a busy pool.
                row = await conn.fetchrow(
                    f"SELECT {_TICKET_COLUMNS} FROM {self._s}.tickets WHERE ticket_id = $1",
                    ticket_id,
                )
                return (None if row is None else self._ticket(row)), False
            await self._remember(conn, request, ticket_id)
            await self._disengage(conn, [player_id], ticket_id)
            await self._append(
                conn,
                f"ticket-{ticket_id}",
                1,
                codec.ticket_cancelled(ticket_id, player_id, CancelReason.PLAYER),
                request.request_id,
            )
            await self._notify(conn, [player_id])
            return self._ticket(row), True

    async def ticket(self, ticket_id: str) -> Ticket | None:
        row = await self._pool.fetchrow(
            f"SELECT {_TICKET_COLUMNS} FROM {self._s}.tickets WHERE ticket_id = $1", ticket_id
        )
        return None if row is None else self._ticket(row)

    async def latest_ticket(self, player_id: str) -> Ticket | None:
        row = await self._pool.fetchrow(
            f"SELECT {_TICKET_COLUMNS} FROM {self._s}.tickets WHERE player_id = $1 "
            "ORDER BY enqueued_at DESC LIMIT 1",
            player_id,
        )
        return None if row is None else self._ticket(row)

    async def queue_lengths(self) -> dict[Mode, int]:
        rows = await self._pool.fetch(
            f"SELECT mode, count(*) AS n FROM {self._s}.tickets "
            "WHERE state = 'queued' GROUP BY mode"
        )
        return {Mode(r["mode"]): int(r["n"]) for r in rows}

    async def queue_length(self, mode: Mode) -> int:
        value = await self._pool.fetchval(
            f"SELECT count(*) FROM {self._s}.tickets WHERE mode = $1 AND state = 'queued'",
            mode.value,
        )
        return int(value)

    async def overdue(self, mode: Mode, before: datetime, limit: int) -> list[str]:
        """Queued tickets of ``mode`` enqueued before ``before`` (read only)."""
        rows = await self._pool.fetch(
            f"SELECT ticket_id FROM {self._s}.tickets WHERE mode = $1 AND state = 'queued' "
            "AND enqueued_at <= $2 ORDER BY enqueued_at LIMIT $3",
            mode.value,
            before,
            limit,
        )
        return [r["ticket_id"] for r in rows]

    @asynccontextmanager
    async def queue_round(self, mode: Mode, limit: int) -> AsyncIterator[QueueRound | None]:
        """Lock the oldest queued tickets of ``mode`` for one transaction; None when
        another replica is pairing this queue right now (it sees the whole queue, so
        splitting it between two would only make worse pairs)."""
        key = int.from_bytes(
            hashlib.sha256(f"triad.pair:{self._schema}:{mode.value}".encode()).digest()[:8],
            "big",
            signed=True,
        )
        async with self._pool.acquire() as conn, conn.transaction():
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", key):
                yield None
                return
            rows = await conn.fetch(
                f"SELECT {_TICKET_COLUMNS} FROM {self._s}.tickets "
                "WHERE mode = $1 AND state = 'queued' ORDER BY enqueued_at LIMIT $2 "
                "FOR UPDATE SKIP LOCKED",
                mode.value,
                limit,
            )
            yield QueueRound(self, conn, [self._ticket(r) for r in rows])

    def _ticket(self, row: Any) -> Ticket:
        return Ticket(
            ticket_id=row["ticket_id"],
            player_id=row["player_id"],
            player_name=row["player_name"],
            mode=Mode(row["mode"]),
            rating=row["rating"],
            enqueued_at=row["enqueued_at"],
            deck=decode_deck(row["deck"]),
            state=TicketState(row["state"]),
            match_id=row["match_id"],
            draft_id=row["draft_id"],
            ended_at=row["ended_at"],
            cancel_reason=CancelReason(row["cancel_reason"]) if row["cancel_reason"] else None,
            cancel_message=row["cancel_message"],
            start_id=row["start_id"] or "",
        )
