"""The rating ports in memory: for fast handler tests, held to the same contract as
PostgreSQL (``tests/test_store_contract.py``). One event loop, no real locks needed:
nothing awaits between reading and writing a standing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from uuid import UUID

from services.rating import domain
from services.rating.domain import (
    START_RATING,
    Contestant,
    LadderKey,
    ResultKey,
    Standing,
    Update,
)
from services.rating.read_models import LoggedChange, Placing, Placings, PlayerStanding, Top

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class MemoryRatings:
    """Every ladder, the log and the feeds, as dictionaries."""

    names: dict[str, str] = field(default_factory=dict)
    rows: dict[tuple[LadderKey, str], Standing] = field(default_factory=dict)
    updated: dict[tuple[LadderKey, str], datetime] = field(default_factory=dict)
    buckets: dict[tuple[LadderKey, int], int] = field(default_factory=dict)
    changes: list[LoggedChange] = field(default_factory=list)
    feeds: dict[str, int] = field(default_factory=dict)
    rated: set[tuple[LadderKey, str, str]] = field(default_factory=set)
    """What the log's changes rated, per player: (ladder, player, "match:ID" or
    "draft:ID"), so a lookup does not read the whole log."""

    # ----------------------------------------------------------------- Ladders

    async def lock(
        self, result: ResultKey, players: tuple[Contestant, Contestant]
    ) -> tuple[Standing, Standing] | None:
        for player in players:
            if player.name or player.player_id not in self.names:
                self.names[player.player_id] = player.name
        if any((result.ladder, players[0].player_id, r) in self.rated for r in _results(result)):
            return None  # the log holds both players' changes of a result, or neither
        a, b = (self.rows.get((result.ladder, p.player_id), Standing()) for p in players)
        return a, b

    async def record(
        self, result: ResultKey, event_id: UUID, updates: tuple[Update, Update]
    ) -> tuple[LoggedChange, LoggedChange]:
        key, match_id, draft_id = result.ladder, result.match_id, result.draft_id
        at = EPOCH.replace(microsecond=len(self.changes) % 1_000_000)
        for update in updates:
            me = update.player.player_id
            done = {(key, me, r) for r in _results(result)}
            if done & self.rated:
                raise AssertionError(f"match {match_id} / draft {draft_id} rated twice for {me}")
            self.rated |= done
            self.feeds[me] = self.feeds.get(me, 0) + 1
            self.changes.append(
                LoggedChange(
                    seq=len(self.changes) + 1,
                    player_seq=self.feeds[me],
                    key=key,
                    match_id=match_id,
                    player_id=me,
                    event_id=event_id,
                    opponent_id=update.opponent.player_id,
                    opponent_name=update.opponent.name,
                    rating_before=update.change.before,
                    rating_after=update.change.after,
                    k=update.change.k,
                    expected=update.change.expected,
                    actual=update.change.score,
                    opponent_rating_before=update.opponent_before.rating,
                    games_after=update.after.games,
                    applied_at=at,
                    draft_id=draft_id,
                )
            )
            self.rows[key, me] = update.after
            self.updated[key, me] = at
        for rating, move in domain.bucket_moves(updates):
            self.buckets[key, rating] = self.buckets.get((key, rating), 0) + move
        return self.changes[-2], self.changes[-1]

    # ----------------------------------------------------------------- Reader

    async def standings(self, key: LadderKey, player_ids: Sequence[str]) -> list[PlayerStanding]:
        return [
            PlayerStanding(
                p,
                self.names.get(p, ""),
                self.rows.get((key, p), Standing()),
                self.updated.get((key, p)),
            )
            for p in player_ids
        ]

    async def rank(self, key: LadderKey, rating: int) -> Placing:
        above = total = 0
        for (k, r), n in self.buckets.items():
            if k == key:
                total += n
                above += n if r > rating else 0
        return Placing(above, total)

    async def ranks(self, key: LadderKey, ratings: Sequence[int]) -> Placings:
        ranks, total = domain.ranks_by_rating(
            (r, n) for (k, r), n in self.buckets.items() if k == key
        )
        return Placings({r: ranks[r] - 1 for r in ratings if r in ranks}, total)

    async def top(self, key: LadderKey, n: int) -> Top:
        ranked = sorted(
            ((s.rating, p) for (k, p), s in self.rows.items() if k == key),
            key=lambda rp: (-rp[0], rp[1]),
        )
        return Top(await self.standings(key, [p for _, p in ranked[:n]]), len(ranked))

    async def history(
        self, player_id: str, key: LadderKey, before_player_seq: int, limit: int
    ) -> list[LoggedChange]:
        mine = [
            c
            for c in self.changes
            if c.player_id == player_id and c.key == key and c.player_seq < before_player_seq
        ]
        return sorted(mine, key=lambda c: -c.player_seq)[:limit]

    async def feed(self, player_id: str, after_player_seq: int, limit: int) -> list[LoggedChange]:
        mine = [
            c for c in self.changes if c.player_id == player_id and c.player_seq > after_player_seq
        ]
        return mine[:limit]

    async def feed_head(self, player_id: str) -> int:
        return self.feeds.get(player_id, 0)

    async def log(self) -> list[LoggedChange]:
        return list(self.changes)

    def rating(self, key: LadderKey, player_id: str) -> int:
        return self.rows.get((key, player_id), Standing(START_RATING)).rating


def _results(result: ResultKey) -> list[str]:
    """What rating ``result`` rates: its match, and its draft (a draft counts once, by its
    match or its forfeit)."""
    found = []
    if result.match_id:
        found.append(f"match:{result.match_id}")
    if result.draft_id:
        found.append(f"draft:{result.draft_id}")
    return found
