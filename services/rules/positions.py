"""Positions to solve: the input and output of ``triad-rules solve``.

The format extends the placement vectors of ``shared/conformance/README.md``: the same
``name``, ``size``, ``blocked``, ``rules``, ``cells`` and ``board`` (a card on the board
carries its owner), and instead of ``move``, both hands and the side to move::

    {"name": "endgame-1", "rules": {"same": true, "plus": true, "combo": true},
     "board": [null, {"sides": [1, 1, 6, 1], "owner": "B"}, "... one entry per cell"],
     "hands": {"A": [{"sides": [3, 5, 2, 3], "element": "fire", "id": "a1"}],
               "B": [{"sides": [7, 2, 2, 4]}]},
     "to_move": "A"}

A hand card may carry an ``id`` (any string), echoed back with the best move. Positions
are of the standard family: a ``"family": "realm"`` one is refused (the search knows
only the standard rules), as is an unknown family.
:func:`parse_position` checks every field and raises :class:`VectorError` naming the
first problem, as the vector parser does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.rules.board import Board
from services.rules.cards import Card
from services.rules.game import Position, Seat
from services.rules.realm.vectors import is_realm
from services.rules.solver import MoveValue, Solution
from services.rules.vectors import (
    VectorError,
    _card,
    _object,
    _seat,
    parse_board,
)

MAX_EMPTY_CELLS = 9
"""The most empty cells ``solve`` takes on: the whole standard board. Exact search of
bigger boards would not finish in any useful time in pure Python."""


@dataclass(frozen=True, slots=True)
class Problem:
    name: str | None
    position: Position


def parse_position(raw: dict[str, Any]) -> Problem:
    if is_realm(raw):  # checks ``family`` too: an unknown one is an error
        raise VectorError(
            'solve plays the standard rules only; a "family": "realm" position cannot be solved'
        )
    name, board = parse_board(raw)
    hands_raw = _object(raw.get("hands"), "hands")
    extra = sorted(set(hands_raw) - {"A", "B"})
    if extra:
        raise VectorError(f"'hands' has seats A and B only, not {', '.join(map(repr, extra))}")
    hands = (_hand(hands_raw.get("A"), "hands.A"), _hand(hands_raw.get("B"), "hands.B"))
    to_move = _seat(raw.get("to_move"), "to_move")
    _check_enough_cards(board, hands, to_move)
    return Problem(name, Position(board, hands, to_move))


def _hand(value: object, field: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise VectorError(f"'{field}' must be a list of cards (possibly empty)")
    cards = []
    for i, entry in enumerate(value):
        where = f"{field}[{i}]"
        raw = _object(entry, where)
        card_id = raw.get("id", "")
        if not isinstance(card_id, str):
            raise VectorError(f"{where}.id must be a string")
        card = _card(raw, where)
        cards.append(Card(card.sides, card.element, card_id))
    return tuple(cards)


def _check_enough_cards(
    board: Board, hands: tuple[tuple[Card, ...], tuple[Card, ...]], to_move: Seat
) -> None:
    """The players alternate until the board is full: the side to move places on every
    other turn from now, so each needs that many cards."""
    empty = len(board.empty_cells)
    if empty > MAX_EMPTY_CELLS:
        raise VectorError(
            f"the board has {empty} empty cells; solve takes at most {MAX_EMPTY_CELLS}"
        )
    need = {to_move: (empty + 1) // 2, to_move.other: empty // 2}
    for seat in (Seat.A, Seat.B):
        held = len(hands[seat])
        if held < need[seat]:
            raise VectorError(
                f"hands.{seat.name} holds {held} card{'s' * (held != 1)} but must place "
                f"{need[seat]} "
                f"to fill the {empty} empty cells with {to_move.name} to move"
            )


def card_json(card: Card) -> dict[str, Any]:
    found: dict[str, Any] = {
        "sides": list(card.sides),
        "element": None if card.element is None else card.element.value,
    }
    if card.id:
        found["id"] = card.id
    return found


def solution_json(
    name: Any, problem: Problem, solution: Solution, wdl: bool, moves: list[MoveValue] | None
) -> dict[str, Any]:
    """The output line of ``triad-rules solve`` for one position. ``value`` and the final
    ``scores`` under perfect play come only from a full (not ``--wdl``) search."""
    position = problem.position
    mover = position.to_move
    reply: dict[str, Any] = {"name": name, "to_move": mover.name}
    if not wdl:
        total = position.score(Seat.A) + position.score(Seat.B)
        mine = (total + solution.value) // 2
        scores = {mover.name: mine, mover.other.name: total - mine}
        reply |= {"value": solution.value, "scores": {s: scores[s] for s in ("A", "B")}}
    reply["result"] = solution.verdict.value
    if solution.move is None:
        reply["best"] = None
    else:
        index, cell = solution.move
        card = position.hands[mover][index]
        reply["best"] = {"hand_index": index, "cell": cell, "card": card_json(card)}
    if moves is not None:
        ranked = sorted(moves, key=lambda m: (-m.value, m.move))
        reply["moves"] = [
            {"hand_index": m.move[0], "cell": m.move[1], "value": m.value} for m in ranked
        ]
    reply["nodes"] = solution.nodes
    return reply
