"""The collection repository: streams over the platform event store, the tables that
follow them (``projection.py``), idempotency keys, and the transactions around them.

One command, one transaction (``Store.run``): the request key is inserted first, so a
retried or concurrent duplicate waits for the first run and then returns its result;
the player rows the command touches are locked (``FOR UPDATE``, in id order, so two
commands never deadlock), events are appended with the expected version of their
stream and projected on the same connection. A conflict rolls everything back and the
command runs again on fresh state.

Streams: ``player-<id>``, ``trade-<id>``, ``draft-<id>``. Event ids are derived from the
stream and version (``uuid5``), so a retried append carries the same ids.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, TypeVar
from uuid import NAMESPACE_URL, UUID, uuid5

import asyncpg
import structlog

from services.collection import mapping
from services.collection.catalog import Catalog
from services.collection.domain import ActiveSeed
from services.collection.events import (
    CollectionEvent,
    Holder,
    OwnedCopy,
)
from services.collection.projection import Tables, project
from services.collection.reads import Reads
from services.platform.errors import Conflict, FailedPrecondition, InvalidArgument
from services.platform.eventstore import NewEvent, PostgresEventStore, WrongExpectedVersion

log = structlog.get_logger()

T = TypeVar("T")
Result = dict[str, Any]


def player_stream(player_id: str) -> str:
    return f"player-{player_id}"


def trade_stream(trade_id: str) -> str:
    return f"trade-{trade_id}"


def draft_stream(draft_id: str) -> str:
    return f"draft-{draft_id}"


def event_id(stream_id: str, version: int) -> UUID:
    return uuid5(NAMESPACE_URL, f"triad:collection:{stream_id}:{version}")


class RequestReused(InvalidArgument):
    pass


class InsufficientBalance(FailedPrecondition):
    """The CHECK constraint refused a debit the domain had allowed (a concurrent spend)."""


@dataclass(frozen=True, slots=True)
class Request:
    """An idempotent request: who (scope), its id, and a fingerprint of its content."""

    scope: str
    request_id: str
    fingerprint: str

    @staticmethod
    def of(scope: str, request_id: str, *content: object) -> Request:
        digest = hashlib.sha256(repr(content).encode()).hexdigest()
        return Request(scope, request_id, digest)


@dataclass(slots=True)
class PlayerRow:
    player_id: str
    version: int
    coins: int
    boosters_since_pity: int
    starter_grant_id: str | None


class Unit:
    """One transaction: lock, read, append and project on one connection."""

    def __init__(self, conn: Any, store: Store) -> None:
        self.conn = conn
        self._store = store
        self._t = store.tables
        self._players: dict[str, PlayerRow] = {}

    @property
    def catalog(self) -> Catalog:
        return self._store.catalog

    async def players(self, *player_ids: str) -> list[PlayerRow]:
        """Lock the players' rows (creating them), in id order; return them as asked."""
        for player_id in sorted(set(player_ids) - self._players.keys()):
            row = await self.conn.fetchrow(
                f"INSERT INTO {self._t.players} (player_id) VALUES ($1) "
                "ON CONFLICT (player_id) DO UPDATE SET player_id = EXCLUDED.player_id "
                "RETURNING version, coins, boosters_since_pity, starter_grant_id",
                player_id,
            )
            self._players[player_id] = PlayerRow(
                player_id,
                row["version"],
                row["coins"],
                row["boosters_since_pity"],
                row["starter_grant_id"],
            )
        return [self._players[p] for p in player_ids]

    async def player(self, player_id: str) -> PlayerRow:
        (row,) = await self.players(player_id)
        return row

    def coins(self, player_id: str) -> int:
        """The balance as this transaction leaves it (the player's row must be locked)."""
        return self._players[player_id].coins

    async def mark_starter(self, player_id: str, grant_id: str) -> None:
        await self.conn.execute(
            f"UPDATE {self._t.players} SET starter_grant_id = $2 WHERE player_id = $1",
            player_id,
            grant_id,
        )
        self._players[player_id].starter_grant_id = grant_id

    async def append_player(self, player_id: str, events: Sequence[CollectionEvent]) -> None:
        row = await self.player(player_id)
        await self.append(player_stream(player_id), row.version, events)
        row.version += len(events)
        await self.conn.execute(
            f"UPDATE {self._t.players} SET version = $2 WHERE player_id = $1",
            player_id,
            row.version,
        )
        for event in events:
            amount = getattr(event, "balance_after", None)
            if isinstance(amount, int):
                row.coins = amount

    async def append(
        self, stream_id: str, expected: int, events: Sequence[CollectionEvent]
    ) -> list[datetime]:
        """Append with the expected version and project each event; when they were recorded."""
        if not events:
            return []
        payloads = [mapping.encode(e) for e in events]
        recorded = await self._store.events.append_in(
            self.conn,
            stream_id,
            expected,
            [
                NewEvent(
                    type=mapping.type_name(p),
                    data=p.SerializeToString(),
                    event_id=event_id(stream_id, expected + n),
                )
                for n, p in enumerate(payloads, start=1)
            ],
        )
        for event, record in zip(events, recorded, strict=True):
            await project(self.conn, self._t, event, record.version, record.recorded_at)
        return [r.recorded_at for r in recorded]

    # --- reads inside the transaction -------------------------------------------------------

    async def copies(
        self, owner_id: str, copy_ids: Sequence[str] | None = None, lock: bool = False
    ) -> dict[str, OwnedCopy]:
        """The player's copies (all, or those of ``copy_ids`` the player owns). With
        ``lock``, their rows stay locked to this transaction: a transfer waits."""
        return await self._store.copies(owner_id, copy_ids, lock, conn=self.conn)

    async def locks(self, copy_ids: Sequence[str]) -> dict[str, Holder]:
        return await self._store.locks(copy_ids, conn=self.conn)

    async def held_by(self, holder: Holder) -> dict[str, list[str]]:
        """The copies ``holder`` locks, by owner."""
        rows = await self.conn.fetch(
            f"SELECT copy_id, owner_id FROM {self._t.locks} "
            "WHERE holder_kind = $1 AND holder_id = $2 ORDER BY copy_id",
            holder.kind.value,
            holder.id,
        )
        found: dict[str, list[str]] = {}
        for row in rows:
            found.setdefault(row["owner_id"], []).append(row["copy_id"])
        return found

    async def deck(self, player_id: str, deck_id: str) -> tuple[str, ...] | None:
        value = await self.conn.fetchval(
            f"SELECT copy_ids FROM {self._t.decks} WHERE deck_id = $1 AND player_id = $2",
            deck_id,
            player_id,
        )
        return None if value is None else tuple(value)

    async def deck_count(self, player_id: str) -> int:
        return int(
            await self.conn.fetchval(
                f"SELECT count(*) FROM {self._t.decks} WHERE player_id = $1", player_id
            )
        )

    async def credited(self, player_id: str, reason: str, reference_id: str) -> bool:
        return bool(
            await self.conn.fetchval(
                f"SELECT EXISTS (SELECT 1 FROM {self._t.credits} WHERE player_id = $1 "
                "AND reason = $2 AND reference_id = $3)",
                player_id,
                reason,
                reference_id,
            )
        )

    async def active_seed(self, player_id: str) -> ActiveSeed | None:
        return await self._store.active_seed(player_id, conn=self.conn)

    async def match_reward(self, match_id: str) -> str | None:
        """The reward decision recorded for a settled match, if any."""
        value = await self.conn.fetchval(
            f"SELECT decision FROM {self._t.match_rewards} WHERE match_id = $1", match_id
        )
        return None if value is None else str(value)

    async def pair_rewarded(self, pair: tuple[str, str], day: str) -> int:
        """How many matches of the pair paid on the UTC day. Exact only while both
        players' rows are locked (``players``): their settlements take turns."""
        return int(
            await self.conn.fetchval(
                f"SELECT count(*) FROM {self._t.match_rewards} WHERE player_low = $1 "
                "AND player_high = $2 AND day = $3 AND decision = 'paid'",
                pair[0],
                pair[1],
                date.fromisoformat(day),
            )
        )

    async def record_match_reward(
        self, match_id: str, decision: str, day: str, pair: tuple[str, str] | None
    ) -> None:
        """Keyed by the match: a concurrent second settlement of it fails and retries."""
        await self.conn.execute(
            f"INSERT INTO {self._t.match_rewards} (match_id, decision, day, player_low, "
            "player_high) VALUES ($1, $2, $3, $4, $5)",
            match_id,
            decision,
            date.fromisoformat(day),
            None if pair is None else pair[0],
            None if pair is None else pair[1],
        )

    async def save_seed(
        self, player_id: str, seed_id: str, server_seed: str, seed_hash: str, client_seed: str,
        now: datetime,
    ) -> None:  # fmt: skip
        await self.conn.execute(
            f"INSERT INTO {self._t.seeds} (seed_id, player_id, seed_hash, server_seed, "
            "client_seed, committed_at) VALUES ($1, $2, $3, $4, $5, $6)",
            seed_id,
            player_id,
            seed_hash,
            server_seed,
            client_seed,
            now,
        )

    async def reveal_seed(self, seed_id: str, now: datetime) -> None:
        await self.conn.execute(
            f"UPDATE {self._t.seeds} SET revealed_at = $2 WHERE seed_id = $1", seed_id, now
        )

    async def resolution(self, player_id: str, purpose_id: str) -> tuple[list[str], bool] | None:
        row = await self.conn.fetchrow(
            f"SELECT copy_ids, random FROM {self._t.resolutions} "
            "WHERE player_id = $1 AND purpose_id = $2",
            player_id,
            purpose_id,
        )
        return None if row is None else (list(row["copy_ids"]), row["random"])

    async def save_resolution(
        self, player_id: str, purpose_id: str, copy_ids: Sequence[str], random: bool
    ) -> None:
        await self.conn.execute(
            f"INSERT INTO {self._t.resolutions} VALUES ($1, $2, $3, $4)",
            player_id,
            purpose_id,
            list(copy_ids),
            random,
        )

    async def stream(self, stream_id: str) -> list[tuple[CollectionEvent, datetime]]:
        return await self._store.stream(stream_id, conn=self.conn)

    async def claim_trade(self, trade_id: str) -> bool:
        """Lock the trade's row: a choice and the deadline's auto-pick take turns."""
        found = await self.conn.fetchval(
            f"SELECT true FROM {self._t.trades} WHERE trade_id = $1 FOR UPDATE", trade_id
        )
        return bool(found)

    async def pending_trade_of(self, player_id: str) -> str | None:
        return await self._store.pending_trade_of(player_id, conn=self.conn)

    async def open_draft_of(self, player_id: str) -> str | None:
        return await self._store.open_draft_of(player_id, conn=self.conn)

    async def claim_draft(self, draft_id: str) -> bool:
        found = await self.conn.fetchval(
            f"SELECT true FROM {self._t.drafts} WHERE draft_id = $1 FOR UPDATE", draft_id
        )
        return bool(found)

    async def save_draft(
        self, draft_id: str, players: tuple[str, str], open_: bool, due_at: datetime | None
    ) -> None:
        """The draft's row: who is in it, whether it is open, when it next needs the server."""
        await self.conn.execute(
            f"INSERT INTO {self._t.drafts} VALUES ($1, $2, $3, $4, $5) ON CONFLICT (draft_id) "
            "DO UPDATE SET open = EXCLUDED.open, due_at = EXCLUDED.due_at",
            draft_id,
            players[0],
            players[1],
            open_,
            due_at,
        )


