"""The matchmaker's repository in memory, for handler tests that run in milliseconds.

Held to the same contract as the PostgreSQL adapter (``tests/test_store_contract.py``
runs one suite against both). Each method makes its checks before it changes
anything, and nothing in between awaits, so on one event loop a method is one
transaction: it happens whole or not at all, as a PostgreSQL transaction does. Plans
make the JSON round trip they make through ``match_starts.plan`` and events are
encoded by the codec, so what PostgreSQL could not hold fails here too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime
from uuid import UUID, uuid4

from services.matchmaker import codec
from services.matchmaker.domain import (
    CancelReason,
    Card,
    Mode,
    StartKind,
    StartPlan,
    TableState,
    Ticket,
    TicketState,
)
from services.matchmaker.store import plans
from services.matchmaker.store.base import (
    Engagement,
    Hold,
    Request,
    StartRecord,
    StartState,
    started_event,
)
from services.matchmaker.store.memory_lobby import MemoryLobby, StartEntry


class MemoryRound:
    """One pairing round of one queue in memory (see ``store.tickets.QueueRound``)."""

    def __init__(self, store: MemoryStore, tickets: list[Ticket]) -> None:
        self.tickets = tickets
        self._store = store

    async def claim(self, plan: StartPlan, lease_until: datetime, token: UUID) -> None:
        store = self._store
        if any(store._tickets[t].state is not TicketState.QUEUED for t in plan.ticket_ids):
            raise RuntimeError(f"pairing {plan.start_id} lost a ticket it had locked")
        store._insert_start(plan, lease_until, token)
        for ticket_id in plan.ticket_ids:
            store._set_ticket(ticket_id, plan.start_id, state=TicketState.CLAIMED)


class MemoryStore(MemoryLobby):
    """Tickets, match starts, custom tables, idempotency keys and engaged players, as
    dictionaries; the event log in the platform's in-memory event store. One object
    serves as both ``Context.store`` and ``Context.lobby``."""

    def _set_ticket(self, ticket_id: str, start_id: str | None, **changes: object) -> Ticket:
        ticket = replace(
            self._tickets[ticket_id],
            start_id=start_id or "",
            **changes,  # type: ignore[arg-type]
        )
        self._tickets[ticket_id] = ticket
        return ticket

    async def enqueue(self, ticket: Ticket, request: Request) -> None:
        self._requests.check_new(request)
        self._check_free(ticket.player_id)
        self._requests.remember(request, ticket.ticket_id)
        self._engaged[ticket.player_id] = Engagement(Hold.TICKET, ticket.ticket_id)
        self._tickets[ticket.ticket_id] = replace(ticket, state=TicketState.QUEUED)
        stream = f"ticket-{ticket.ticket_id}"
        await self._append(stream, 0, codec.ticket_queued(ticket), request.request_id)

    async def cancel(
        self, ticket_id: str, player_id: str, request: Request, now: datetime
    ) -> tuple[Ticket | None, bool]:
        ticket = self._tickets.get(ticket_id)
        if (
            ticket is None
            or ticket.player_id != player_id
            or ticket.state is not TicketState.QUEUED
        ):
            return ticket, False
        self._requests.check_new(request)
        self._requests.remember(request, ticket_id)
        cancelled = self._set_ticket(
            ticket_id, None, state=TicketState.CANCELLED, cancel_reason=CancelReason.PLAYER,
            ended_at=now,
        )  # fmt: skip
        self._disengage([player_id], ticket_id)
        message = codec.ticket_cancelled(ticket_id, player_id, CancelReason.PLAYER)
        await self._append(f"ticket-{ticket_id}", 1, message, request.request_id)
        return cancelled, True

    async def ticket(self, ticket_id: str) -> Ticket | None:
        return self._tickets.get(ticket_id)

    async def latest_ticket(self, player_id: str) -> Ticket | None:
        mine = [t for t in self._tickets.values() if t.player_id == player_id]
        return max(mine, key=lambda t: t.enqueued_at, default=None)

    def _queued(self, mode: Mode) -> list[Ticket]:
        queued = [
            t for t in self._tickets.values() if t.mode is mode and t.state is TicketState.QUEUED
        ]
        return sorted(queued, key=lambda t: t.enqueued_at)

    async def queue_lengths(self) -> dict[Mode, int]:
        lengths = {mode: len(self._queued(mode)) for mode in Mode}
        return {mode: n for mode, n in lengths.items() if n}

    async def queue_length(self, mode: Mode) -> int:
        return len(self._queued(mode))

    async def overdue(self, mode: Mode, before: datetime, limit: int) -> list[str]:
        return [t.ticket_id for t in self._queued(mode) if t.enqueued_at <= before][:limit]

    @asynccontextmanager
    async def queue_round(self, mode: Mode, limit: int) -> AsyncIterator[MemoryRound | None]:
        if mode in self._pairing:
            yield None
            return
        self._pairing.add(mode)
        try:
            yield MemoryRound(self, self._queued(mode)[:limit])
        finally:
            self._pairing.discard(mode)

    # ----------------------------------------------------------------- starts

    def _insert_start(self, plan: StartPlan, lease_until: datetime, token: UUID) -> None:
        if plan.start_id in self._starts:
            raise RuntimeError(f"start {plan.start_id} exists")
        kept = plans.plan_from(plans.plan_json(plan))  # what match_starts.plan can hold
        self._starts[plan.start_id] = StartEntry(kept, StartState.PENDING, token, lease_until)

    async def open_start(
        self, start: StartRecord, lease_until: datetime, request: Request | None, now: datetime
    ) -> bool:
        plan = start.plan
        human = plan.humans[-1]
        self._requests.check_new(request)
        if plan.kind is StartKind.PRACTICE:
            self._check_free(human.player_id)
        elif plan.kind is StartKind.SWITCH:
            ticket = self._tickets.get(human.ticket_id)
            if (
                ticket is None
                or ticket.player_id != human.player_id
                or ticket.state is not TicketState.QUEUED
            ):
                return False
        elif plan.kind is StartKind.TABLE:
            self._check_free(human.player_id)
            table = self._tables.get(plan.table_id)
            if table is None or table.state is not TableState.OPEN or table.expire_at <= now:
                return False
        self._requests.remember(request, plan.start_id)
        if plan.kind is StartKind.PRACTICE:
            self._engaged[human.player_id] = Engagement(Hold.PRACTICE, plan.start_id)
        elif plan.kind is StartKind.SWITCH:
            self._set_ticket(human.ticket_id, plan.start_id, state=TicketState.CLAIMED)
        elif plan.kind is StartKind.TABLE:
            self._engaged[human.player_id] = Engagement(Hold.JOINING, plan.table_id)
            self._tables[plan.table_id] = replace(
                self._tables[plan.table_id],
                state=TableState.JOINING,
                guest_id=human.player_id,
                guest_name=human.name,
            )
        self._insert_start(plan, lease_until, start.token)
        return True

    async def paired_draft(self, draft_id: str) -> bool:
        return any(
            s.plan.kind is StartKind.PAIRING and s.plan.draft_id == draft_id
            for s in self._starts.values()
        )

    async def start(self, start_id: str) -> StartRecord | None:
        found = self._starts.get(start_id)
        return None if found is None else found.record()

    def _take(self, start: StartEntry, lease_until: datetime) -> StartRecord:
        start.token, start.lease_until = uuid4(), lease_until
        start.attempts += 1
        return start.record()

    async def claim_due_start(self, now: datetime, lease_until: datetime) -> StartRecord | None:
        due = [
            s
            for s in self._starts.values()
            if s.state is StartState.PENDING and s.lease_until <= now
        ]
        if not due:
            return None
        return self._take(min(due, key=lambda s: s.lease_until), lease_until)

    async def next_due_start(self) -> datetime | None:
        pending = (s.lease_until for s in self._starts.values() if s.state is StartState.PENDING)
        return min(pending, default=None)

    async def take_over(
        self, start_id: str, now: datetime, lease_until: datetime
    ) -> StartRecord | None:
        start = self._starts.get(start_id)
        if start is None or start.state is not StartState.PENDING or start.lease_until > now:
            return None
        return self._take(start, lease_until)

    def _holds(self, record: StartRecord) -> StartEntry | None:
        start = self._starts.get(record.plan.start_id)
        if start is None or start.state is not StartState.PENDING or start.token != record.token:
            return None
        return start

    async def finish_start(
        self, record: StartRecord, bot_cards: Sequence[Card], now: datetime
    ) -> bool:
        start = self._holds(record)
        if start is None:
            return False
        plan = record.plan
        players = [s.player_id for s in plan.humans]
        start.state = StartState.STARTED
        if plan.kind is StartKind.PAIRING:
            for ticket in list(self._tickets.values()):
                if ticket.start_id == plan.start_id and ticket.state is TicketState.CLAIMED:
                    self._set_ticket(
                        ticket.ticket_id, plan.start_id, state=TicketState.PAIRED,
                        match_id=plan.match_id, draft_id=plan.draft_id, ended_at=now,
                    )  # fmt: skip
            for seat in plan.humans:
                self._disengage([seat.player_id], seat.ticket_id)
        elif plan.kind in (StartKind.PRACTICE, StartKind.SWITCH):
            human = plan.humans[0]
            self._disengage(players, plan.start_id)
            if plan.kind is StartKind.SWITCH:
                await self._cancel_claimed(
                    human.ticket_id, human.player_id, CancelReason.SWITCHED_TO_PRACTICE, now
                )
        elif plan.kind is StartKind.TABLE:
            table = self._tables[plan.table_id]
            if table.state is TableState.JOINING:
                self._tables[plan.table_id] = replace(
                    table, state=TableState.STARTED, match_id=plan.match_id
                )
            self._disengage(players, plan.table_id)
        if (started := started_event(plan, bot_cards)) is not None:
            await self._append(*started)
        return True

    async def fail_start(
        self, record: StartRecord, culprits: Mapping[str, str], reason: str, now: datetime
    ) -> bool:
        start = self._holds(record)
        if start is None:
            return False
        plan = record.plan
        start.state, start.error = StartState.FAILED, reason
        if plan.kind is StartKind.PAIRING:
            for seat in plan.humans:
                if seat.player_id in culprits:
                    await self._cancel_claimed(
                        seat.ticket_id, seat.player_id, CancelReason.PAIRING_FAILED, now,
                        f"your match could not start: {culprits[seat.player_id]}",
                    )  # fmt: skip
        elif plan.kind is StartKind.PRACTICE:
            self._disengage([s.player_id for s in plan.humans], plan.start_id)
        elif plan.kind is StartKind.TABLE:
            await self._reopen_or_close(plan, culprits)
            self._disengage([plan.seats[1].player_id], plan.table_id)
        for ticket in list(self._tickets.values()):
            if ticket.start_id == plan.start_id and ticket.state is TicketState.CLAIMED:
                self._set_ticket(ticket.ticket_id, None, state=TicketState.QUEUED)
        return True

    async def _cancel_claimed(
        self, ticket_id: str, player_id: str, reason: CancelReason, now: datetime, why: str = ""
    ) -> None:
        ticket = self._tickets.get(ticket_id)
        if ticket is None or ticket.state is not TicketState.CLAIMED:
            return
        self._set_ticket(
            ticket_id, ticket.start_id, state=TicketState.CANCELLED,
            cancel_reason=reason, ended_at=now, cancel_message=why,
        )  # fmt: skip
        self._disengage([player_id], ticket_id)
        await self._append(
            f"ticket-{ticket_id}", 1, codec.ticket_cancelled(ticket_id, player_id, reason)
        )

    async def _reopen_or_close(self, plan: StartPlan, culprits: Mapping[str, str]) -> None:
        table = self._tables[plan.table_id]
        if table.state is not TableState.JOINING:
            return
        host = plan.seats[0].player_id
        if host not in culprits:
            self._tables[plan.table_id] = replace(
                table, state=TableState.OPEN, guest_id="", guest_name=""
            )
            return
        self._tables[plan.table_id] = replace(
            table, state=TableState.CLOSED, closed_because=culprits[host]
        )
        self._disengage([host], plan.table_id)
        await self._append(f"table-{plan.table_id}", 1, codec.table_closed(plan.table_id, host))
