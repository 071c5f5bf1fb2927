"""The rating service's PostgreSQL adapters: the write side (``PostgresLadders``, on the
consumer's connection and transaction) and the read side (``RatingReader``, on the
pool). The tables, their keys and their lock order are in ``schema.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from services.platform.migrations import quote_schema
from services.rating.domain import (
    START_RATING,
    Contestant,
    Ladder,
    LadderKey,
    ResultKey,
    Standing,
    Update,
    bucket_moves,
)
from services.rating.read_models import LoggedChange, Placing, Placings, PlayerStanding, Top


class PostgresLadders:
    """The write side, on one connection inside the caller's transaction."""

    def __init__(self, conn: Any, schema: str) -> None:
        self._conn = conn
        q = quote_schema(schema)
        self._lock = f"SELECT * FROM {q}.rating_lock($1, $2, $3, $4, $5, $6)"
        self._record = (
            f"SELECT {q}.rating_record($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
            "$13, $14, $15, $16, $17, $18, $19, $20)"
        )
        # What rating_record just logged: each player's newest change in their feed (the
        # players stay locked until the transaction ends, so no other change is newer).
        self._recorded = (
            f"SELECT {_columns('c')} FROM unnest($1::text[]) WITH ORDINALITY AS u(id, ord) "
            f"JOIN {q}.players p ON p.player_id = u.id "
            f"JOIN {q}.rating_changes c ON c.player_id = u.id AND c.player_seq = p.changes "
            "ORDER BY u.ord"
        )

    async def lock(
        self, result: ResultKey, players: tuple[Contestant, Contestant]
    ) -> tuple[Standing, Standing] | None:
        rows = await self._conn.fetch(
            self._lock,
            *_result(result),
            [p.player_id for p in players],
            [p.name for p in players],
        )
        if not rows:
            return None  # rated already
        found = {r["player_id"]: _standing(r) for r in rows}
        return found[players[0].player_id], found[players[1].player_id]

    async def record(
        self, result: ResultKey, event_id: UUID, updates: tuple[Update, Update]
    ) -> tuple[LoggedChange, LoggedChange]:
        buckets = bucket_moves(updates)
        # One array per column of the function's unnest, both players in each.
        columns = zip(*(_update_row(u) for u in updates), strict=True)
        await self._conn.execute(
            self._record,
            *_result(result),
            event_id,
            *(list(column) for column in columns),
            [rating for rating, _ in buckets],
            [move for _, move in buckets],
        )
        rows = await self._conn.fetch(self._recorded, [u.player.player_id for u in updates])
        first, second = (_logged(r) for r in rows)
        return first, second


def _result(result: ResultKey) -> tuple[str, int, str, str]:
    """The result's parameters, as both functions take them first."""
    key = result.ladder
    return key.ladder.value, key.season, result.match_id, result.draft_id


def _update_row(u: Update) -> tuple[Any, ...]:
    """One player's row of rating_record's arrays, in its parameters' order."""
    return (
        u.player.player_id,
        u.opponent.player_id,
        u.opponent.name,
        u.change.before,
        u.change.after,
        u.change.k,
        u.change.expected,
        u.change.score,
        u.opponent_before.rating,
        u.after.games,
        u.after.wins,
        u.after.losses,
        u.after.draws,
    )


_CHANGE_COLUMNS = (
    "seq, player_seq, ladder, season, match_id, draft_id, player_id, event_id, opponent_id, "
    "opponent_name, rating_before, rating_after, k_factor, expected_score, actual_score, "
    "opponent_rating_before, games_after, applied_at"
)


def _columns(alias: str) -> str:
    """The change columns, each qualified by ``alias``."""
    return ", ".join(f"{alias}.{c.strip()}" for c in _CHANGE_COLUMNS.split(","))


