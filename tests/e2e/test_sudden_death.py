"""Sudden Death as players meet it (issue 19, item 2; RULES.md 12): two players at a
custom table with Sudden Death tie the first round and play on into the second, in the
same match, through the TLS gateway; their sessions show the round and the first
round's final board.

The whole backend as processes (devtools/stack.py). The table plays All Open with no
Same or Plus, so both hands are in every view and the test can choose a line of moves
that ends 5-5 (found with the rules engine before the first move).
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from services.match.mapping import card_back
from services.rules import Board, Card, Geometry, Position, Rules, Seat
from tests.e2e.sessions import Player, Session, join, mover, table_match

pytestmark = pytest.mark.integration
SUDDEN_DEATH = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, sudden_death=True)


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


def _cards(cards: Any) -> tuple[Card, ...]:
    return tuple(card_back(c).rules_card() for c in cards)


def tied_line(position: Position) -> list[tuple[str, int]] | None:
    """A line of (card id, cell) from ``position`` to a full board with equal scores."""
    if position.over:
        outcome = position.outcome()
        return [] if outcome is not None and outcome.draw else None
    for index, cell in position.legal_moves():
        card_id = position.hand(position.to_move)[index].id
        rest = tied_line(position.play(index, cell)[0])
        if rest is not None:
            return [(card_id, cell), *rest]
    return None


async def test_a_tied_first_round_plays_on_into_round_two_in_the_same_match(api: Any) -> None:
    ann, bea = await join(api), await join(api)
    sessions = {ann.name: await Session.open(ann), bea.name: await Session.open(bea)}
    match_id = await table_match(ann, bea, SUDDEN_DEATH)
    first, second = await mover((ann, bea), match_id)
    view = await first.view(match_id)
    assert view.rules.sudden_death and view.round_number == 1 and not view.earlier_rounds
    seat = Seat.A if view.my_seat == pb.SEAT_A else Seat.B
    mine, theirs = (
        _cards(c.card for c in view.my_hand),
        _cards(s.revealed for s in view.opponent_hand),
    )
    hands = (mine, theirs) if seat is Seat.A else (theirs, mine)
    board = Board.empty(Geometry.of(3, 3, frozenset()), Rules())
    line = tied_line(Position.start(board, hands[0], hands[1], seat))
    assert line is not None, "no line of moves ties these two hands"

    order = [first, second]
    for turn, (card_id, cell) in enumerate(line):
        player = order[turn % 2]
        await player.call(
            "PlaceCard",
            g.PlaceCardRequest(
                request_id=uuid4().hex, match_id=match_id, card_id=card_id, cell=cell
            ),
        )

    # Both sessions are told of round 2 at once: the same match, an empty board, the
    # first round's final board kept, and the seat that placed second placing first.
    for name, session in sessions.items():
        shown = await session.view_where(match_id, lambda v: v.round_number == 2)
        assert shown.status == pb.MATCH_STATUS_IN_PROGRESS
        assert all(c.WhichOneof("content") == "empty" for c in shown.board)
        [ended] = shown.earlier_rounds
        assert ended.round_number == 1 and ended.scores.seat_a == ended.scores.seat_b == 5
        assert sum(1 for c in ended.board if c.WhichOneof("content") == "card") == 9
        last_id, last_cell = line[-1]  # the move that filled it, shown on the final board
        assert (ended.last_placement.card.card_id, ended.last_placement.cell) == (
            last_id,
            last_cell,
        )
        assert shown.turn_number == 10
        # A tie: each owns five cards, its colour on the board and any left in hand.
        owned = {c.card.card.card_id for c in ended.board if c.card.owner_seat == shown.my_seat}
        assert len(shown.my_hand) == 5 and {c.card.card_id for c in shown.my_hand} >= owned
        assert len(shown.opponent_hand) == 5, "All Open: the new hand is shown in full"
        mover_now = next(p for p in shown.players if p.seat == shown.turn_seat).player_name
        assert mover_now == second.name and shown.first_seat != view.first_seat
        assert name in (first.name, second.name)

    # Round 2 goes on through the gateway: the new first player places, both see it.
    round_two = await second.view(match_id)
    reply = await second.call(
        "PlaceCard",
        g.PlaceCardRequest(
            request_id=uuid4().hex,
            match_id=match_id,
            card_id=round_two.my_hand[0].card.card_id,
            cell=4,
        ),
    )
    assert reply.view.round_number == 2 and reply.view.last_placement.cell == 4
    seen = await sessions[first.name].view_where(
        match_id, lambda v: v.round_number == 2 and v.HasField("last_placement")
    )
    assert seen.turn_seat == seen.my_seat and seen.turn_number == 11

    # A forfeit ends the match in round 2; the outcome is that round's.
    await first.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
    end = await sessions[second.name].view_where(
        match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED
    )
    assert end.round_number == 2 and len(end.earlier_rounds) == 1
    assert end.outcome.winner_seat == end.my_seat
    for session in sessions.values():
        await session.close()


async def test_a_sudden_death_table_shows_its_rule_in_the_lobby(api: Any) -> None:
    ann: Player = await join(api)
    table = await ann.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex,
            settings=pb.TableSettings(rules=SUDDEN_DEATH, random_deck=True),
        ),
    )
    assert table.table.settings.rules.sudden_death