class Store(Reads):
    def __init__(self, pool: Any, schema: str, catalog: Catalog) -> None:
        self.pool = pool
        self.schema = schema
        self.catalog = catalog
        self.tables = Tables(schema)
        self.events = PostgresEventStore(pool, schema)

    async def run(
        self,
        work: Callable[[Unit], Awaitable[Result]],
        request: Request | None = None,
        attempts: int = 8,
    ) -> Result:
        """Run ``work`` in a transaction of its own until it commits; with ``request``,
        once per request id (a repeat returns the first result without running)."""
        for _ in range(attempts):
            try:
                async with self.pool.acquire() as conn, conn.transaction():
                    if request is not None:
                        seen = await self._claim(conn, request)
                        if seen is not None:
                            return seen
                    result = await work(Unit(conn, self))
                    if request is not None:
                        await conn.execute(
                            f"UPDATE {self.tables.requests} SET result = $3::jsonb "
                            "WHERE scope = $1 AND request_id = $2",
                            request.scope,
                            request.request_id,
                            json.dumps(result),
                        )
                    return result
            except (
                WrongExpectedVersion,
                asyncpg.DeadlockDetectedError,
                asyncpg.SerializationError,
            ) as error:
                log.info("collection command retried", error=str(error))
            except asyncpg.CheckViolationError as error:
                if error.constraint_name == "balance_never_negative":
                    raise InsufficientBalance(
                        "balance too low: a concurrent spend came first (a balance never "
                        "goes negative)"
                    ) from None
                raise
        raise Conflict("the collection is changing too fast; try again")

    async def run_in(self, conn: Any, work: Callable[[Unit], Awaitable[T]]) -> T:
        """Run ``work`` in the caller's open transaction (an idempotent consumer's)."""
        return await work(Unit(conn, self))

    async def _claim(self, conn: Any, request: Request) -> Result | None:
        fresh = await conn.fetchval(
            f"INSERT INTO {self.tables.requests} (scope, request_id, fingerprint) "
            "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING true",
            request.scope,
            request.request_id,
            request.fingerprint,
        )
        if fresh:
            return None
        row = await conn.fetchrow(
            f"SELECT fingerprint, result FROM {self.tables.requests} "
            "WHERE scope = $1 AND request_id = $2",
            request.scope,
            request.request_id,
        )
        if row["fingerprint"] != request.fingerprint:
            raise RequestReused(
                f"request id {request.request_id!r} was already used for a different request; "
                "use a new request id for a new action"
            )
        result: Result = json.loads(row["result"])
        return result
