"""The custom-table lobby in PostgreSQL: open, list, close, decline (a challenge) and
expire tables, and Find Game's pick, each change with its event in one transaction.
Joining is a match start (``starts.py``)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from google.protobuf.message import Message

from services.matchmaker import codec
from services.matchmaker.domain import (
    RealmModules,
    RuleSet,
    Table,
    TableFilter,
    TableSettings,
    TableState,
    TradeRule,
    Visibility,
)
from services.matchmaker.store.base import (
    Base,
    Hold,
    Request,
    TableQuery,
    decode_deck,
    encode_deck,
)
from services.platform.claims import DueWork, next_due, take_due

_COLUMNS = (
    "table_id, host_id, host_name, challenged_name, visibility, same, plus, combo, elemental, "
    "same_wall, random_deck, trade_one, host_deck, state, guest_id, guest_name, match_id, "
    "created_at, expire_at, challenged_id, sudden_death, board, blocked, house_hands, trade_rule, "
    "realm, battle, closed_because"
)


class LobbyStore(Base):
    async def create_table(self, table: Table, request: Request) -> None:
        rules = table.settings.rules
        async with self._pool.acquire() as conn, conn.transaction():
            await self._remember(conn, request, table.table_id)
            await self._engage(conn, table.host_id, Hold.TABLE, table.table_id)
            await conn.execute(
                f"INSERT INTO {self._s}.lobby_tables ({_COLUMNS}) VALUES "
                "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'open', '', '', '', "
                "$14, $15, $16, $17, $18, $19, $20, $21, $22, $23, '')",
                table.table_id,
                table.host_id,
                table.host_name,
                table.challenged_name,
                rules.visibility.value,
                rules.same,
                rules.plus,
                rules.combo,
                rules.elemental,
                rules.same_wall,
                table.settings.random_deck,
                rules.trade_one,  # kept for readers older than trade_rule
                encode_deck(table.host_deck),
                table.created_at,
                table.expire_at,
                table.challenged_id,
                rules.sudden_death,
                rules.board,
                rules.blocked,
                rules.house_hands,
                rules.trade.value,
                None if rules.realm is None else rules.realm.text,
                table.settings.battle,
            )
            await self._append(
                conn,
                f"table-{table.table_id}",
                0,
                codec.table_created(table),
                request.request_id,
            )

    async def table(self, table_id: str) -> Table | None:
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM {self._s}.lobby_tables WHERE table_id = $1", table_id
        )
        return None if row is None else _table(row)

    async def hosted_table(self, player_id: str) -> Table | None:
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM {self._s}.lobby_tables WHERE host_id = $1 "
            "AND state IN ('open', 'joining') ORDER BY created_at DESC LIMIT 1",
            player_id,
        )
        return None if row is None else _table(row)

    async def close_table(
        self, table_id: str, host_id: str, request: Request
    ) -> tuple[Table | None, bool]:
        """Close an open table of ``host_id``: (the table, True), or (its state, False)."""
        return await self._end_open_table(
            table_id,
            "closed",
            "host_id",
            host_id,
            request,
            lambda table: codec.table_closed(table_id, table.host_id),
        )

    async def expire_tables(self, now: datetime, limit: int = 100) -> list[Table]:
        """Expire open tables past their time; any replica may run this (SKIP LOCKED)."""
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await take_due(
                conn,
                self._expiries,
                now,
                change="state = 'expired'",
                returning=_COLUMNS,
                limit=limit,
            )
            for row in rows:
                await self._disengage(conn, [row["host_id"]], row["table_id"])
                await self._append(
                    conn, f"table-{row['table_id']}", 1, codec.table_expired(row["table_id"])
                )
        return [_table(r) for r in rows]

    async def next_due_table(self) -> datetime | None:
        return await next_due(self._pool, self._expiries)

    @property
    def _expiries(self) -> DueWork:
        """Open tables, due when they expire."""
        return DueWork(f"{self._s}.lobby_tables", "table_id", "expire_at", "state = 'open'")

    async def decline_table(
        self, table_id: str, player_id: str, request: Request
    ) -> tuple[Table | None, bool]:
        """Decline an open challenge to ``player_id``: (the table, True), or (its state,
        False) with nothing changed."""
        return await self._end_open_table(
            table_id, "declined", "challenged_id", player_id, request, codec.table_declined
        )

    async def _end_open_table(
        self,
        table_id: str,
        state: str,
        by: str,
        player_id: str,
        request: Request,
        event: Callable[[Table], Message],
    ) -> tuple[Table | None, bool]:
        """Move an open table whose column ``by`` is ``player_id`` to ``state``, free its
        host and append ``event(table)``: (the table, True), or (its state, False) with
        nothing changed."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                f"UPDATE {self._s}.lobby_tables SET state = '{state}' WHERE table_id = $1 "
                f"AND {by} = $2 AND state = 'open' RETURNING {_COLUMNS}",
                table_id,
                player_id,
            )
            if row is None:  # read on this connection (see TicketRepository.cancel)
                row = await conn.fetchrow(
                    f"SELECT {_COLUMNS} FROM {self._s}.lobby_tables WHERE table_id = $1",
                    table_id,
                )
                return (None if row is None else _table(row)), False
            table = _table(row)
            await self._remember(conn, request, table_id)
            await self._disengage(conn, [table.host_id], table_id)
            await self._append(conn, f"table-{table_id}", 1, event(table), request.request_id)
            return table, True

    async def oldest_table(
        self, viewer_id: str, filters: TableFilter, now: datetime, skip: Collection[str]
    ) -> Table | None:
        """Find Game's pick: the oldest open public table not hosted by the viewer that
        passes the filters (``challenges_only`` is not read), but none of ``skip``."""
        matches, values = _filter_sql(filters, start=3)
        n = 3 + len(values)  # the first parameter after the filter's
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM {self._s}.lobby_tables "
            "WHERE state = 'open' AND challenged_name = '' AND expire_at > $1 "
            f"AND host_id <> $2 AND {matches} "
            f"AND NOT (table_id = ANY(${n}::text[])) "
            "ORDER BY created_at, table_id LIMIT 1",
            now,
            viewer_id,
            *values,
            sorted(skip),
        )
        return None if row is None else _table(row)

    async def open_tables(self) -> int:
        return int(
            await self._pool.fetchval(
                f"SELECT count(*) FROM {self._s}.lobby_tables WHERE state = 'open'"
            )
        )

    async def list_tables(self, query: TableQuery) -> list[Table]:
        """Open tables the viewer may join, newest first, after a keyset position."""
        after = query.after
        matches, values = _filter_sql(query.filters, start=4)
        n = 4 + len(values)  # the first parameter after the filter's
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM {self._s}.lobby_tables "
            "WHERE state = 'open' AND expire_at > $1 AND host_id <> $2 "
            "AND (challenged_name = '' OR challenged_id = $2 "
            "OR (challenged_id = '' AND challenged_name = $3)) "
            f"AND {matches} "
            f"AND (${n}::boolean IS NULL OR (challenged_name <> '') = ${n}) "
            f"AND (${n + 1}::timestamptz IS NULL OR (created_at, table_id) < (${n + 1}, ${n + 2})) "
            f"ORDER BY created_at DESC, table_id DESC LIMIT ${n + 3}",
            query.now,
            query.viewer_id,
            query.viewer_name,
            *values,
            query.filters.challenges_only,
            after[0] if after else None,
            after[1] if after else "",
            query.limit,
        )
        return [_table(r) for r in rows]


