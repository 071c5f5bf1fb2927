"""A Quintra table with Sudden Death that goes to a second round (issue 19, "Done
when", first item; RULES.md 11 and 12), played as clients would: two players with their
sessions open, a 5x5 table with three blocked cells, Sudden Death, All Open and house
hands, hosted and joined through the TLS gateway with the whole backend as processes
(devtools/stack.py).

All Open shows both hands in every view, so the test reads the position from a view
and searches it with the rules engine for a line of moves that ends 13-13 (random
placements down to a few open cells, then every way to finish), plays it, and searches
again should the server's board ever differ from the engine's. Round 2 must then be
RULES.md 12's: the first round's final board and scores kept, each player's hand every
card they owned (with its printed sides), the player who placed second placing first,
three blocked cells drawn for the round. Round 2 is played to a decisive end.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from services.rules import Outcome, Position, Seat
from tests.e2e.sessions import PB_SEAT, SEAT_OF, Player, Session, join, position_of

pytestmark = pytest.mark.integration

QUINTRA_SUDDEN_DEATH = pb.Rules(
    visibility=pb.VISIBILITY_ALL_OPEN,
    sudden_death=True,
    board=pb.BoardShape(rows=5, columns=5, blocked_count=3),
    house_hands=True,
)
TAIL = 4
"""Open cells left when the search stops placing at random and tries every way on."""
TRIES = 400

Line = list[tuple[str, int]]
"""Placements in turn order: (card id, cell)."""
Wanted = Callable[[Outcome], bool]


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


def tied(outcome: Outcome) -> bool:
    return outcome.draw


def decided(outcome: Outcome) -> bool:
    return not outcome.draw


def finish(position: Position, wanted: Wanted) -> Line | None:
    """Every way from ``position`` to a full board, until one ends as ``wanted``."""
    if position.over:
        outcome = position.outcome()
        return [] if outcome is not None and wanted(outcome) else None
    for index, cell in position.legal_moves():
        rest = finish(position.play(index, cell)[0], wanted)
        if rest is not None:
            return [(position.hand(position.to_move)[index].id, cell), *rest]
    return None


def line_to(position: Position, wanted: Wanted, rng: Random) -> Line:
    """A line of placements from ``position`` to a full board ending as ``wanted``:
    random placements while more than TAIL cells are open, then every way on."""
    for _ in range(TRIES):
        line: Line = []
        here = position
        while len(here.board.empty_cells) > TAIL:
            index, cell = rng.choice(here.legal_moves())
            line.append((here.hand(here.to_move)[index].id, cell))
            here = here.play(index, cell)[0]
        rest = finish(here, wanted)
        if rest is not None:
            return line + rest
    raise AssertionError(f"no line of {TRIES} tried ends as wanted from this position")


def after(position: Position, line: Line) -> Position:
    for card_id, cell in line:
        position = position.play(position.index_of(position.to_move, card_id), cell)[0]
    return position


def same_round_state(shown: Position, expected: Position) -> bool:
    """The same cards with the same owners on the board, the same hands, the same mover."""
    return (
        shown.board.cards == expected.board.cards
        and shown.board.owners == expected.board.owners
        and shown.to_move == expected.to_move
        and all(
            sorted(c.id for c in shown.hand(s)) == sorted(c.id for c in expected.hand(s))
            for s in Seat
        )
    )


async def play_out(
    players: dict[Seat, Player], view: pb.MatchView, wanted: Wanted, rng: Random
) -> tuple[Position, pb.MatchView]:
    """Play the round ``view`` shows to a full board ending as ``wanted``, each
    placement by the player to move; the engine's final position and the last reply."""
    position = position_of(view)
    line = line_to(position, wanted, rng)
    while True:
        card_id, cell = line.pop(0)
        expected = after(position, [(card_id, cell)])
        reply = await players[position.to_move].call(
            "PlaceCard",
            g.PlaceCardRequest(
                request_id=uuid4().hex, match_id=view.match_id, card_id=card_id, cell=cell
            ),
        )
        view = reply.view
        if not line:
            return expected, view
        position = position_of(view)
        if not same_round_state(position, expected):
            line = line_to(position, wanted, rng)  # the server's board is the truth


def on_board(position: Position) -> dict[int, tuple[str, Seat]]:
    """Per occupied cell: the card's id and the seat that owns it."""
    board = position.board
    return {
        cell: (card.id, Seat(owner))
        for cell, (card, owner) in enumerate(zip(board.cards, board.owners, strict=True))
        if card is not None and owner is not None
    }


def blocked(board: Any) -> set[int]:
    return {c.index for c in board if c.WhichOneof("content") == "blocked"}


