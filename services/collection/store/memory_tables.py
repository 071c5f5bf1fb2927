"""The tables of the in-memory collection repository (``memory.py``), with the reads
over them and the projection that keeps them in step with the log, checking the rules
PostgreSQL keeps as constraints (``projection.py`` and ``schema.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from dataclasses import dataclass, field, replace
from datetime import datetime

from services.collection import codec
from services.collection.domain import auction, events
from services.collection.domain.events_auction import ListingClose, ListingCreated, ListingSold
from services.collection.domain.seeds import ActiveSeed
from services.collection.domain.wealth import RewardDecision
from services.collection.results import (
    DeckRecord,
    DeckResolved,
)
from services.collection.store.errors import InsufficientBalance
from services.collection.store.projection import ProjectionBroken, trade_row
from services.collection.store.unit import PlayerRow
from services.platform.requests_memory import MemoryRequests


@dataclass(slots=True)
class SeedRow:
    player_id: str
    seed_hash: str
    server_seed: str
    client_seed: str
    committed_at: datetime
    draw_count: int = 0
    revealed_at: datetime | None = None


@dataclass(slots=True)
class TradeRow:
    match_id: str
    winner_id: str
    loser_id: str
    due_at: datetime | None
    opened_at: datetime
    completed_at: datetime | None = None


@dataclass(slots=True)
class DraftRow:
    players: tuple[str, str]
    open: bool
    due_at: datetime | None


@dataclass
class Tables:
    """What PostgreSQL holds, as dictionaries keyed as its tables are."""

    players: dict[str, PlayerRow] = field(default_factory=dict)
    coins_at: dict[str, datetime] = field(default_factory=dict)
    copies: dict[str, tuple[events.OwnedCopy, str]] = field(default_factory=dict)
    """copy id -> (the copy, what created it)"""
    locks: dict[str, tuple[str, events.Holder, datetime]] = field(default_factory=dict)
    """copy id -> (owner, holder, locked at)"""
    decks: dict[str, tuple[str, DeckRecord]] = field(default_factory=dict)
    credits: set[tuple[str, str, str]] = field(default_factory=set)
    seeds: dict[str, SeedRow] = field(default_factory=dict)
    draws: dict[str, tuple[str, events.BoosterDraw]] = field(default_factory=dict)
    trades: dict[str, TradeRow] = field(default_factory=dict)
    drafts: dict[str, DraftRow] = field(default_factory=dict)
    resolutions: dict[tuple[str, str], DeckResolved] = field(default_factory=dict)
    match_rewards: dict[str, tuple[RewardDecision, str, tuple[str, str] | None]] = field(
        default_factory=dict
    )
    listings: dict[str, auction.Listing] = field(default_factory=dict)
    requests: MemoryRequests[object] = field(default_factory=MemoryRequests)
    """Each command's request key with its first result (a frozen dataclass)."""
    streams: dict[str, list[tuple[codec.Encoded, datetime]]] = field(default_factory=dict)
    log: list[tuple[str, codec.Encoded, datetime]] = field(default_factory=list)
    """Every event in commit order: (stream id, payload, recorded at)."""

    def snapshot(self) -> Tables:
        """A copy for one unit of work to change: every table copied, and the rows a unit
        changes in place (players, seeds, trades, drafts); every other value is frozen,
        so it is shared. (A deep copy of it all was a sixth of the handler tests' CPU.)"""
        return Tables(
            players={k: copy(v) for k, v in self.players.items()},
            coins_at=dict(self.coins_at),
            copies=dict(self.copies),
            locks=dict(self.locks),
            decks=dict(self.decks),
            credits=set(self.credits),
            seeds={k: copy(v) for k, v in self.seeds.items()},
            draws=dict(self.draws),
            trades={k: copy(v) for k, v in self.trades.items()},
            drafts={k: copy(v) for k, v in self.drafts.items()},
            resolutions=dict(self.resolutions),
            match_rewards=dict(self.match_rewards),
            listings=dict(self.listings),
            requests=self.requests.snapshot(),
            streams={k: list(v) for k, v in self.streams.items()},
            log=list(self.log),
        )

    # --- the read side, over these tables -------------------------------------------------

    def copies_of(
        self, owner_id: str, copy_ids: Sequence[str] | None
    ) -> dict[str, events.OwnedCopy]:
        wanted = None if copy_ids is None else set(copy_ids)
        found = [
            c
            for c, _ in self.copies.values()
            if c.owner_id == owner_id and (wanted is None or c.copy_id in wanted)
        ]
        return {c.copy_id: c for c in sorted(found, key=lambda c: (c.acquired_at, c.copy_id))}

    def holders(self, copy_ids: Sequence[str]) -> dict[str, events.Holder]:
        return {i: self.locks[i][1] for i in copy_ids if i in self.locks}

    def active_seed(self, player_id: str) -> ActiveSeed | None:
        for seed_id, s in self.seeds.items():
            if s.player_id == player_id and s.revealed_at is None:
                return ActiveSeed(
                    seed_id, s.server_seed, s.seed_hash, s.client_seed, s.draw_count, s.committed_at
                )
        return None

    def stream(self, stream_id: str) -> list[tuple[events.CollectionEvent, datetime]]:
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
    def due(rows: dict[str, TradeRow] | dict[str, DraftRow], now: datetime) -> str | None:
        found = [(r.due_at, key) for key, r in rows.items() if r.due_at and r.due_at <= now]
        return min(found)[1] if found else None

    def due_listing(self, now: datetime) -> str | None:
        found = [
            (x.expires_at, i)
            for i, x in self.listings.items()
            if x.status is auction.ListingStatus.OPEN and x.expires_at <= now
        ]
        return min(found)[1] if found else None

    @staticmethod
    def next_due(rows: dict[str, TradeRow] | dict[str, DraftRow]) -> datetime | None:
        return min((r.due_at for r in rows.values() if r.due_at), default=None)

    # --- the projection -------------------------------------------------------------------

    def project(self, event: events.CollectionEvent, version: int, at: datetime) -> None:
        match event:
            case events.CopyGranted():
                self._insert_copy(event.copy, event.grant_id)
            case events.BoosterOpened():
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
            case events.CurrencyChange():
                row = self.players[event.player_id]
                sign = 1 if isinstance(event, events.CurrencyCredited) else -1
                if row.coins + sign * event.amount < 0:
                    raise InsufficientBalance(
                        "balance too low: a concurrent spend came first (a balance never "
                        "goes negative)"
                    )
                row.coins += sign * event.amount
                self.coins_at[event.player_id] = at
                if isinstance(event, events.CurrencyCredited):
                    credit = (event.player_id, event.reason.value, event.reference_id)
                    if credit in self.credits:
                        raise ProjectionBroken(f"credit {credit} twice")
                    self.credits.add(credit)
            case events.DeckSaved():
                owner, before = self.decks.get(event.deck_id, (event.player_id, None))
                created = at if before is None else before.created_at
                record = DeckRecord(event.deck_id, event.name, event.copy_ids, created, at)
                self.decks[event.deck_id] = (owner, record)
            case events.DeckDeleted():
                self.decks.pop(event.deck_id, None)
            case events.CopiesLocked():
                for copy_id in event.copy_ids:
                    if copy_id in self.locks or copy_id not in self.copies:
                        raise ProjectionBroken(f"copy {copy_id} cannot be locked")
                    self.locks[copy_id] = (event.player_id, event.holder, at)
            case events.CopiesReleased():
                for copy_id in event.copy_ids:
                    if copy_id in self.locks and self.locks[copy_id][1] == event.holder:
                        del self.locks[copy_id]
            case events.TradeOpened():
                if any(t.match_id == event.match_id for t in self.trades.values()):
                    raise ProjectionBroken(f"match {event.match_id} opened two trades")
                self.trades[event.trade_id] = TradeRow(*trade_row(event))
            case events.TradeCardChosen():
                self.trades[event.trade_id].due_at = None
            case events.CopyTransferred():
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
                self.trades[event.trade_id].due_at = None
            case ListingCreated():
                if any(
                    x.copy.copy_id == event.copy.copy_id and x.status is auction.ListingStatus.OPEN
                    for x in self.listings.values()
                ):
                    raise ProjectionBroken(f"copy {event.copy.copy_id} listed twice")
                self.listings[event.listing_id] = auction.Listing(
                    event.listing_id, event.seller_id, event.copy, event.price,
                    event.created_at, event.expires_at,
                )  # fmt: skip
            case ListingClose():
                self._close(event, at)
            case _:
                pass  # seeds and drafts: their rows are written by the unit itself

    def _close(self, event: ListingClose, at: datetime) -> None:
        found = self.listings.get(event.listing_id)
        if found is None or found.status is not auction.ListingStatus.OPEN:
            raise ProjectionBroken(f"listing {event.listing_id} is not open")
        self.listings[event.listing_id] = auction.closed(found, event, at)
        if isinstance(event, ListingSold):
            copy_id = event.copy.copy_id
            held = self.copies.get(copy_id)
            if held is None or held[0].owner_id != event.seller_id:
                raise ProjectionBroken(f"copy {copy_id} is not {event.seller_id}'s to sell")
            self.copies[copy_id] = (event.copy, held[1])

    def _insert_copy(self, made: events.OwnedCopy, origin_id: str) -> None:
        if made.copy_id in self.copies:
            raise ProjectionBroken(f"copy {made.copy_id} made twice")
        self.copies[made.copy_id] = (made, origin_id)
