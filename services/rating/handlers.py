"""The rating service's use cases: rate a finished match once, and the reads.

No protobuf, SQL or NATS here (STYLE 7): the ports below are what the handlers need,
``store.py`` and ``memory.py`` provide them.

Rating a match runs inside the consumer's transaction (the "processed" mark and the
effect commit together): lock both players, check the match was not rated already,
rate from the standings as they are at that moment, record both changes. A delivery
of the same event finds the mark; the same match under another event id finds its
changes in the log. Events of different matches may come in any order; each is rated
from the standings when it is applied, and the log's order says which those were.

Seasons: a match counts for the ladder and season it names, even a season newer than
the one this replica is configured with (a configuration rolling out must not drop a
result); reads of a season answer NOT_FOUND until the configuration opens it. A rated
match that names no ladder counts for its mode's ladder in the current season.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

import structlog

from services.platform import pages
from services.platform.errors import InvalidArgument, NotFound
from services.rating import domain
from services.rating.domain import (
    Contestant,
    FinishedGame,
    LadderKey,
    ResultKey,
    Standing,
    Unrated,
    Update,
)
from services.rating.read_models import LoggedChange, Placing, Placings, PlayerStanding, Top

log = structlog.get_logger()

MAX_BATCH = 1000
DEFAULT_TOP = 10
MAX_TOP = 100
DEFAULT_PAGE = 50
MAX_PAGE = 200
WATCH_RECHECK_SECONDS = 5.0
WATCH_BATCH = 100


class Ladders(Protocol):
    """The write side, inside one transaction."""

    async def lock(
        self, result: ResultKey, players: tuple[Contestant, Contestant]
    ) -> tuple[Standing, Standing] | None:
        """Lock both players until the transaction ends, in an order every writer shares;
        their standings now, or None if this result was rated on its ladder already: the
        match (when it names one) or any result of the draft (when it names one: its
        match or its forfeit)."""

    async def record(
        self, result: ResultKey, event_id: UUID, updates: tuple[Update, Update]
    ) -> tuple[LoggedChange, LoggedChange]:
        """Log both changes and write both standings and the rank buckets; both changes
        as the log now holds them (numbered in each player's feed), in ``updates``' order."""


class Reader(Protocol):
    async def standings(
        self, key: LadderKey, player_ids: Sequence[str]
    ) -> list[PlayerStanding]: ...

    async def rank(self, key: LadderKey, rating: int) -> Placing: ...

    async def ranks(self, key: LadderKey, ratings: Sequence[int]) -> Placings: ...

    async def top(self, key: LadderKey, n: int) -> Top:
        """The best ``n``, best first (ties by player id), and the ranked players."""

    async def history(
        self, player_id: str, key: LadderKey, before_player_seq: int, limit: int
    ) -> list[LoggedChange]: ...

    async def feed(
        self, player_id: str, after_player_seq: int, limit: int
    ) -> list[LoggedChange]: ...

    async def feed_head(self, player_id: str) -> int: ...


class Wakeups(Protocol):
    def watch(self, player_id: str) -> AbstractContextManager[asyncio.Event]:
        """An event set whenever a change of this player may have been applied."""


class ChangePushes(Protocol):
    """Where a player hears of a change to their rating (their session's push)."""

    async def rating_changed(self, change: LoggedChange) -> None: ...


# --------------------------------------------------------------------------- writes


@dataclass(frozen=True, slots=True)
class Rated:
    key: LadderKey
    updates: tuple[Update, Update]
    changes: tuple[LoggedChange, ...] = ()
    """Both changes as logged (what WatchRatings streams), in ``updates``' order."""


@dataclass(frozen=True, slots=True)
class AlreadyRated:
    """The match (or the draft) was rated before, under another event id: nothing changes."""

    key: LadderKey


@dataclass(frozen=True, slots=True)
class Ignored:
    reason: Unrated


Outcome = Rated | AlreadyRated | Ignored


async def rate_match(
    ladders: Ladders, game: FinishedGame, event_id: UUID, current_season: int
) -> Outcome:
    """Apply a finished match, or a draft forfeited before its match, to its ladder,
    once. A draft counts once whichever way it ended: a Draft match names its draft, and
    a draft rated already (its forfeit, or its match) is not rated again."""
    reason = domain.why_unrated(game, current_season)
    if reason is not None:
        return Ignored(reason)
    key = domain.ladder_for(game, current_season)
    assert key is not None  # why_unrated said it has one
    result = domain.result_key(game, key)
    standings = await ladders.lock(result, game.seats)
    if standings is None:
        log.info(
            "rating.already_rated",
            match_id=game.match_id,
            draft_id=game.draft_id,
            ladder=str(key),
        )
        return AlreadyRated(key)
    updates = domain.rate(game, *standings)
    changes = await ladders.record(result, event_id, updates)
    log.info(
        "rating.rated",
        match_id=game.match_id,
        draft_id=game.draft_id,
        ladder=str(key),
        ratings={u.player.player_id: [u.before.rating, u.after.rating] for u in updates},
    )
    return Rated(key, updates, changes)


async def announce(pushes: ChangePushes, outcome: Outcome) -> None:
    """Tell each player of a rating their change, once: called after the rating
    committed, only for the delivery that rated (a duplicate or an ignored game changes
    nothing, so tells nothing). A push lost on the way is repaired by the player's next
    session reading their ratings."""
    if isinstance(outcome, Rated):
        for change in outcome.changes:
            await pushes.rating_changed(change)


# --------------------------------------------------------------------------- reads


def check_season(key: LadderKey, current_season: int) -> LadderKey:
    """Seasons 0..current exist (a past season stays readable); later ones do not yet."""
    if key.season < 0:
        raise InvalidArgument(f"season {key.season} is out of range: seasons count from 0")
    if key.season > current_season:
        raise NotFound(f"no season {key.season} yet: the current season is {current_season}")
    return key


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's standing on a ladder with their rank (0 = unranked: no rated game)."""

    entry: PlayerStanding
    rank: int
    ranked_players: int


@dataclass(frozen=True, slots=True)
class Leaderboard:
    top: tuple[Rating, ...]
    player: Rating | None
    ranked_players: int


async def get_rating(reader: Reader, player_id: str, key: LadderKey) -> Rating:
    (entry,) = await reader.standings(key, [player_id])
    placing = await reader.rank(key, entry.standing.rating)
    rank = domain.rank_from_above(placing.above) if entry.standing.ranked else 0
    return Rating(entry, rank, placing.ranked_players)


async def get_ratings(reader: Reader, player_ids: Sequence[str], key: LadderKey) -> list[Rating]:
    """In the order asked, for pairing; an unrated player at 1500, unranked."""
    if len(player_ids) > MAX_BATCH:
        raise InvalidArgument(f"at most {MAX_BATCH} player ids per call, got {len(player_ids)}")
    entries = await reader.standings(key, player_ids)
    ranked = [e.standing.rating for e in entries if e.standing.ranked]
    found = await reader.ranks(key, ranked) if ranked else Placings({}, 0)
    return [
        Rating(
            e,
            domain.rank_from_above(found.above[e.standing.rating]) if e.standing.ranked else 0,
            found.ranked_players,
        )
        for e in entries
    ]


@dataclass(frozen=True, slots=True)
class Rank:
    """A player's rank (0 if unranked) and the ladder's ranked players."""

    rank: int
    ranked_players: int


async def get_rank(reader: Reader, player_id: str, key: LadderKey) -> Rank:
    rating = await get_rating(reader, player_id, key)
    return Rank(rating.rank, rating.ranked_players)


async def leaderboard(
    reader: Reader, key: LadderKey, top_n: int, player_id: str = ""
) -> Leaderboard:
    n = top_n or DEFAULT_TOP
    if not 1 <= n <= MAX_TOP:
        raise InvalidArgument(f"top_n must be 1..{MAX_TOP} (0 means {DEFAULT_TOP}), got {top_n}")
    top = await reader.top(key, n)
    ranks = domain.competition_ranks([e.standing.rating for e in top.standings])
    mine = await get_rating(reader, player_id, key) if player_id else None
    total = top.ranked_players
    entries = tuple(Rating(e, rank, total) for e, rank in zip(top.standings, ranks, strict=True))
    return Leaderboard(entries, mine if mine is not None and mine.rank else None, total)


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of a player's changes on a ladder, newest first."""

    changes: list[LoggedChange]
    next_before: int
    """Where the next page starts (its changes are numbered below it); 0: no more."""


async def history(
    reader: Reader, player_id: str, key: LadderKey, page_size: int, before_player_seq: int
) -> HistoryPage:
    size = pages.page_size(page_size, DEFAULT_PAGE, MAX_PAGE)
    found = await reader.history(player_id, key, before_player_seq, size + 1)
    page = found[:size]
    return HistoryPage(page, page[-1].player_seq if len(found) > size else 0)


async def watch(reader: Reader, wakeups: Wakeups, player_id: str) -> AsyncIterator[LoggedChange]:
    """The player's changes on every ladder as they are applied, from now on.

    Follows the player's feed, which is numbered under the player's lock: a change
    numbered n + 1 commits after n, so reading past the last number seen never skips
    one. A missed wake-up only delays: the feed is re-read every few seconds anyway.
    """
    with wakeups.watch(player_id) as changed:
        seen = await reader.feed_head(player_id)
        while True:
            changed.clear()
            for change in await reader.feed(player_id, seen, WATCH_BATCH):
                seen = change.player_seq
                yield change
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), WATCH_RECHECK_SECONDS)