def hand_cards(view: pb.MatchView) -> dict[Seat, dict[str, pb.Card]]:
    mine = {c.card.card_id: c.card for c in view.my_hand}
    theirs = {s.revealed.card_id: s.revealed for s in view.opponent_hand}
    seat = SEAT_OF[view.my_seat]
    return {seat: mine, seat.other: theirs}


async def test_a_5x5_sudden_death_table_tied_in_round_one_plays_round_two_to_its_end(
    api: Any,
) -> None:
    rng = Random(19)
    ann, bea = await join(api), await join(api)
    sessions = {p.name: await Session.open(p) for p in (ann, bea)}
    table = await ann.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex, settings=pb.TableSettings(rules=QUINTRA_SUDDEN_DEATH)
        ),
    )
    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    )
    match_id = joined.match_id
    views = {p.name: await p.view(match_id) for p in (ann, bea)}
    players = {SEAT_OF[views[p.name].my_seat]: p for p in (ann, bea)}
    start = views[ann.name]
    round_one_blocked = blocked(start.board)
    assert len(round_one_blocked) == 3 and blocked(views[bea.name].board) == round_one_blocked
    for view in views.values():
        assert view.rules.sudden_death and view.rules.house_hands
        assert view.round_number == 1 and not view.earlier_rounds
        assert len(view.my_hand) == 13
        assert [s.WhichOneof("slot") for s in view.opponent_hand] == ["revealed"] * 13
    dealt = hand_cards(start)  # each seat's house hand, as dealt
    printed = {card_id: card for hand in dealt.values() for card_id, card in hand.items()}
    first = SEAT_OF[start.first_seat]

    # Round 1: the line the engine found ends 13-13 on a full board.
    ended, _ = await play_out(players, start, tied, rng)
    assert ended.outcome() == Outcome((13, 13), None)
    final_board = on_board(ended)
    owned = {
        seat: {c.id for c in ended.hand(seat)}
        | {card_id for card_id, owner in final_board.values() if owner == seat}
        for seat in Seat
    }
    assert len(owned[Seat.A]) == len(owned[Seat.B]) == 13

    # Both sessions are told of round 2, in the same match (RULES.md 12).
    round_two_blocked: set[int] = set()
    for name, session in sessions.items():
        shown = await session.view_where(match_id, lambda v: v.round_number == 2)
        assert shown.status == pb.MATCH_STATUS_IN_PROGRESS
        [kept] = shown.earlier_rounds
        assert kept.round_number == 1 and kept.first_seat == PB_SEAT[first]
        assert (kept.scores.seat_a, kept.scores.seat_b) == (13, 13)
        assert blocked(kept.board) == round_one_blocked
        assert {
            c.index: (c.card.card.card_id, SEAT_OF[c.card.owner_seat])
            for c in kept.board
            if c.WhichOneof("content") == "card"
        } == final_board, "round 1's final board is kept as the engine resolved it"
        # Each hand is every card its player owned at the tie, with its printed sides.
        hands = hand_cards(shown)
        for seat in Seat:
            assert set(hands[seat]) == owned[seat], f"{name}: seat {seat.name}'s new hand"
            assert all(card == printed[card_id] for card_id, card in hands[seat].items())
        # The player who placed second places first; the board is emptied and three
        # cells are blocked, drawn for the round.
        assert shown.first_seat == shown.turn_seat == PB_SEAT[first.other]
        assert shown.turn_number == 23
        assert len(shown.board) == 25 and len(blocked(shown.board)) == 3
        assert all(c.WhichOneof("content") in ("empty", "blocked") for c in shown.board)
        assert shown.rules.board.blocked_count == 3
        assert round_two_blocked in (set(), blocked(shown.board)), "both see the same cells"
        round_two_blocked = blocked(shown.board)

    # Round 2: the new first player places first, and the round is played to a full
    # board that decides the match; both sessions are told how it ended.
    round_two = await players[first.other].view(match_id)
    final, last = await play_out(players, round_two, decided, rng)
    outcome = final.outcome()
    assert outcome is not None and outcome.winner is not None
    for session in sessions.values():
        end = await session.view_where(match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED)
        assert end.round_number == 2 and len(end.earlier_rounds) == 1
        assert end.outcome.reason == pb.FINISH_REASON_BOARD_FULL
        assert end.outcome.winner_seat == PB_SEAT[outcome.winner]
        scores = end.outcome.final_scores
        assert (scores.seat_a, scores.seat_b) == outcome.scores
        assert sum(outcome.scores) == 26 and end.turn_number == 44
        assert blocked(end.board) == round_two_blocked
    assert last.status == pb.MATCH_STATUS_FINISHED
    for session in sessions.values():
        await session.close()
