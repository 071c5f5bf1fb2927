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
import copy
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TypeVar

from services.collection import codec
from services.collection.domain.catalog import Catalog
from services.collection.domain.events import (
    BoosterDraw,
    BoosterOpened,
    CollectionEvent,
    CopiesLocked,
    CopiesReleased,
    CopyGranted,
    CopyTransferred,
    CurrencyChange,
    CurrencyCredited,
    DeckDeleted,
    DeckSaved,
    Holder,
    HolderKind,
    OwnedCopy,
    TradeCardChosen,
    TradeOpened,
)
from services.collection.domain.seeds import ActiveSeed
from services.collection.domain.wealth import RewardDecision
from services.collection.results import (
    Balance,
    CompletedTrade,
    CopyLock,
    DeckRecord,
    DeckResolved,
    SeedRecord,
)
from services.collection.store.errors import InsufficientBalance
from services.collection.store.projection import ProjectionBroken
from services.collection.store.unit import PlayerRow, player_stream
from services.platform.errors import Conflict
from services.platform.eventstore import WrongExpectedVersion
from services.platform.requests import Request

T = TypeVar("T")


@dataclass(slots=True)
class _Seed:
    player_id: str
    seed_hash: str
    server_seed: str
    client_seed: str
    committed_at: datetime
    draw_count: int = 0
    revealed_at: datetime | None = None


@dataclass(slots=True)
class _Trade:
    match_id: str
    winner_id: str
    loser_id: str
    due_at: datetime | None
    opened_at: datetime
    completed_at: datetime | None = None


@dataclass(slots=True)
class _Draft:
    players: tuple[str, str]
    open: bool
    due_at: datetime | None


