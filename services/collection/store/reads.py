"""The collection's read side: queries over the tables that follow the event log.

Each takes an optional connection: inside a command's transaction (``Unit``) it reads
what that transaction sees, and with ``lock`` keeps the rows it read locked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from services.collection import codec, results
from services.collection.domain.catalog import Catalog
from services.collection.domain.events import (
    BoosterDraw,
    BoosterOpened,
    CollectionEvent,
    Holder,
    HolderKind,
    OwnedCopy,
)
from services.collection.domain.seeds import ActiveSeed
from services.collection.schema import Tables
from services.collection.store.reads_auction import copy_of, keyset
from services.collection.store.unit import draft_deadlines, seed_record, trade_deadlines
from services.platform.claims import next_due
from services.platform.eventstore import PostgresEventStore


class Reads:
    pool: Any
    schema: str
    catalog: Catalog
    tables: Tables
    events: PostgresEventStore

    def _copy(self, row: Mapping[str, Any]) -> OwnedCopy:
        return copy_of(self.catalog, row, "owner_id", "copy_id")

    async def _id(self, conn: Any, sql: str, *args: Any) -> str | None:
        """The one id ``sql`` selects, read on ``conn`` (else the pool); None if no row."""
        value = await (conn or self.pool).fetchval(sql, *args)
        return None if value is None else str(value)

    async def copies(
        self,
        owner_id: str,
        copy_ids: Sequence[str] | None = None,
        lock: bool = False,
        conn: Any = None,
    ) -> dict[str, OwnedCopy]:
        t = self.tables
        sql = f"SELECT * FROM {t.copies} WHERE owner_id = $1"
        args: list[Any] = [owner_id]
        if copy_ids is not None:
            sql += " AND copy_id = ANY($2::text[])"
            args.append(list(copy_ids))
        sql += " ORDER BY acquired_at, copy_id"
        if lock:
            sql += " FOR UPDATE"
        rows = await (conn or self.pool).fetch(sql, *args)
        return {r["copy_id"]: self._copy(r) for r in rows}

    async def copies_by_id(self, copy_ids: Sequence[str]) -> dict[str, OwnedCopy]:
        rows = await self.pool.fetch(
            f"SELECT * FROM {self.tables.copies} WHERE copy_id = ANY($1::text[])", list(copy_ids)
        )
        return {r["copy_id"]: self._copy(r) for r in rows}

    async def copies_from(self, origin_id: str) -> list[OwnedCopy]:
        rows = await self.pool.fetch(
            f"SELECT * FROM {self.tables.copies} WHERE origin_id = $1 ORDER BY copy_id",
            origin_id,
        )
        return [self._copy(r) for r in rows]

    async def locks(self, copy_ids: Sequence[str], conn: Any = None) -> dict[str, Holder]:
        rows = await (conn or self.pool).fetch(
            f"SELECT copy_id, holder_kind, holder_id FROM {self.tables.locks} "
            "WHERE copy_id = ANY($1::text[])",
            list(copy_ids),
        )
        return {r["copy_id"]: Holder(HolderKind(r["holder_kind"]), r["holder_id"]) for r in rows}

    async def lock_times(self, copy_ids: Sequence[str]) -> dict[str, results.CopyLock]:
        rows = await self.pool.fetch(
            f"SELECT * FROM {self.tables.locks} WHERE copy_id = ANY($1::text[])", list(copy_ids)
        )
        return {
            r["copy_id"]: results.CopyLock(
                Holder(HolderKind(r["holder_kind"]), r["holder_id"]), r["locked_at"]
            )
            for r in rows
        }

    async def balance(self, player_id: str) -> results.Balance:
        row = await self.pool.fetchrow(
            f"SELECT coins, coins_updated_at FROM {self.tables.players} WHERE player_id = $1",
            player_id,
        )
        if row is None:
            return results.Balance(0, None)
        return results.Balance(row["coins"], row["coins_updated_at"])

    async def boosters_since_pity(self, player_id: str) -> int:
        value = await self.pool.fetchval(
            f"SELECT boosters_since_pity FROM {self.tables.players} WHERE player_id = $1",
            player_id,
        )
        return int(value or 0)

    @staticmethod
    def _deck(row: Mapping[str, Any]) -> results.DeckRecord:
        return results.DeckRecord(
            row["deck_id"],
            row["name"],
            tuple(row["copy_ids"]),
            row["created_at"],
            row["updated_at"],
        )

    async def decks(
        self, player_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[results.DeckRecord]:
        """The player's decks, last changed first; only those after ``after`` (a keyset
        position: updated_at, deck_id) if given."""
        rows = await self.pool.fetch(
            f"SELECT * FROM {self.tables.decks} WHERE player_id = $1 AND ($3::timestamptz "
            "IS NULL OR updated_at < $3 OR (updated_at = $3 AND deck_id > $4)) "
            "ORDER BY updated_at DESC, deck_id LIMIT $2",
            player_id,
            limit,
            *keyset(after),
        )
        return [self._deck(r) for r in rows]

    async def deck(self, player_id: str, deck_id: str) -> results.DeckRecord | None:
        r = await self.pool.fetchrow(
            f"SELECT * FROM {self.tables.decks} WHERE player_id = $1 AND deck_id = $2",
            player_id,
            deck_id,
        )
        return None if r is None else self._deck(r)

    async def active_seed(self, player_id: str, conn: Any = None) -> ActiveSeed | None:
        row = await (conn or self.pool).fetchrow(
            f"SELECT * FROM {self.tables.seeds} WHERE player_id = $1 AND revealed_at IS NULL",
            player_id,
        )
        if row is None:
            return None
        return ActiveSeed(
            row["seed_id"],
            row["server_seed"],
            row["seed_hash"],
            row["client_seed"],
            row["draw_count"],
            row["committed_at"],
        )

    async def seeds(
        self, player_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[results.SeedRecord]:
        """The player's server seeds, newest first (committed_at, then seed_id); only those
        after ``after`` (a keyset position: committed_at, seed_id) if given. The secret
        only of revealed ones."""
        rows = await self.pool.fetch(
            f"SELECT * FROM {self.tables.seeds} WHERE player_id = $1 AND ($3::timestamptz "
            "IS NULL OR committed_at < $3 OR (committed_at = $3 AND seed_id > $4)) "
            "ORDER BY committed_at DESC, seed_id LIMIT $2",
            player_id,
            limit,
            *keyset(after),
        )
        return [seed_record(r) for r in rows]

    async def draws(
        self,
        player_id: str,
        seed_id: str,
        limit: int,
        after: tuple[datetime, int, str] | None = None,
    ) -> list[BoosterDraw]:
        """A player's booster draws, newest first (opened_at, then counter, both
        descending, then draw_id); ``seed_id``: of that seed only; ``after``: only those
        after that keyset position (opened_at, counter, draw_id)."""
        t = self.tables
        rows = await self.pool.fetch(
            f"SELECT e.type, e.schema_version, e.data, e.recorded_at FROM {t.booster_draws} d "
            f"JOIN {t.events} e ON e.stream_id = 'player-' || d.player_id "
            "AND e.version = d.version WHERE d.player_id = $1 AND ($2 = '' OR d.seed_id = $2) "
            "AND ($4::timestamptz IS NULL OR d.opened_at < $4 OR (d.opened_at = $4 AND "
            "(d.counter < $5 OR (d.counter = $5 AND d.draw_id > $6)))) "
            "ORDER BY d.opened_at DESC, d.counter DESC, d.draw_id LIMIT $3",
            player_id,
            seed_id,
            limit,
            None if after is None else after[0],
            0 if after is None else after[1],
            "" if after is None else after[2],
        )
        return [self._draw(r) for r in rows]

    async def draw(self, draw_id: str) -> BoosterDraw | None:
        t = self.tables
        row = await self.pool.fetchrow(
            f"SELECT e.type, e.schema_version, e.data, e.recorded_at FROM {t.booster_draws} d "
            f"JOIN {t.events} e ON e.stream_id = 'player-' || d.player_id "
            "AND e.version = d.version WHERE d.draw_id = $1",
            draw_id,
        )
        return None if row is None else self._draw(row)

    @staticmethod
    def _draw(row: Mapping[str, Any]) -> BoosterDraw:
        event = codec.decode(
            row["type"], bytes(row["data"]), row["recorded_at"], row["schema_version"]
        )
        assert isinstance(event, BoosterOpened)
        return event.draw

    async def stream(
        self, stream_id: str, conn: Any = None
    ) -> list[tuple[CollectionEvent, datetime]]:
        source = self.events if conn is None else PostgresEventStore(conn, self.schema)
        return [
            (codec.decode(r.type, r.data, r.recorded_at, r.schema_version), r.recorded_at)
            for r in await source.read_stream(stream_id)
        ]

    async def settling_match_of(
        self, player_id: str, current_match_id: str = "", conn: Any = None
    ) -> str | None:
        """A trading match other than ``current_match_id`` that still holds the player's
        copies locked: one being played, or one that ended and that the collection has
        not settled yet (its settlement releases these locks and opens the trade in one
        transaction)."""
        return await self._id(
            conn,
            f"SELECT holder_id FROM {self.tables.locks} WHERE owner_id = $1 "
            "AND holder_kind = $2 AND holder_id <> $3 ORDER BY locked_at LIMIT 1",
            player_id,
            HolderKind.MATCH.value,
            current_match_id,
        )

    async def pending_trade_of(self, player_id: str, conn: Any = None) -> str | None:
        return await self._id(
            conn,
            f"SELECT trade_id FROM {self.tables.trades} WHERE completed_at IS NULL "
            "AND (winner_id = $1 OR loser_id = $1) ORDER BY opened_at LIMIT 1",
            player_id,
        )

    async def trades_completed_since(
        self, player_id: str, after: datetime
    ) -> list[results.CompletedTrade]:
        """(trade id, completion time) of the player's trades completed after ``after``,
        oldest first: what a watcher has not reported yet, however fast they completed."""
        rows = await self.pool.fetch(
            f"SELECT trade_id, completed_at FROM {self.tables.trades} "
            "WHERE (winner_id = $1 OR loser_id = $1) AND completed_at > $2 "
            "ORDER BY completed_at, trade_id",
            player_id,
            after,
        )
        return [results.CompletedTrade(str(row["trade_id"]), row["completed_at"]) for row in rows]

    async def open_draft_of(self, player_id: str, conn: Any = None) -> str | None:
        return await self._id(
            conn,
            f"SELECT draft_id FROM {self.tables.drafts} WHERE open "
            "AND (player_a = $1 OR player_b = $1) LIMIT 1",
            player_id,
        )

    async def next_due_trade(self) -> datetime | None:
        """When the earliest trade choice deadline falls due (None: no trade waits): how
        long the deadline loop may sleep."""
        return await next_due(self.pool, trade_deadlines(self.tables))

    async def next_due_draft(self) -> datetime | None:
        """When the earliest draft deadline falls due (None: no draft waits)."""
        return await next_due(self.pool, draft_deadlines(self.tables))

    async def count_locks(self) -> dict[str, int]:
        rows = await self.pool.fetch(
            f"SELECT holder_kind, count(*) AS n FROM {self.tables.locks} GROUP BY holder_kind"
        )
        return {r["holder_kind"]: r["n"] for r in rows}

    async def count_lock_holders(self) -> dict[str, int]:
        """How many matches, trades and listings hold locks now, by kind: the pending
        trades, whatever the size of the decks they hold."""
        rows = await self.pool.fetch(
            f"SELECT holder_kind, count(DISTINCT holder_id) AS n FROM {self.tables.locks} "
            "GROUP BY holder_kind"
        )
        return {r["holder_kind"]: r["n"] for r in rows}
