"""The protobuf view says what the domain view says: board, hands, players and rules."""

from __future__ import annotations

from random import Random

import pytest
from triad.v1 import common_pb2 as pb

from services import wire
from services.match import domain, mapping
from services.match.domain.events import MatchRules, Mode
from services.match.presenter import view_message
from services.match.tests.builders import ALL, T0, after, hand, later, players
from services.match.views import MatchView, match_view
from services.rules import HIDDEN, Element, Seat, Visibility


def game(visibility: Visibility, blocked: frozenset[int]) -> list[domain.Match]:
    """Every state of one game on a 3x4 board with marked and blocked cells."""
    setup = MatchRules(Mode.UNRANKED, ALL, visibility, rows=3, cols=4, blocked=blocked)
    hands = (hand("a"), hand("b"))
    reveal = {Visibility.ALL_OPEN: 5, Visibility.CLOSED: 0, Visibility.THREE_OPEN: 3}[visibility]
    marks = tuple(Element.FIRE if i % 5 == 1 else None for i in range(12))
    draws = domain.StartDraws(
        Seat.B,
        marks,
        (
            frozenset(c.card_id for c in hands[0][:reveal]),
            frozenset(c.card_id for c in hands[1][5 - reveal :]),
        ),
    )
    match = domain.create(None, "m1", setup, players(), hands, draws, T0, 60, 120).state
    states, rng, turn = [match], Random(7), 0
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        turn += 1
        match = after(
            match, domain.place(match, match.player(seat).player_id, card_id, cell, later(turn))
        )
        states.append(match)
    return states


def assert_says(message: pb.MatchView, view: MatchView) -> None:
    assert message.match_id == view.match_id and message.version == view.version
    assert message.rules == mapping.rules(view.setup)
    assert list(message.rules.board.blocked_cells) == sorted(view.setup.blocked)
    assert message.my_seat == mapping.SEATS[view.seat]
    assert message.turn_seat == mapping.SEATS[view.turn_seat]
    assert message.turn_deadline_time == (
        wire.timestamp(view.deadline) or pb.MatchView().turn_deadline_time
    )
    for player, info in zip(message.players, view.players, strict=True):
        assert (player.seat, player.player_name, player.score, player.hand_size) == (
            mapping.SEATS[info.seat],
            info.player.name,
            info.score,
            info.hand_size,
        )
    for sent, cell in zip(message.board, view.board, strict=True):
        assert (sent.index, sent.mark) == (cell.index, wire.ELEMENTS[cell.mark])
        if cell.blocked:
            assert sent.WhichOneof("content") == "blocked"
        elif cell.card is None:
            assert sent.WhichOneof("content") == "empty"
        else:
            assert sent.WhichOneof("content") == "card"
            assert sent.card.card == mapping.card(cell.card)
            assert sent.card.owner_seat == mapping.SEATS[cell.owner]
            assert sent.card.placed_by_seat == mapping.SEATS[cell.placed_by]
            assert wire.sides_back(sent.card.adjusted_sides) == cell.adjusted
            assert sent.card.placed_turn == cell.placed_turn
    assert [(c.card, c.revealed_to_opponent) for c in message.my_hand] == [
        (mapping.card(c), c.card_id in view.revealed) for c in view.hand
    ]
    slots = [
        s.revealed if s.WhichOneof("slot") == "revealed" else HIDDEN for s in message.opponent_hand
    ]
    assert [s.WhichOneof("slot") for s in message.opponent_hand] == [
        "hidden" if s is HIDDEN else "revealed" for s in view.opponent_hand
    ]
    assert slots == [s if s is HIDDEN else mapping.card(s) for s in view.opponent_hand]
    if view.last is None:
        assert not message.HasField("last_placement")
    else:
        assert message.last_placement.cell == view.last.cell
    assert message.HasField("outcome") == (view.finished is not None)


@pytest.mark.parametrize("visibility", list(Visibility))
def test_every_view_of_a_game_says_what_the_domain_view_says(visibility: Visibility) -> None:
    for match in game(visibility, frozenset({0, 7})):
        for player in ("p-a", "p-b"):
            view = match_view(match, player)
            assert_says(view_message(view, later(99)), view)


@pytest.mark.parametrize("visibility", list(Visibility))
def test_a_seats_view_built_from_the_other_seats_is_the_one_built_alone(
    visibility: Visibility,
) -> None:
    for match in game(visibility, frozenset({0, 7})):
        first_view = match_view(match, "p-a")
        first = view_message(first_view, T0)
        second = match_view(match, "p-b", other_seat=first_view)
        assert second == match_view(match, "p-b")
        from_first = view_message(second, T0, other_seat=first)
        assert from_first == view_message(second, T0)
        assert_says(from_first, second)
        assert first == view_message(match_view(match, "p-a"), T0)  # the first is untouched