@dataclass
class Tables:
    """What PostgreSQL holds, as dictionaries keyed as its tables are."""

    players: dict[str, PlayerRow] = field(default_factory=dict)
    coins_at: dict[str, datetime] = field(default_factory=dict)
    copies: dict[str, tuple[OwnedCopy, str]] = field(default_factory=dict)
    """copy id -> (the copy, what created it)"""
    locks: dict[str, tuple[str, Holder, datetime]] = field(default_factory=dict)
    """copy id -> (owner, holder, locked at)"""
    decks: dict[str, tuple[str, DeckRecord]] = field(default_factory=dict)
    credits: set[tuple[str, str, str]] = field(default_factory=set)
    seeds: dict[str, _Seed] = field(default_factory=dict)
    draws: dict[str, tuple[str, BoosterDraw]] = field(default_factory=dict)
    trades: dict[str, _Trade] = field(default_factory=dict)
    drafts: dict[str, _Draft] = field(default_factory=dict)
    resolutions: dict[tuple[str, str], DeckResolved] = field(default_factory=dict)
    match_rewards: dict[str, tuple[RewardDecision, str, tuple[str, str] | None]] = field(
        default_factory=dict
    )
    requests: dict[tuple[str, str], tuple[str, object]] = field(default_factory=dict)
    streams: dict[str, list[tuple[codec.Encoded, datetime]]] = field(default_factory=dict)
    log: list[tuple[str, codec.Encoded, datetime]] = field(default_factory=list)
    """Every event in commit order: (stream id, payload, recorded at)."""

    # --- the read side, over these tables -------------------------------------------------

    def copies_of(self, owner_id: str, copy_ids: Sequence[str] | None) -> dict[str, OwnedCopy]:
        wanted = None if copy_ids is None else set(copy_ids)
        found = [
            c
            for c, _ in self.copies.values()
            if c.owner_id == owner_id and (wanted is None or c.copy_id in wanted)
        ]
        return {c.copy_id: c for c in sorted(found, key=lambda c: (c.acquired_at, c.copy_id))}

    def holders(self, copy_ids: Sequence[str]) -> dict[str, Holder]:
        return {i: self.locks[i][1] for i in copy_ids if i in self.locks}

    def active_seed(self, player_id: str) -> ActiveSeed | None:
        for seed_id, s in self.seeds.items():
            if s.player_id == player_id and s.revealed_at is None:
                return ActiveSeed(
                    seed_id, s.server_seed, s.seed_hash, s.client_seed, s.draw_count, s.committed_at
                )
        return None

    def stream(self, stream_id: str) -> list[tuple[CollectionEvent, datetime]]:
        return [
            (codec.decode(e.type, e.data, at, e.schema_version), at)
            for e, at in self.streams.get(stream_id, [])
        ]

    def pending_trade_of(self, player_id: str) -> str | None:
        found = [
            (t.opened_at, trade_id)
            for trade_id, t in self.trades.items()
            if t.completed_at is None and player_id in (t.winner_id, t.loser_id)
        ]
        return min(found)[1] if found else None

    def open_draft_of(self, player_id: str) -> str | None:
        found = [i for i, d in self.drafts.items() if d.open and player_id in d.players]
        return min(found) if found else None

    @staticmethod
    def due(rows: dict[str, _Trade] | dict[str, _Draft], now: datetime) -> str | None:
        found = [(r.due_at, key) for key, r in rows.items() if r.due_at and r.due_at <= now]
        return min(found)[1] if found else None

    # --- the projection -------------------------------------------------------------------

    def project(self, event: CollectionEvent, version: int, at: datetime) -> None:
        match event:
            case CopyGranted():
                self._insert_copy(event.copy, event.grant_id)
            case BoosterOpened():
                draw = event.draw
                for made in draw.copies:
                    self._insert_copy(made, draw.draw_id)
                if any(
                    d.seed_id == draw.seed_id and d.counter == draw.counter
                    for _, d in self.draws.values()
                ):
                    raise ProjectionBroken(
                        f"counter {draw.counter} of seed {draw.seed_id} drawn twice"
                    )
                self.draws[draw.draw_id] = (event.player_id, draw)
                self.seeds[draw.seed_id].draw_count += 1
                self.players[event.player_id].boosters_since_pity = event.boosters_since_pity
            case CurrencyChange():
                row = self.players[event.player_id]
                sign = 1 if isinstance(event, CurrencyCredited) else -1
                if row.coins + sign * event.amount < 0:
                    raise InsufficientBalance(
                        "balance too low: a concurrent spend came first (a balance never "
                        "goes negative)"
                    )
                row.coins += sign * event.amount
                self.coins_at[event.player_id] = at
                if isinstance(event, CurrencyCredited):
                    credit = (event.player_id, event.reason.value, event.reference_id)
                    if credit in self.credits:
                        raise ProjectionBroken(f"credit {credit} twice")
                    self.credits.add(credit)
            case DeckSaved():
                owner, before = self.decks.get(event.deck_id, (event.player_id, None))
                created = at if before is None else before.created_at
                record = DeckRecord(event.deck_id, event.name, event.copy_ids, created, at)
                self.decks[event.deck_id] = (owner, record)
            case DeckDeleted():
                self.decks.pop(event.deck_id, None)
            case CopiesLocked():
                for copy_id in event.copy_ids:
                    if copy_id in self.locks or copy_id not in self.copies:
                        raise ProjectionBroken(f"copy {copy_id} cannot be locked")
                    self.locks[copy_id] = (event.player_id, event.holder, at)
            case CopiesReleased():
                for copy_id in event.copy_ids:
                    if copy_id in self.locks and self.locks[copy_id][1] == event.holder:
                        del self.locks[copy_id]
            case TradeOpened():
                if any(t.match_id == event.match_id for t in self.trades.values()):
                    raise ProjectionBroken(f"match {event.match_id} opened two trades")
                self.trades[event.trade_id] = _Trade(
                    event.match_id,
                    event.winner.player_id,
                    event.loser.player_id,
                    event.deadline,
                    event.opened_at,
                )
            case TradeCardChosen():
                self.trades[event.trade_id].due_at = None
            case CopyTransferred():
                found = self.copies.get(event.copy_id)
                if found is None or found[0].owner_id != event.from_player_id:
                    raise ProjectionBroken(
                        f"copy {event.copy_id} is not {event.from_player_id}'s to transfer"
                    )
                moved = replace(
                    found[0],
                    owner_id=event.to_player_id,
                    source=event.copy.source,
                    acquired_at=event.copy.acquired_at,
                )
                self.copies[event.copy_id] = (moved, found[1])
                self.trades[event.trade_id].completed_at = at
            case _:
                pass  # seeds and drafts: their rows are written by the unit itself

    def _insert_copy(self, made: OwnedCopy, origin_id: str) -> None:
        if made.copy_id in self.copies:
            raise ProjectionBroken(f"copy {made.copy_id} made twice")
        self.copies[made.copy_id] = (made, origin_id)


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
        self.t.seeds[seed_id] = _Seed(player_id, seed_hash, server_seed, client_seed, now)

    async def reveal_seed(self, seed_id: str, now: datetime) -> None:
        self.t.seeds[seed_id].revealed_at = now

    async def resolution(self, player_id: str, purpose_id: str) -> DeckResolved | None:
        return self.t.resolutions.get((player_id, purpose_id))

    async def save_resolution(
        self, player_id: str, purpose_id: str, copy_ids: Sequence[str], random: bool
    ) -> None:
        self.t.resolutions[player_id, purpose_id] = DeckResolved(tuple(copy_ids), random)

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
        self.t.drafts[draft_id] = _Draft(before.players if before else players, open_, due_at)


