"""Sudden Death on the larger boards (RULES.md 11, 12): a 4x4 split 8-8 and a 5x5 with
five blocked cells split 13-13 (26 in all) play a second round with every card each
seat owns, the second placer first, the blocked cells drawn anew; without Sudden Death
the even split is a draw. All-5 cards never capture, so every round ends even."""

from __future__ import annotations

import pytest

from services.match import domain
from services.match.domain.events import (
    CardPlaced,
    MatchCard,
    MatchEvent,
    MatchRules,
    Mode,
    RoundStarted,
)
from services.match.presenter import view_message
from services.match.tests.builders import T0, after, card, later, players
from services.match.views import match_view
from services.rules import HIDDEN, Rules, Seat, Visibility


def _hand(prefix: str, size: int) -> tuple[MatchCard, ...]:
    return tuple(card(f"{prefix}{i}", (5, 5, 5, 5)) for i in range(size))


def _fill_round(match: domain.Match, events: list[MatchEvent]) -> domain.Match:
    start = match.round
    while match.in_progress and match.round == start:
        seat = match.position.to_move
        card_id = match.position.hand(seat)[0].id
        cell = match.position.board.empty_cells[0]
        step = domain.place(match, match.player(seat).player_id, card_id, cell, later(1), 3)
        events += step.events
        match = after(match, step)
    return match


@pytest.mark.parametrize(("side", "k", "size"), [(4, 0, 8), (5, 5, 13), (5, 0, 13)])
@pytest.mark.parametrize("sudden_death", [True, False])
def test_an_even_split_on_a_larger_board_plays_on_or_is_a_draw(
    side: int, k: int, size: int, sudden_death: bool
) -> None:
    blocked = frozenset(range(k))
    setup = MatchRules(
        Mode.CUSTOM,
        Rules(),
        Visibility.CLOSED,
        rows=side,
        cols=side,
        blocked=blocked,
        sudden_death=sudden_death,
    )
    hands = (_hand("a", size), _hand("b", size))
    draws = domain.StartDraws(Seat.A, (None,) * (side * side), (frozenset(), frozenset()))
    step = domain.create(None, "m1", setup, players(), hands, draws, T0, 60, 120)
    match, events = step.state, list(step.events)
    before = match
    match = _fill_round(match, events)
    half = size
    if not sudden_death:
        assert match.finished is not None and match.finished.winner is None
        assert match.finished.scores == (half, half) and sum(match.finished.scores) == 2 * size
        return
    assert match.in_progress and match.round == 2 and match.first is Seat.B
    started = events[-1]
    assert isinstance(started, RoundStarted)
    assert [len(h) for h in started.hands] == [size, size]
    assert set(started.hands[0]) == {c.card_id for c in hands[0]}, "no capture: own cards"
    assert len(started.blocked) == k and started.revealed == (frozenset(), frozenset())
    assert match.position.to_move is Seat.B and match.scores() == (half, half)
    assert sum(len(match.position.hand(s)) for s in Seat) == 2 * size
    assert domain.fold(events) == match
    _never_placed_stays_hidden(before, match, events)


def _never_placed_stays_hidden(
    start: domain.Match, match: domain.Match, events: list[MatchEvent]
) -> None:
    """RULES.md 3: a Closed hand's card never placed in round 1 is in its owner's new
    hand, and must not reach the opponent in round 2 (id, character or sides)."""
    placed = {e.card_id for e in events if isinstance(e, CardPlaced)}
    for seat in Seat:
        unplayed = {c.card_id for c in start.seats[seat.other].hand} - placed
        view = match_view(match, match.player(seat).player_id)
        assert view.opponent_hand == (HIDDEN,) * len(match.position.hand(seat.other))
        message = view_message(view, later(2)).SerializeToString()
        assert not [i for i in unplayed if i.encode() in message]
