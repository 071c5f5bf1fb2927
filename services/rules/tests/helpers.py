"""Small builders that keep the rule tests as short as the rulebook's examples."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import Any

from services.rules import Board, Card, Element, Geometry, Placement, Rules, Seat, Sides

Spec = tuple[Sides, str] | tuple[Sides, str, Element | None]


def card(sides: Sides, element: Element | None = None, id: str = "") -> Card:
    return Card(sides, element, id)


def board_of(
    cards: Mapping[int, Spec],
    rules: Rules,
    rows: int = 3,
    cols: int = 3,
    blocked: tuple[int, ...] = (),
    marks: Mapping[int, Element] | None = None,
) -> Board:
    geometry = Geometry.of(rows, cols, blocked)
    cell_marks = [None if marks is None else marks.get(c) for c in range(geometry.size)]
    board = Board.empty(geometry, rules, cell_marks)
    for cell, spec in cards.items():
        element = spec[2] if len(spec) == 3 else None
        board = board.with_card(cell, Card(spec[0], element), Seat[spec[1]])
    return board


def place(
    cards: Mapping[int, Spec],
    cell: int,
    sides: Sides,
    rules: Rules,
    player: str = "A",
    element: Element | None = None,
    **shape: object,
) -> tuple[Board, Placement, dict[int, str]]:
    """Place ``sides`` for ``player`` on ``cell``; also return captures as {cell: cause}."""
    board = board_of(cards, rules, **shape)  # type: ignore[arg-type]
    after, placement = board.place(cell, Card(sides, element), Seat[player])
    return after, placement, {c.cell: c.cause.value for c in placement.captures}


def owners(board: Board) -> list[str | None]:
    return [None if o is None else Seat(o).name for o in board.owners]


def run_resolve(stdin: str, **redirect: Any) -> subprocess.CompletedProcess[str]:
    """``triad-rules resolve`` as a process (the command the conformance vectors check),
    ``stdin`` its input; its output captured unless ``redirect`` says where it goes."""
    streams: dict[str, Any] = redirect or {"capture_output": True}
    return subprocess.run(
        [sys.executable, "-m", "services.rules.cli", "resolve"],
        input=stdin,
        text=True,
        check=False,
        **streams,
    )


Answers = tuple[int, list[dict[str, object]], str]
"""A run of a triad-rules command: its exit code, its answers (one per line), stderr."""


def all_at_once(command: Callable[[str], Answers], malformed: list[tuple[str, str]]) -> Answers:
    """Every malformed line (with the words its error must hold) through one run of the
    command, as a file of them would come: it goes on after each bad line, so each gets
    its own error line."""
    return command("".join(line + "\n" for line, _ in malformed))


def check_error_line(run: Answers, malformed: list[tuple[str, str]], index: int) -> None:
    """The answer to line ``index`` of ``all_at_once``'s run names its problem."""
    code, answers, stderr = run
    assert code == 1
    assert len(answers) == len(malformed)
    line, words = malformed[index]
    assert words in str(answers[index]["error"]), line[:200]
    assert "Traceback" not in stderr
