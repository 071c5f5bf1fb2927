"""Targets, formation and the squares a card reaches (BATTLE.md 1 and 2).

Every function here reads squares only (the occupied squares of each field), so plan
checks on a frozen battle and resolution on a turn's working copy share them.

Decisions where BATTLE.md is silent:

- Formation binds ``single`` alone, the single-target range BATTLE.md 2 names (as
  Cover takes ``single`` hits alone): ``cross`` may be centred on any enemy unit, one
  behind another included (found in review: the engine held the centre of ``cross`` to
  formation, and Cover did not take its hit, two readings of one term); ``row`` and
  ``column`` may choose any enemy line holding a unit.
- ``cross`` reaches the chosen unit and the occupied squares above, below, left and
  right of it on the same field.
- ``ally`` chooses any unit of one's own field, the user and summons included.
- A target that is gone (no unit on its square, no unit in its line) is replaced by the
  nearest legal choice of the same range: least Manhattan distance from the chosen
  square (for a line, from the chosen line), then the lowest row, then the lowest
  column. An enemy unit still on its chosen square is not gone, even with a summon
  arrived in front of it during the turn: formation binds the choice when plans are set.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from services.battle.rules.content import Range
from services.battle.rules.state import COLS, ROWS, SQUARES, Square


@dataclass(frozen=True, slots=True, order=True)
class Target:
    """What a plan's action aims at: a square (``single``, ``cross``, ``ally``, a summon's
    square), a row, a column, or nothing (``all``, ``allies``, ``self``)."""

    row: int | None = None
    col: int | None = None

    @property
    def square(self) -> Square | None:
        if self.row is None or self.col is None:
            return None
        return (self.row, self.col)


NONE = Target()
_SINGLE, _CROSS, _ROW, _COLUMN = Range.SINGLE, Range.CROSS, Range.ROW, Range.COLUMN
_ALL, _SELF, _ALLY, _ALLIES = Range.ALL, Range.SELF, Range.ALLY, Range.ALLIES


def screened(square: Square, occupied: Collection[Square]) -> bool:
    """Formation: a unit with another unit in front of it in its row (a lower column)."""
    row, col = square
    return col > 0 and ((row, 0) in occupied or (col > 1 and (row, 1) in occupied))


def is_legal(
    rng: Range,
    ignore_formation: bool,
    summons: bool,
    target: Target,
    enemy: Collection[Square],
    own: Collection[Square],
) -> bool:
    """Whether ``target`` is one of :func:`choices` (without building them: the hot path)."""
    row, col = target.row, target.col
    if rng is _SINGLE or rng is _CROSS:
        return (
            row is not None
            and col is not None
            and (row, col) in enemy
            and (ignore_formation or rng is _CROSS or not screened((row, col), enemy))
        )
    if rng is _ROW:
        return col is None and row is not None and any((row, c) in enemy for c in range(COLS))
    if rng is _COLUMN:
        return row is None and col is not None and any((r, col) in enemy for r in range(ROWS))
    if rng is _ALLY:
        return row is not None and col is not None and (row, col) in own
    if rng is _SELF and summons:
        return row is not None and col is not None and 0 <= row < ROWS and 0 <= col < COLS
    return row is None and col is None


def choices(
    rng: Range,
    ignore_formation: bool,
    summons: bool,
    enemy: Collection[Square],
    own: Collection[Square],
) -> list[Target]:
    """Every legal target of a card of range ``rng`` on these fields, in square order."""
    if rng is _SINGLE or rng is _CROSS:
        free = ignore_formation or rng is _CROSS
        return [
            Target(r, c)
            for r, c in SQUARES
            if (r, c) in enemy and (free or not screened((r, c), enemy))
        ]
    if rng is Range.ROW:
        return [Target(row=r) for r in range(ROWS) if any((r, c) in enemy for c in range(COLS))]
    if rng is Range.COLUMN:
        return [Target(col=c) for c in range(COLS) if any((r, c) in enemy for r in range(ROWS))]
    if rng is Range.ALLY:
        return [Target(r, c) for r, c in SQUARES if (r, c) in own]
    if rng is Range.SELF and summons:
        return [Target(r, c) for r, c in SQUARES]
    return [NONE]


def retarget(target: Target, legal: list[Target]) -> Target | None:
    """The chosen target if still legal, else the nearest legal one, else None."""
    if target in legal:
        return target
    if not legal:
        return None
    return min(legal, key=lambda t: (_distance(target, t), t.row or 0, t.col or 0))


def _distance(a: Target, b: Target) -> int:
    rows = abs((a.row or 0) - (b.row or 0)) if a.row is not None and b.row is not None else 0
    cols = abs((a.col or 0) - (b.col or 0)) if a.col is not None and b.col is not None else 0
    return rows + cols


_ROWS = tuple(tuple((r, c) for c in range(COLS)) for r in range(ROWS))
_COLS = tuple(tuple((r, c) for r in range(ROWS)) for c in range(COLS))
_CROSSES = {
    (r, c): tuple(s for s in SQUARES if abs(s[0] - r) + abs(s[1] - c) <= 1) for r, c in SQUARES
}
"""The squares of each line and each cross, in square order, computed once."""


def reach(
    rng: Range, target: Target, enemy: Collection[Square], own: Collection[Square]
) -> tuple[bool, list[Square]]:
    """The squares a card reaches: (on the enemy field?, squares in square order)."""
    if rng is _SINGLE or rng is _ALLY:
        square = target.square
        return rng is _SINGLE, [square] if square is not None else []
    if rng is _CROSS:
        return True, [s for s in _CROSSES[(target.row or 0, target.col or 0)] if s in enemy]
    if rng is _ROW:
        return True, [s for s in _ROWS[target.row or 0] if s in enemy]
    if rng is _COLUMN:
        return True, [s for s in _COLS[target.col or 0] if s in enemy]
    if rng is _ALL:
        return True, [s for s in SQUARES if s in enemy]
    if rng is _ALLIES:
        return False, [s for s in SQUARES if s in own]
    return False, []
