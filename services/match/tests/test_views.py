"""Per-player views: everything a player may know, and no unrevealed opposing card."""

from __future__ import annotations

from random import Random

import pytest

from services.match import domain
from services.match.tests.builders import after, later, started
from services.match.views import match_view
from services.platform.errors import NotFound
from services.rules import HIDDEN, Seat, Visibility


@pytest.mark.parametrize("visibility", list(Visibility))
def test_no_view_ever_holds_an_unrevealed_opposing_card(visibility: Visibility) -> None:
    rng = Random(3)
    match = started(visibility=visibility)
    while True:
        for seat in (Seat.A, Seat.B):
            me = match.player(seat).player_id
            view = match_view(match, me)
            opponent = match.seats[seat.other]
            unrevealed = {c.card_id for c in opponent.hand} - opponent.revealed
            still_in_hand = {c.id for c in match.position.hand(seat.other)}
            shown = [c for c in view.opponent_hand if c is not HIDDEN]
            assert all(c.card_id not in unrevealed for c in shown)  # type: ignore[union-attr]
            assert len(view.opponent_hand) == len(still_in_hand)
            assert view.opponent_hand[: len(shown)] == tuple(shown)  # revealed slots first
            assert [c.card_id for c in view.hand] == [c.id for c in match.position.hand(seat)]
            if visibility is Visibility.CLOSED:
                assert shown == []
        if not match.in_progress:
            break
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        match = after(
            match, domain.place(match, match.player(seat).player_id, card_id, cell, later(1))
        )


def test_a_placed_card_is_on_the_board_for_both_players() -> None:
    match = started(visibility=Visibility.CLOSED)
    match = after(match, domain.place(match, "p-a", "a2", 4, later(1)))
    for player in ("p-a", "p-b"):
        cell = match_view(match, player).board[4]
        assert cell.card is not None and cell.card.card_id == "a2" and cell.owner is Seat.A


def test_a_stranger_gets_no_view() -> None:
    with pytest.raises(NotFound):
        match_view(started(), "p-x")


def test_the_view_carries_turn_deadline_scores_and_version() -> None:
    match = started()
    view = match_view(match, "p-b")
    assert view.turn_seat is Seat.A and view.deadline == later(60)
    assert [p.score for p in view.players] == [5, 5]
    assert view.version == 1
