"""Per-player views: everything a player may know, and no unrevealed opposing card."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest

from services.match import domain, handlers
from services.match.domain.events import MatchRules, Mode
from services.match.handlers import Context
from services.match.tests.builders import ALL, after, hand, later, players, started
from services.match.views import match_view
from services.platform.errors import NotFound
from services.platform.requests import Request
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


@pytest.mark.parametrize("elemental", [True, False])
async def test_elemental_marks_are_drawn_once_recorded_and_the_same_for_both_seats(
    ctx: Context, elemental: bool
) -> None:
    """RULES.md 3, Elemental: the marks are recorded with the match (the log alone
    rebuilds them) and shown to both players; a match without the rule marks no cell."""
    setup = MatchRules(Mode.UNRANKED, replace(ALL, elemental=elemental), Visibility.THREE_OPEN)
    marked = 0
    for n in range(4):
        match_id = f"el{n}"
        ann, bea = (replace(p, player_id=f"{p.player_id}{n}") for p in players())
        seated = (ann, bea)
        request = Request.of("mm", match_id)
        hands = (hand(f"{match_id}a"), hand(f"{match_id}b"))
        live = (await handlers.start_match(ctx, request, match_id, setup, seated, hands)).match
        ctx.store.forget(match_id)
        replayed = await ctx.store.load(match_id)
        assert replayed is not None
        marks = replayed.position.board.marks
        assert marks == live.position.board.marks
        for player in seated:
            assert tuple(c.mark for c in match_view(live, player.player_id).board) == marks
        marked += sum(m is not None for m in marks)
    assert (marked > 0) is elemental  # 36 cells at 1/3 each: some are marked
