"""Placement vectors: the JSON format of ``shared/conformance/placement.jsonl``.

A vector is one placement on a board with the rules in force. :func:`parse_vector`
checks every field and raises :class:`VectorError` naming the first problem, so a
malformed vector never reaches the engine; :func:`run_vector` resolves a parsed one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

from services.rules.board import Board
from services.rules.cards import ACE, Card, Element, Sides
from services.rules.errors import RuleViolation
from services.rules.game import Seat
from services.rules.geometry import Geometry
from services.rules.resolve import Capture, Placement, Rules

RULE_NAMES = frozenset(f.name for f in fields(Rules))
ELEMENT_NAMES = tuple(e.value for e in Element)
MAX_SIDE_CELLS = 10_000
"""Refuse absurd boards instead of allocating them: the rulebook's boards are 3x3 to
5x5, and building the neighbour table of a million-cell board (the former limit) took
half a minute, even for a vector whose ``board`` then turned out not to fit it."""


class VectorError(ValueError):
    """A vector that does not follow the format; the message names the field."""


@dataclass(frozen=True, slots=True)
class Vector:
    name: str | None
    board: Board
    player: Seat
    cell: int
    card: Card


def load_line(line: str, what: str = "vector") -> dict[str, Any]:
    """Read one JSON line into the object it must hold: a ``what`` (a vector, or the
    solver's position)."""
    try:
        # A byte-order mark is no JSON error; the line's end is no part of it (an error
        # at the end of a line cut short is told at its last column, not on "line 2").
        raw = json.loads(line.removeprefix("\ufeff").rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        raise VectorError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except ValueError as exc:  # e.g. an integer past Python's 4300-digit limit
        raise VectorError(f"not JSON this command accepts: {exc}") from None
    if not isinstance(raw, dict):
        raise VectorError(f"a {what} is a JSON object, got {type(raw).__name__}")
    return raw


def given(raw: dict[str, Any], key: str, default: Any) -> Any:
    """``raw[key]``, or ``default`` when the field is missing **or null**: the format's
    optional fields default when left out, and many JSON writers spell a field left out
    as null (``name``, ``cells``, ``element`` and ``alignment`` always read null so)."""
    value = raw.get(key)
    return default if value is None else value


def parse_board(raw: dict[str, Any]) -> tuple[str | None, Board]:
    """Check and build the fields placement vectors and positions share: ``name``,
    ``size``, ``blocked``, ``rules``, ``cells`` and ``board``."""
    name, geometry = parse_geometry(raw)
    rules = _rules(given(raw, "rules", {}))
    board = Board.empty(geometry, rules, parse_marks(raw, geometry))
    for entry in board_entries(raw, geometry):
        board = board.with_card(entry.index, _card(entry.raw, entry.where), entry.owner)
    return name, board


def parse_geometry(raw: dict[str, Any]) -> tuple[str | None, Geometry]:
    """Check ``name``, ``size`` and ``blocked``, the fields every vector family has."""
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise VectorError("'name' must be a string")
    rows, cols = _size(given(raw, "size", [3, 3]))
    return name, Geometry.of(rows, cols, _blocked(given(raw, "blocked", []), rows * cols))


def parse_marks(raw: dict[str, Any], geometry: Geometry) -> list[Element | None]:
    """Check ``cells``, the element marking each cell (all unmarked when missing)."""
    cells = raw.get("cells")
    if cells is None:
        return [None] * geometry.size
    return [
        _element(m, f"cells[{i}]") for i, m in enumerate(_cell_list(raw, "cells", geometry.size))
    ]


@dataclass(frozen=True, slots=True)
class Entry:
    """A card the ``board`` field puts on a cell, its owner checked; each family reads
    the card from ``raw`` (its ``where`` names it in errors)."""

    index: int
    where: str
    raw: dict[str, Any]
    owner: Seat


def board_entries(raw: dict[str, Any], geometry: Geometry) -> Iterator[Entry]:
    """The cards of the ``board`` field (row-major, null for an empty cell)."""
    for index, entry in enumerate(_cell_list(raw, "board", geometry.size)):
        if entry is None:
            continue
        where = f"board[{index}]"
        if index in geometry.blocked:
            raise VectorError(f"{where} is a blocked cell and cannot hold a card")
        card_raw = _object(entry, where)
        yield Entry(index, where, card_raw, _seat(card_raw.get("owner"), f"{where}.owner"))


def parse_move(
    raw: dict[str, Any], check_free: Callable[[int], None]
) -> tuple[dict[str, Any], Seat, int]:
    """The ``move`` object, its player and its cell (free on the board, as
    ``check_free`` says); each family reads the card from the object."""
    move = _object(raw.get("move"), "move")
    player = _seat(move.get("player"), "move.player")
    cell = move.get("cell")
    if not isinstance(cell, int) or isinstance(cell, bool):
        raise VectorError("move.cell must be a whole number (a row-major cell index)")
    try:
        check_free(cell)
    except RuleViolation as exc:
        raise VectorError(f"move.cell: {exc}") from None
    return move, player, cell


def parse_vector(raw: dict[str, Any]) -> Vector:
    name, board = parse_board(raw)
    move, player, cell = parse_move(raw, board.check_free)
    card = _card(_object(move.get("card"), "move.card"), "move.card")
    return Vector(name, board, player, cell, card)


def run_vector(vector: Vector) -> tuple[Board, Placement]:
    return vector.board.place(vector.cell, vector.card, vector.player)


def result_json(name: Any, board: Board, placement: Placement) -> dict[str, Any]:
    """The output line of ``triad-rules resolve`` for one vector."""
    return placement_json(name, board.owners, placement.captures)


def placement_json(
    name: Any, owners: Sequence[int | None], captures: Iterable[Capture]
) -> dict[str, Any]:
    """The owners after a placement and its captures, as ``triad-rules resolve`` writes
    them for every family. Captures are listed in ascending cell order (as the conformance
    files write ``expect``), not in the order they were taken, so a line equals the
    expected one as text too, not only as JSON."""
    in_cell_order = sorted(captures, key=lambda c: c.cell)
    return {
        "name": name,
        "owners": [None if o is None else Seat(o).name for o in owners],
        "captures": {str(c.cell): c.cause.value for c in in_cell_order},
    }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _size(value: object) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(_is_int(v) and v >= 1 for v in value)
    ):
        raise VectorError("'size' must be [rows, columns], two whole numbers of at least 1")
    rows, cols = value
    if rows * cols > MAX_SIDE_CELLS:
        raise VectorError(f"'size' {rows}x{cols} is too large: at most {MAX_SIDE_CELLS} cells")
    return rows, cols


def _blocked(value: object, size: int) -> frozenset[int]:
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise VectorError("'blocked' must be a list of cell indices")
    outside = [v for v in value if not 0 <= v < size]
    if outside:
        raise VectorError(f"'blocked' cells {outside} are outside the board (0..{size - 1})")
    return frozenset(value)


def _rules(value: object) -> Rules:
    if not isinstance(value, dict):
        raise VectorError("'rules' must be an object such as {\"same\": true}")
    # Null is off, and a rule off needs no knowing: an unknown name is refused only
    # where it is asked for (found from outside: {"cursed": false} failed the vector).
    value = {key: flag for key, flag in value.items() if flag is not None and flag is not False}
    unknown = sorted(set(value) - RULE_NAMES)
    if unknown:
        known = ", ".join(sorted(RULE_NAMES))
        raise VectorError(f"unknown rule {', '.join(map(repr, unknown))}; known rules: {known}")
    for key, flag in value.items():
        if not isinstance(flag, bool):
            raise VectorError(f"rule {key!r} must be true or false, got {flag!r}")
    return Rules(**value)


def _list(value: object, field: str, size: int) -> list[Any]:
    if not isinstance(value, list):
        raise VectorError(f"'{field}' must be a list of {size} entries, row-major")
    if len(value) != size:
        raise VectorError(f"'{field}' has {len(value)} entries; the board has {size} cells")
    return value


def _cell_list(raw: dict[str, Any], field: str, size: int) -> list[Any]:
    """``raw[field]``, one entry per cell; a vector that gives no ``size`` is told that
    it is on the 3x3 board when its list is longer (a 4x4 board sent without its size
    read only "has 16 entries; the board has 9 cells")."""
    value = raw.get(field)
    if given(raw, "size", None) is None and isinstance(value, list) and len(value) > size:
        raise VectorError(
            f"'{field}' has {len(value)} entries, but a vector without 'size' is on the "
            f'3x3 board ({size} cells); give the size of a larger board, such as "size": [4, 4]'
        )
    return _list(value, field, size)


def _object(value: object, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise VectorError(f"'{field}' must be an object")
    return value


def _seat(value: object, field: str) -> Seat:
    if value not in ("A", "B"):
        raise VectorError(f'{field} must be "A" or "B", got {value!r}')
    return Seat.A if value == "A" else Seat.B


def _element(value: object, field: str) -> Element | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in ELEMENT_NAMES:
        raise VectorError(
            f"{field}: unknown element {value!r}; elements are {', '.join(ELEMENT_NAMES)} or null"
        )
    return Element(value)


def _side(value: object) -> object:
    """A side as printed: a whole number, or ``"A"`` for 10 (RULES.md 1 writes A so)."""
    return ACE if value == "A" else value


def _card(raw: dict[str, Any], field: str) -> Card:
    sides = raw.get("sides")
    if isinstance(sides, list):
        sides = [_side(s) for s in sides]
    if not isinstance(sides, list) or len(sides) != 4 or not all(_is_int(s) for s in sides):
        raise VectorError(
            f'{field}.sides must be four whole numbers (or "A" for 10): top, right, bottom, left'
        )
    if not all(1 <= s <= ACE for s in sides):
        raise VectorError(f"{field}.sides {sides} must each be within 1..10 (A is 10)")
    typed: Sides = (sides[0], sides[1], sides[2], sides[3])
    return Card(typed, _element(raw.get("element"), f"{field}.element"))
