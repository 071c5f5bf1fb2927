"""The collection repository in memory: the same port as ``Store`` (PostgreSQL), for
handler tests that run in milliseconds, held to the same contract
(``tests/test_store_contract.py``).

One command at a time (an ``asyncio.Lock``): each runs on a copy of the tables and the
log, which replaces them when it returns and is dropped when it raises, as a
transaction is committed or rolled back. Events are kept as the bytes ``codec.py``
makes, so what is read back is what PostgreSQL would give. The rules PostgreSQL keeps
as constraints (a balance never negative, one owner and one lock per copy, a credit
once per reference) are checked here where the projection applies each event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, TypeVar, get_type_hints

from services.collection import codec, results
from services.collection.domain.catalog import Catalog
from services.collection.domain.events import (
    BoosterDraw,
    CollectionEvent,
    Holder,
    HolderKind,
    OwnedCopy,
)
from services.collection.domain.seeds import ActiveSeed
from services.collection.domain.wealth import RewardDecision
from services.collection.store.memory_auction import MemoryAuctionReads
from services.collection.store.memory_tables import DraftRow, SeedRow, Tables
from services.collection.store.projection import ProjectionBroken
from services.collection.store.unit import PlayerRow, player_stream, seed_record
from services.platform.errors import Conflict
from services.platform.eventstore import WrongExpectedVersion
from services.platform.requests import Request

T = TypeVar("T")


class MemoryUnit:
    """One command's transaction: reads and writes its own copy of the tables."""

    def __init__(self, tables: Tables, store: MemoryStore, now: datetime) -> None:
        self.t = tables
        self._store = store
        self.now = now

    @property
    def catalog(self) -> Catalog:
        return self._store.catalog

    async def players(self, *player_ids: str) -> list[PlayerRow]:
        for player_id in player_ids:
            self.t.players.setdefault(player_id, PlayerRow(player_id, 0, 0, 0, None))
        return [self.t.players[p] for p in player_ids]

    async def player(self, player_id: str) -> PlayerRow:
        (row,) = await self.players(player_id)
        return row

    def coins(self, player_id: str) -> int:
        return self.t.players[player_id].coins

    async def mark_starter(self, player_id: str, grant_id: str) -> None:
        self.t.players[player_id].starter_grant_id = grant_id

    async def append_player(self, player_id: str, events: Sequence[CollectionEvent]) -> None:
        row = await self.player(player_id)
        await self.append(player_stream(player_id), row.version, events)
        row.version += len(events)

    async def append(
        self, stream_id: str, expected: int, events: Sequence[CollectionEvent]
    ) -> list[datetime]:
        if not events:
            return []
        stream = self.t.streams.setdefault(stream_id, [])
        if len(stream) != expected:
            raise WrongExpectedVersion(stream_id, expected, len(stream))
        for event in events:
            encoded = codec.encode(event)
            stream.append((encoded, self.now))
            self.t.log.append((stream_id, encoded, self.now))
            self.t.project(event, len(stream), self.now)
        return [self.now] * len(events)

    async def copies(
        self, owner_id: str, copy_ids: Sequence[str] | None = None, lock: bool = False
    ) -> dict[str, OwnedCopy]:
        return self.t.copies_of(owner_id, copy_ids)

    async def locks(self, copy_ids: Sequence[str]) -> dict[str, Holder]:
        return self.t.holders(copy_ids)

    async def held_by(self, holder: Holder) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for copy_id, (owner, held, _) in sorted(self.t.locks.items()):
            if held == holder:
                found.setdefault(owner, []).append(copy_id)
        return found

    async def deck(self, player_id: str, deck_id: str) -> tuple[str, ...] | None:
        owner, record = self.t.decks.get(deck_id, ("", None))
        return None if record is None or owner != player_id else record.copy_ids

    async def deck_count(self, player_id: str) -> int:
        return sum(1 for owner, _ in self.t.decks.values() if owner == player_id)

    async def credited(self, player_id: str, reason: str, reference_id: str) -> bool:
        return (player_id, reason, reference_id) in self.t.credits

    async def active_seed(self, player_id: str) -> ActiveSeed | None:
        return self.t.active_seed(player_id)

    async def match_reward(self, match_id: str) -> RewardDecision | None:
        found = self.t.match_rewards.get(match_id)
        return None if found is None else found[0]

    async def pair_rewarded(self, pair: tuple[str, str], day: str) -> int:
        return sum(
            1
            for decision, on, paired in self.t.match_rewards.values()
            if paired == pair and on == day and decision is RewardDecision.PAID
        )

    async def record_match_reward(
        self, match_id: str, decision: RewardDecision, day: str, pair: tuple[str, str] | None
    ) -> None:
        if match_id in self.t.match_rewards:
            raise ProjectionBroken(f"match {match_id} rewarded twice")
        self.t.match_rewards[match_id] = (decision, day, pair)

    async def save_seed(
        self, player_id: str, seed_id: str, server_seed: str, seed_hash: str, client_seed: str,
        now: datetime,
    ) -> None:  # fmt: skip
        if self.t.active_seed(player_id) is not None:
            raise ProjectionBroken(f"{player_id} has a seed in force already")
        self.t.seeds[seed_id] = SeedRow(player_id, seed_hash, server_seed, client_seed, now)

    async def reveal_seed(self, seed_id: str, now: datetime) -> None:
        self.t.seeds[seed_id].revealed_at = now

    async def resolution(self, player_id: str, purpose_id: str) -> results.DeckResolved | None:
        return self.t.resolutions.get((player_id, purpose_id))

    async def save_resolution(
        self, player_id: str, purpose_id: str, copy_ids: Sequence[str], random: bool
    ) -> None:
        self.t.resolutions[player_id, purpose_id] = results.DeckResolved(tuple(copy_ids), random)

    async def stream(self, stream_id: str) -> list[tuple[CollectionEvent, datetime]]:
        return self.t.stream(stream_id)

    async def due_trade(self, now: datetime) -> str | None:
        return self.t.due(self.t.trades, now)

    async def due_draft(self, now: datetime) -> str | None:
        return self.t.due(self.t.drafts, now)

    async def claim_trade(self, trade_id: str) -> bool:
        return trade_id in self.t.trades

    async def claim_draft(self, draft_id: str) -> bool:
        return draft_id in self.t.drafts

    async def pending_trade_of(self, player_id: str) -> str | None:
        return self.t.pending_trade_of(player_id)

    async def open_draft_of(self, player_id: str) -> str | None:
        return self.t.open_draft_of(player_id)

    async def save_draft(
        self, draft_id: str, players: tuple[str, str], open_: bool, due_at: datetime | None
    ) -> None:
        before = self.t.drafts.get(draft_id)
        self.t.drafts[draft_id] = DraftRow(before.players if before else players, open_, due_at)

    async def due_listing(self, now: datetime) -> str | None:
        return self.t.due_listing(now)

    async def claim_listing(self, listing_id: str) -> str | None:
        found = self.t.listings.get(listing_id)
        return None if found is None else found.seller_id


