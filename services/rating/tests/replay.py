"""Delivering finished matches to the in-memory ratings, and checking a log of changes
against the formula. Shared by the handler tests and the PostgreSQL/NATS tests."""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from services.rating import domain, handlers
from services.rating.domain import FinishedGame, LadderKey
from services.rating.read_models import LoggedChange
from services.rating.store import MemoryRatings
from services.rating.tests.builders import Delivery, event_id

T = TypeVar("T")


def run_now(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits (the in-memory ports don't), inside or outside
    an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise AssertionError("the in-memory ratings should never wait")


def deliver(
    deliveries: Sequence[Delivery], store: MemoryRatings | None = None, season: int = 0
) -> MemoryRatings:
    store = store or MemoryRatings()
    for d in deliveries:
        run_now(handlers.rate_match(store, d.game, d.event_id, season))
    return store


def clean(games: Sequence[FinishedGame]) -> MemoryRatings:
    """One delivery of each game's event, in the order given."""
    return deliver([Delivery(g, event_id(g.match_id)) for g in games])


def in_log_order(games: Sequence[FinishedGame], log: Sequence[LoggedChange]) -> list[FinishedGame]:
    """The games in the order the log says they were rated."""
    by_id = {g.match_id: g for g in games}
    return [by_id[m] for m in dict.fromkeys(c.match_id for c in log)]


def check_log_against_the_formula(log: Sequence[LoggedChange]) -> None:
    """Replay the log: each change starts from the player's rating after their previous
    change on that ladder, and is K x (S - E) from the ratings at that moment, rounded
    half away from zero; K follows the player's games on that ladder; with the same K
    both sides of a match cancel out."""
    rating: dict[tuple[LadderKey, str], int] = {}
    games: dict[tuple[LadderKey, str], int] = {}
    pending: dict[tuple[LadderKey, str], list[LoggedChange]] = {}
    for change in log:
        me, them = (change.key, change.player_id), (change.key, change.opponent_id)
        assert change.rating_before == rating.get(me, domain.START_RATING)
        assert change.opponent_rating_before == rating.get(them, domain.START_RATING)
        assert change.k == domain.k_factor(games.get(me, 0))
        expected = domain.expected_score(change.rating_before, change.opponent_rating_before)
        assert abs(change.expected - expected) < 1e-12
        exact = change.k * (change.actual - expected)
        assert change.delta == domain.round_half_away(exact)
        assert abs(change.delta - exact) <= 0.5
        pair = pending.setdefault((change.key, change.match_id), [])
        pair.append(change)
        if len(pair) == 2:  # both sides logged: the match is applied
            a, b = pair
            assert a.actual + b.actual == 1.0
            if a.k == b.k:
                assert a.delta + b.delta == 0
            for c in pair:
                rating[c.key, c.player_id] = c.rating_after
                games[c.key, c.player_id] = games.get((c.key, c.player_id), 0) + 1
                assert c.games_after == games[c.key, c.player_id]
    assert all(len(pair) == 2 for pair in pending.values())