_FLAGS = ("same", "plus", "combo", "elemental", "same_wall", "random_deck", "sudden_death")


def _filter_sql(filters: TableFilter, start: int) -> tuple[str, list[Any]]:
    """The conditions of a table filter that the lobby list and Find Game read alike
    (all but ``challenges_only``), their values numbered from ``$start``. Each is
    "($n IS NULL OR ...)": an unset filter matches everything."""
    flags = [f"(${n}::boolean IS NULL OR {name} = ${n})" for n, name in enumerate(_FLAGS, start)]
    n = start + len(_FLAGS)
    conditions = [
        *flags,
        f"(${n}::text[] IS NULL OR visibility = ANY(${n}))",
        f"(${n + 1}::text[] IS NULL OR trade_rule = ANY(${n + 1}))",
        f"(${n + 2}::smallint[] IS NULL OR board = ANY(${n + 2}))",
        f"(${n + 3}::boolean IS NULL OR house_hands = ${n + 3})",
        f"(${n + 4}::boolean IS NULL OR (realm IS NOT NULL) = ${n + 4})",
        f"(${n + 5}::text IS NULL OR realm = ${n + 5})",
        f"battle = ${n + 6}",
    ]
    values = [
        *(getattr(filters, name) for name in _FLAGS),
        sorted(v.value for v in filters.visibilities) or None,
        sorted(t.value for t in filters.trades) or None,
        sorted(filters.boards) or None,
        filters.house_hands,
        filters.realm,
        None if filters.realm_modules is None else filters.realm_modules.text,
        filters.battles,
    ]
    return " AND ".join(conditions), values


def _table(row: Any) -> Table:
    return Table(
        table_id=row["table_id"],
        host_id=row["host_id"],
        host_name=row["host_name"],
        settings=TableSettings(
            RuleSet(
                Visibility(row["visibility"]),
                row["same"],
                row["plus"],
                row["combo"],
                row["elemental"],
                row["same_wall"],
                TradeRule(row["trade_rule"]),
                sudden_death=row["sudden_death"],
                board=row["board"],
                blocked=row["blocked"],
                house_hands=row["house_hands"],
                realm=None if row["realm"] is None else RealmModules.parse(row["realm"]),
            ),
            row["random_deck"],
            row["battle"],
        ),
        created_at=row["created_at"],
        expire_at=row["expire_at"],
        host_deck=decode_deck(row["host_deck"]),
        challenged_name=row["challenged_name"],
        challenged_id=row["challenged_id"],
        state=TableState(row["state"]),
        match_id=row["match_id"],
        guest_id=row["guest_id"],
        guest_name=row["guest_name"],
        closed_because=row["closed_because"],
    )