def _newest_first(
    items: list[T],
    moment: Callable[[T], tuple[Any, ...]],
    key: Callable[[T], str],
    limit: int,
    after: tuple[Any, ...] | None,
) -> list[T]:
    """A keyset page as ``reads.py`` orders it: newest first (``moment`` descending, then
    ``key`` ascending), ``limit`` of those past ``after`` (a moment, then a key)."""
    if after is not None:
        at, last = after[:-1], after[-1]
        items = [x for x in items if moment(x) < at or (moment(x) == at and key(x) > last)]
    items = sorted(items, key=key)
    items.sort(key=moment, reverse=True)
    return items[:limit]


def _same_kind(first: object, work: Callable[..., Any], request: Request | None) -> None:
    """A recorded result answers a retry only if the retried call makes the same kind of
    result: else the id was used for another kind of call fingerprinted alike."""
    kind = get_type_hints(work)["return"]
    if request is not None and isinstance(kind, type) and not isinstance(first, kind):
        raise request.reused()


class MemoryStore(MemoryAuctionReads):
    """The collection repository in memory (see the module's docstring)."""

    def __init__(self, catalog: Catalog, clock: Callable[[], datetime] | None = None) -> None:
        self.catalog = catalog
        self.tables = Tables()
        self._clock = clock or (lambda: datetime.now(UTC))
        self._turn = asyncio.Lock()

    async def run(
        self,
        work: Callable[[MemoryUnit], Awaitable[T]],
        request: Request | None = None,
        attempts: int = 8,
    ) -> T:
        async with self._turn:
            for _ in range(attempts):
                first = None if request is None else self.tables.requests.answered(request)
                if first is not None:
                    _same_kind(first, work, request)
                    return first  # type: ignore[return-value]
                tables = self.tables.snapshot()
                try:
                    result = await work(MemoryUnit(tables, self, self._clock()))
                except WrongExpectedVersion:
                    continue
                tables.requests.remember(request, result)
                self.tables = tables
                return result
        raise Conflict("the collection is changing too fast; try again")

    async def read(self, work: Callable[[MemoryUnit], Awaitable[T]]) -> T:
        return await work(MemoryUnit(self.tables, self, self._clock()))

    # --- reads ----------------------------------------------------------------------------

    async def copies(
        self, owner_id: str, copy_ids: Sequence[str] | None = None, lock: bool = False
    ) -> dict[str, OwnedCopy]:
        return self.tables.copies_of(owner_id, copy_ids)

    async def copies_by_id(self, copy_ids: Sequence[str]) -> dict[str, OwnedCopy]:
        return {i: self.tables.copies[i][0] for i in copy_ids if i in self.tables.copies}

    async def copies_from(self, origin_id: str) -> list[OwnedCopy]:
        found = [c for c, origin in self.tables.copies.values() if origin == origin_id]
        return sorted(found, key=lambda c: c.copy_id)

    async def locks(self, copy_ids: Sequence[str]) -> dict[str, Holder]:
        return self.tables.holders(copy_ids)

    async def lock_times(self, copy_ids: Sequence[str]) -> dict[str, results.CopyLock]:
        locks = self.tables.locks
        return {i: results.CopyLock(locks[i][1], locks[i][2]) for i in copy_ids if i in locks}

    async def balance(self, player_id: str) -> results.Balance:
        row = self.tables.players.get(player_id)
        return (
            results.Balance(0, None)
            if row is None
            else results.Balance(row.coins, self.tables.coins_at.get(player_id))
        )

    async def boosters_since_pity(self, player_id: str) -> int:
        row = self.tables.players.get(player_id)
        return 0 if row is None else row.boosters_since_pity

    async def decks(
        self, player_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[results.DeckRecord]:
        mine = [d for owner, d in self.tables.decks.values() if owner == player_id]
        return _newest_first(mine, lambda d: (d.updated_at,), lambda d: d.deck_id, limit, after)

    async def deck(self, player_id: str, deck_id: str) -> results.DeckRecord | None:
        owner, record = self.tables.decks.get(deck_id, ("", None))
        return record if owner == player_id else None

    async def active_seed(self, player_id: str) -> ActiveSeed | None:
        return self.tables.active_seed(player_id)

    async def seeds(
        self, player_id: str, limit: int, after: tuple[datetime, str] | None = None
    ) -> list[results.SeedRecord]:
        mine = [
            seed_record({"seed_id": seed_id, **asdict(s)})
            for seed_id, s in self.tables.seeds.items()
            if s.player_id == player_id
        ]
        return _newest_first(mine, lambda s: (s.committed_at,), lambda s: s.seed_id, limit, after)

    async def draws(
        self,
        player_id: str,
        seed_id: str,
        limit: int,
        after: tuple[datetime, int, str] | None = None,
    ) -> list[BoosterDraw]:
        mine = [
            d
            for owner, d in self.tables.draws.values()
            if owner == player_id and (not seed_id or d.seed_id == seed_id)
        ]
        return _newest_first(
            mine, lambda d: (d.opened_at, d.counter), lambda d: d.draw_id, limit, after
        )

    async def draw(self, draw_id: str) -> BoosterDraw | None:
        found = self.tables.draws.get(draw_id)
        return None if found is None else found[1]

    async def stream(self, stream_id: str) -> list[tuple[CollectionEvent, datetime]]:
        return self.tables.stream(stream_id)

    async def settling_match_of(self, player_id: str, current_match_id: str = "") -> str | None:
        found = [
            (at, holder.id)
            for owner, holder, at in self.tables.locks.values()
            if owner == player_id
            and holder.kind is HolderKind.MATCH
            and holder.id != current_match_id
        ]
        return min(found)[1] if found else None

    async def pending_trade_of(self, player_id: str) -> str | None:
        return self.tables.pending_trade_of(player_id)

    async def trades_completed_since(
        self, player_id: str, after: datetime
    ) -> list[results.CompletedTrade]:
        found = [
            results.CompletedTrade(trade_id, t.completed_at)
            for trade_id, t in self.tables.trades.items()
            if player_id in (t.winner_id, t.loser_id)
            and t.completed_at is not None
            and t.completed_at > after
        ]
        return sorted(found, key=lambda c: (c.completed_at, c.trade_id))

    async def open_draft_of(self, player_id: str) -> str | None:
        return self.tables.open_draft_of(player_id)

    async def next_due_trade(self) -> datetime | None:
        return self.tables.next_due(self.tables.trades)

    async def next_due_draft(self) -> datetime | None:
        return self.tables.next_due(self.tables.drafts)

    async def count_locks(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, holder, _ in self.tables.locks.values():
            counts[holder.kind.value] = counts.get(holder.kind.value, 0) + 1
        return counts

    async def count_lock_holders(self) -> dict[str, int]:
        held = {holder for _, holder, _ in self.tables.locks.values()}
        return {kind.value: n for kind in HolderKind if (n := sum(h.kind is kind for h in held))}
