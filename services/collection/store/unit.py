"""One command's transaction over the collection's repository (``Unit``): lock the
players' rows, read what the decision needs, append events with the expected version of
their stream and project them, all on one connection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from services.collection import codec
from services.collection.domain.catalog import Catalog
from services.collection.domain.events import CollectionEvent, CurrencyChange, Holder, OwnedCopy
from services.collection.domain.seeds import ActiveSeed
from services.collection.domain.wealth import RewardDecision
from services.collection.results import DeckResolved, SeedRecord
from services.collection.schema import Tables
from services.collection.store.projection import project
from services.collection.store.reads_auction import listing_deadlines
from services.platform.claims import DueWork, claim_one
from services.platform.eventstore import NewEvent

if TYPE_CHECKING:
    from services.collection.store import Store


def player_stream(player_id: str) -> str:
    return f"player-{player_id}"


def trade_stream(trade_id: str) -> str:
    return f"trade-{trade_id}"


def draft_stream(draft_id: str) -> str:
    return f"draft-{draft_id}"


def listing_stream(listing_id: str) -> str:
    return f"listing-{listing_id}"


def trade_deadlines(tables: Tables) -> DueWork:
    """Trade One choices waiting for their deadline (a completed trade's is cleared)."""
    return DueWork(tables.trades, "trade_id")


def draft_deadlines(tables: Tables) -> DueWork:
    """Drafts waiting for their next deadline (a pick, a player's inactivity)."""
    return DueWork(tables.drafts, "draft_id")


def event_id(stream_id: str, version: int) -> UUID:
    return uuid5(NAMESPACE_URL, f"triad:collection:{stream_id}:{version}")


@dataclass(slots=True)
class PlayerRow:
    player_id: str
    version: int
    coins: int
    boosters_since_pity: int
    starter_grant_id: str | None


def seed_record(row: Mapping[str, Any]) -> SeedRecord:
    """A ``seeds`` row (its columns by name) as the player may see it: the secret only
    once revealed."""
    return SeedRecord(
        row["seed_id"],
        row["seed_hash"],
        row["server_seed"] if row["revealed_at"] is not None else "",
        row["client_seed"],
        row["draw_count"],
        row["committed_at"],
        row["revealed_at"],
    )


class PostgresUnit:
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
            if isinstance(event, CurrencyChange):
                row.coins = event.balance_after

    async def append(
        self, stream_id: str, expected: int, events: Sequence[CollectionEvent]
    ) -> list[datetime]:
        """Append with the expected version and project each event; when they were recorded."""
        if not events:
            return []
        payloads = [codec.encode(e) for e in events]
        recorded = await self._store.events.append_in(
            self.conn,
            stream_id,
            expected,
            [
                NewEvent(
                    type=p.type,
                    data=p.data,
                    event_id=event_id(stream_id, expected + n),
                    schema_version=p.schema_version,
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

    async def match_reward(self, match_id: str) -> RewardDecision | None:
        """The reward decision recorded for a settled match, if any."""
        value = await self.conn.fetchval(
            f"SELECT decision FROM {self._t.match_rewards} WHERE match_id = $1", match_id
        )
        return None if value is None else RewardDecision(value)

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
        self, match_id: str, decision: RewardDecision, day: str, pair: tuple[str, str] | None
    ) -> None:
        """Keyed by the match: a concurrent second settlement of it fails and retries."""
        await self.conn.execute(
            f"INSERT INTO {self._t.match_rewards} (match_id, decision, day, player_low, "
            "player_high) VALUES ($1, $2, $3, $4, $5)",
            match_id,
            decision.value,
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

    async def resolution(self, player_id: str, purpose_id: str) -> DeckResolved | None:
        row = await self.conn.fetchrow(
            f"SELECT copy_ids, random FROM {self._t.resolutions} "
            "WHERE player_id = $1 AND purpose_id = $2",
            player_id,
            purpose_id,
        )
        return None if row is None else DeckResolved(tuple(row["copy_ids"]), row["random"])

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

    async def due_trade(self, now: datetime) -> str | None:
        """Claim the most overdue trade for this transaction (another replica takes the
        next one)."""
        return await claim_one(self.conn, trade_deadlines(self._t), now)

    async def due_draft(self, now: datetime) -> str | None:
        return await claim_one(self.conn, draft_deadlines(self._t), now)

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

    # --- the Auction House -----------------------------------------------------------------

    async def due_listing(self, now: datetime) -> str | None:
        """Claim the most overdue open listing for its expiry (another replica takes the
        next one)."""
        return await claim_one(self.conn, listing_deadlines(self._t), now)

    async def claim_listing(self, listing_id: str) -> str | None:
        """Lock the listing's row (a sale, a cancel and the expiry take turns); its
        seller, or None if there is no such listing."""
        found = await self.conn.fetchval(
            f"SELECT seller_id FROM {self._t.listings} WHERE listing_id = $1 FOR UPDATE",
            listing_id,
        )
        return None if found is None else str(found)