class RatingReader:
    """The read side, on the pool: standings, ranks, the top N, history, feeds."""

    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        q = quote_schema(schema)
        # One primary-key lookup per player and table: each LIMIT keeps its subquery
        # from being flattened into a join a cached plan could run as a ladder scan.
        self._standings = (
            "SELECT u.id AS player_id, coalesce(p.player_name, '') AS player_name, r.rating, "
            "r.games, r.wins, r.losses, r.draws, r.updated_at "
            "FROM unnest($3::text[]) WITH ORDINALITY AS u(id, ord) "
            "LEFT JOIN LATERAL ("
            f"  SELECT x.player_name FROM {q}.players x WHERE x.player_id = u.id LIMIT 1"
            ") p ON true "
            "LEFT JOIN LATERAL ("
            "  SELECT x.rating, x.games, x.wins, x.losses, x.draws, x.updated_at "
            f"  FROM {q}.ratings x "
            "  WHERE x.ladder = $1 AND x.season = $2 AND x.player_id = u.id LIMIT 1"
            ") r ON true "
            "ORDER BY u.ord"
        )
        # Cumulative sums over the buckets, best first: at most a few thousand rows.
        self._ranks = (
            "WITH b AS ("
            "  SELECT rating, players, sum(players) OVER (ORDER BY rating DESC) AS through "
            f"  FROM {q}.rating_histogram WHERE ladder = $1 AND season = $2 AND players > 0) "
            "SELECT rating, through - players AS above, (SELECT sum(players) FROM b) AS total "
            "FROM b WHERE rating = ANY($3::integer[])"
        )
        self._rank = (
            "SELECT coalesce(sum(players) FILTER (WHERE rating > $3), 0) AS above, "
            "coalesce(sum(players), 0) AS total "
            f"FROM {q}.rating_histogram WHERE ladder = $1 AND season = $2"
        )
        self._top = (
            "SELECT r.player_id, p.player_name, r.rating, r.games, r.wins, r.losses, r.draws, "
            "r.updated_at, (SELECT coalesce(sum(h.players), 0) "
            f"  FROM {q}.rating_histogram h WHERE h.ladder = $1 AND h.season = $2) AS total "
            f"FROM {q}.ratings r JOIN {q}.players p USING (player_id) "
            "WHERE r.ladder = $1 AND r.season = $2 "
            "ORDER BY r.rating DESC, r.player_id LIMIT $3"
        )
        self._history = (
            f"SELECT {_CHANGE_COLUMNS} FROM {q}.rating_changes "
            "WHERE player_id = $1 AND ladder = $2 AND season = $3 AND player_seq < $4 "
            "ORDER BY player_seq DESC LIMIT $5"
        )
        self._feed = (
            f"SELECT {_CHANGE_COLUMNS} FROM {q}.rating_changes "
            "WHERE player_id = $1 AND player_seq > $2 ORDER BY player_seq LIMIT $3"
        )
        self._feed_head = f"SELECT changes FROM {q}.players WHERE player_id = $1"
        self._log = f"SELECT {_CHANGE_COLUMNS} FROM {q}.rating_changes ORDER BY seq"
        self._distribution = (
            "SELECT (floor(rating::numeric / $3) * $3)::integer AS band, "
            "sum(players)::bigint AS players "
            f"FROM {q}.rating_histogram WHERE ladder = $1 AND season = $2 "
            "GROUP BY 1 ORDER BY 1"
        )

    async def standings(self, key: LadderKey, player_ids: Sequence[str]) -> list[PlayerStanding]:
        """In the order asked; an unrated player at 1500 with no games."""
        rows = await self._pool.fetch(
            self._standings, key.ladder.value, key.season, list(player_ids)
        )
        return [
            PlayerStanding(
                r["player_id"],
                r["player_name"],
                Standing() if r["rating"] is None else _standing(r),
                r["updated_at"],
            )
            for r in rows
        ]

    async def rank(self, key: LadderKey, rating: int) -> Placing:
        """Players rated strictly above ``rating``, and the ladder's ranked players."""
        row = await self._pool.fetchrow(self._rank, key.ladder.value, key.season, rating)
        return Placing(int(row["above"]), int(row["total"]))

    async def ranks(self, key: LadderKey, ratings: Sequence[int]) -> Placings:
        """Players above each of ``ratings`` held by a ranked player, and the ranked count."""
        rows = await self._pool.fetch(
            self._ranks, key.ladder.value, key.season, sorted(set(ratings))
        )
        if rows:
            total = int(rows[0]["total"])
        else:
            total = (await self.rank(key, START_RATING)).ranked_players
        return Placings({r["rating"]: int(r["above"]) for r in rows}, total)

    async def top(self, key: LadderKey, n: int) -> Top:
        """The best ``n``, best first (ties by player id), and the ranked players."""
        rows = await self._pool.fetch(self._top, key.ladder.value, key.season, n)
        top = [
            PlayerStanding(r["player_id"], r["player_name"], _standing(r), r["updated_at"])
            for r in rows
        ]
        return Top(top, int(rows[0]["total"]) if rows else 0)

    async def history(
        self, player_id: str, key: LadderKey, before_player_seq: int, limit: int
    ) -> list[LoggedChange]:
        """A player's changes on a ladder, newest first, older than ``before_player_seq``."""
        rows = await self._pool.fetch(
            self._history, player_id, key.ladder.value, key.season, before_player_seq, limit
        )
        return [_logged(r) for r in rows]

    async def feed(self, player_id: str, after_player_seq: int, limit: int) -> list[LoggedChange]:
        """A player's changes on every ladder after a point of their feed, oldest first."""
        rows = await self._pool.fetch(self._feed, player_id, after_player_seq, limit)
        return [_logged(r) for r in rows]

    async def feed_head(self, player_id: str) -> int:
        """Where a player's feed is now (0 before their first change)."""
        return int(await self._pool.fetchval(self._feed_head, player_id) or 0)

    async def distribution(self, key: LadderKey, band: int) -> list[tuple[int, int]]:
        """Ranked players per ``band``-point rating band: ``(lowest rating, players)``."""
        rows = await self._pool.fetch(self._distribution, key.ladder.value, key.season, band)
        return [(r["band"], r["players"]) for r in rows]

    async def log(self) -> list[LoggedChange]:
        """Every applied change in the order applied (tests and operators)."""
        return [_logged(r) for r in await self._pool.fetch(self._log)]


def _standing(row: Any) -> Standing:
    return Standing(row["rating"], row["games"], row["wins"], row["losses"], row["draws"])


def _logged(row: Any) -> LoggedChange:
    return LoggedChange(
        seq=row["seq"],
        player_seq=row["player_seq"],
        key=LadderKey(Ladder(row["ladder"]), row["season"]),
        match_id=row["match_id"],
        player_id=row["player_id"],
        event_id=row["event_id"],
        opponent_id=row["opponent_id"],
        opponent_name=row["opponent_name"],
        rating_before=row["rating_before"],
        rating_after=row["rating_after"],
        k=row["k_factor"],
        expected=row["expected_score"],
        actual=row["actual_score"],
        opponent_rating_before=row["opponent_rating_before"],
        games_after=row["games_after"],
        applied_at=row["applied_at"],
        draft_id=row["draft_id"],
    )
