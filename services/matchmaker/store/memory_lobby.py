"""The in-memory adapter's shared state (idempotency keys, engaged players, the event
log) and its lobby of custom tables; ``memory.py`` adds tickets and match starts."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID

from google.protobuf.message import Message

from services.matchmaker import codec
from services.matchmaker.domain import Mode, StartPlan, Table, TableFilter, TableState, Ticket
from services.matchmaker.store.base import (
    Engaged,
    Engagement,
    Hold,
    LoggedEvent,
    Request,
    StartRecord,
    StartState,
    TableQuery,
    new_event,
)
from services.platform.memstore import InMemoryEventStore
from services.platform.requests_memory import MemoryRequests


@dataclass
class StartEntry:
    """A match start as the in-memory adapter holds it (a ``match_starts`` row)."""

    plan: StartPlan
    state: StartState
    token: UUID
    lease_until: datetime
    error: str = ""
    attempts: int = 0

    def record(self) -> StartRecord:
        return StartRecord(self.plan, self.state, self.token, self.error)


class MemoryShared:
    """The in-memory adapter's state and what its parts share: idempotency keys,
    engaged players and the event log (the platform's in-memory event store)."""

    def __init__(self) -> None:
        self._events = InMemoryEventStore()
        self._requests: MemoryRequests[str] = MemoryRequests()
        self._engaged: dict[str, Engagement] = {}
        self._tickets: dict[str, Ticket] = {}
        self._starts: dict[str, StartEntry] = {}
        self._tables: dict[str, Table] = {}
        self._pairing: set[Mode] = set()

    async def answered(self, request: Request) -> str | None:
        return self._requests.answered(request)

    async def forget(self, request: Request) -> None:
        self._requests.forget(request)

    async def engagement(self, player_id: str) -> Engagement | None:
        return self._engaged.get(player_id)

    async def appended(self) -> list[LoggedEvent]:
        records = await self._events.read_all(limit=1_000_000)
        return [
            LoggedEvent(r.stream_id, r.version, r.type, r.schema_version, r.data) for r in records
        ]

    def _check_free(self, player_id: str) -> None:
        if player_id in self._engaged:
            raise Engaged(self._engaged[player_id])

    def _disengage(self, player_ids: Collection[str], ref_id: str) -> None:
        for player_id in player_ids:
            held = self._engaged.get(player_id)
            if held is not None and held.ref_id == ref_id:
                del self._engaged[player_id]

    async def _append(
        self, stream_id: str, expected: int, message: Message, correlation: str = ""
    ) -> None:
        event = new_event(stream_id, expected, message, correlation)
        await self._events.append(stream_id, expected, [event])


class MemoryLobby(MemoryShared):
    """Custom tables in memory (the ``Lobby`` port)."""

    async def create_table(self, table: Table, request: Request) -> None:
        self._requests.check_new(request)
        self._check_free(table.host_id)
        self._requests.remember(request, table.table_id)
        self._engaged[table.host_id] = Engagement(Hold.TABLE, table.table_id)
        self._tables[table.table_id] = replace(
            table, state=TableState.OPEN, match_id="", guest_id="", guest_name=""
        )
        await self._append(
            f"table-{table.table_id}", 0, codec.table_created(table), request.request_id
        )

    async def table(self, table_id: str) -> Table | None:
        return self._tables.get(table_id)

    async def hosted_table(self, player_id: str) -> Table | None:
        hosted = [
            t for t in self._tables.values()
            if t.host_id == player_id and t.state in (TableState.OPEN, TableState.JOINING)
        ]  # fmt: skip
        return max(hosted, key=lambda t: t.created_at, default=None)

    async def close_table(
        self, table_id: str, host_id: str, request: Request
    ) -> tuple[Table | None, bool]:
        table = self._tables.get(table_id)
        if table is None or table.host_id != host_id or table.state is not TableState.OPEN:
            return table, False
        self._requests.check_new(request)
        self._requests.remember(request, table_id)
        closed = self._tables[table_id] = replace(table, state=TableState.CLOSED)
        self._disengage([host_id], table_id)
        await self._append(
            f"table-{table_id}", 1, codec.table_closed(table_id, host_id), request.request_id
        )
        return closed, True

    async def expire_tables(self, now: datetime, limit: int = 100) -> list[Table]:
        due = sorted(
            (t for t in self._tables.values() if t.state is TableState.OPEN and t.expire_at <= now),
            key=lambda t: t.expire_at,
        )[:limit]
        expired = []
        for table in due:
            expired.append(replace(table, state=TableState.EXPIRED))
            self._tables[table.table_id] = expired[-1]
            self._disengage([table.host_id], table.table_id)
            await self._append(f"table-{table.table_id}", 1, codec.table_expired(table.table_id))
        return expired

    async def next_due_table(self) -> datetime | None:
        open_ = (t.expire_at for t in self._tables.values() if t.state is TableState.OPEN)
        return min(open_, default=None)

    async def decline_table(
        self, table_id: str, player_id: str, request: Request
    ) -> tuple[Table | None, bool]:
        table = self._tables.get(table_id)
        if (
            table is None
            or not table.challenged_id
            or table.challenged_id != player_id
            or table.state is not TableState.OPEN
        ):
            return table, False
        self._requests.check_new(request)
        self._requests.remember(request, table_id)
        declined = self._tables[table_id] = replace(table, state=TableState.DECLINED)
        self._disengage([table.host_id], table_id)
        await self._append(
            f"table-{table_id}", 1, codec.table_declined(declined), request.request_id
        )
        return declined, True

    async def oldest_table(
        self, viewer_id: str, filters: TableFilter, now: datetime, skip: Collection[str]
    ) -> Table | None:
        found = [
            t for t in self._tables.values()
            if not t.challenged_name and t.table_id not in skip
            and _passes(t, viewer_id, filters, now)
        ]  # fmt: skip
        return min(found, key=lambda t: (t.created_at, t.table_id), default=None)

    async def open_tables(self) -> int:
        return sum(1 for t in self._tables.values() if t.state is TableState.OPEN)

    async def list_tables(self, query: TableQuery) -> list[Table]:
        viewer_id, filters, after = query.viewer_id, query.filters, query.after

        def shown(t: Table) -> bool:
            return (
                _passes(t, viewer_id, filters, query.now)
                and (not t.challenged_name or t.challenges(viewer_id, query.viewer_name))
                and filters.challenges_only in (None, bool(t.challenged_name))
                and (after is None or (t.created_at, t.table_id) < after)
            )

        found = sorted(
            filter(shown, self._tables.values()),
            key=lambda t: (t.created_at, t.table_id),
            reverse=True,
        )
        return found[: query.limit]


def _passes(t: Table, viewer_id: str, filters: TableFilter, now: datetime) -> bool:
    """An open table, not the viewer's, with the rules the filters ask for."""
    rules = t.settings.rules
    flags = {
        "same": rules.same, "plus": rules.plus, "combo": rules.combo,
        "elemental": rules.elemental, "same_wall": rules.same_wall,
        "random_deck": t.settings.random_deck, "sudden_death": rules.sudden_death,
    }  # fmt: skip
    return (
        t.state is TableState.OPEN
        and t.expire_at > now
        and t.host_id != viewer_id
        and all(getattr(filters, k) in (None, v) for k, v in flags.items())
        and (not filters.visibilities or rules.visibility in filters.visibilities)
        and (not filters.trades or rules.trade in filters.trades)
        and (not filters.boards or rules.board in filters.boards)
        and filters.house_hands in (None, rules.house_hands)
        and filters.realm in (None, rules.realm is not None)
        and filters.realm_modules in (None, rules.realm)
        and t.settings.battle == filters.battles
    )