class MemoryStore:
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
                key = None if request is None else (request.scope, request.request_id)
                if request is not None and key in self.tables.requests:
                    fingerprint, first = self.tables.requests[key]
                    request.check(fingerprint)
                    return first  # type: ignore[return-value]
                tables = copy.deepcopy(self.tables)
                try:
                    result = await work(MemoryUnit(tables, self, self._clock()))
                except WrongExpectedVersion:
                    continue
                if request is not None:
                    tables.requests[request.scope, request.request_id] = (
                        request.fingerprint,
                        result,
                    )
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

    async def lock_times(self, copy_ids: Sequence[str]) -> dict[str, CopyLock]:
        locks = self.tables.locks
        return {i: CopyLock(locks[i][1], locks[i][2]) for i in copy_ids if i in locks}

    async def balance(self, player_id: str) -> Balance:
        row = self.tables.players.get(player_id)
        return (
            Balance(0, None)
            if row is None
            else Balance(row.coins, self.tables.coins_at.get(player_id))
        )

    async def boosters_since_pity(self, player_id: str) -> int:
        row = self.tables.players.get(player_id)
        return 0 if row is None else row.boosters_since_pity

    async def decks(self, player_id: str, limit: int, offset: int) -> list[DeckRecord]:
        mine = [d for owner, d in self.tables.decks.values() if owner == player_id]
        mine.sort(key=lambda d: d.deck_id)
        mine.sort(key=lambda d: d.updated_at, reverse=True)
        return mine[offset : offset + limit]

    async def deck(self, player_id: str, deck_id: str) -> DeckRecord | None:
        owner, record = self.tables.decks.get(deck_id, ("", None))
        return record if owner == player_id else None

    async def active_seed(self, player_id: str) -> ActiveSeed | None:
        return self.tables.active_seed(player_id)

    async def seeds(self, player_id: str, limit: int, offset: int) -> list[SeedRecord]:
        mine = [
            SeedRecord(
                seed_id,
                s.seed_hash,
                s.server_seed if s.revealed_at is not None else "",
                s.client_seed,
                s.draw_count,
                s.committed_at,
                s.revealed_at,
            )
            for seed_id, s in self.tables.seeds.items()
            if s.player_id == player_id
        ]
        mine.sort(key=lambda s: s.seed_id)
        mine.sort(key=lambda s: s.committed_at, reverse=True)
        return mine[offset : offset + limit]

    async def draws(
        self, player_id: str, seed_id: str, limit: int, offset: int
    ) -> list[BoosterDraw]:
        mine = [
            d
            for owner, d in self.tables.draws.values()
            if owner == player_id and (not seed_id or d.seed_id == seed_id)
        ]
        mine.sort(key=lambda d: (d.opened_at, d.counter), reverse=True)
        return mine[offset : offset + limit]

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

    async def trades_completed_since(self, player_id: str, after: datetime) -> list[CompletedTrade]:
        found = [
            CompletedTrade(trade_id, t.completed_at)
            for trade_id, t in self.tables.trades.items()
            if player_id in (t.winner_id, t.loser_id)
            and t.completed_at is not None
            and t.completed_at > after
        ]
        return sorted(found, key=lambda c: (c.completed_at, c.trade_id))

    async def open_draft_of(self, player_id: str) -> str | None:
        return self.tables.open_draft_of(player_id)

    async def count_locks(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, holder, _ in self.tables.locks.values():
            counts[holder.kind.value] = counts.get(holder.kind.value, 0) + 1
        return counts
