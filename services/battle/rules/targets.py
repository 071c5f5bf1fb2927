"""Targets, formation and the squares a card reaches (BATTLE.md 1 and 2).

Every function here reads squares only (the occupied squares of each field), so plan
checks on a frozen battle and resolution on a turn's working copy share them.

Decisions where BATTLE.md is silent:

- Formation binds the ranges that choose one enemy unit: ``single`` and the centre of
  ``cross``; ``row`` and ``column`` may choose any enemy line holding a unit.
- ``cross`` reaches the chosen unit and the occupied squares above, below, left and
  right of it on the same field.
- ``ally`` chooses any unit of one's own field, the user and summons included.
- A target that is gone (no unit on its square, no unit in its line, or no longer a legal
  choice) is replaced by the nearest legal choice of the same range: least Manhattan
  distance from the chosen square (for a line, from the chosen line), then the lowest
  row, then the lowest column.
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


def screened(square: Square, occupied: Collection[Square]) -> bool:
    """Formation: a unit with another unit in front of it in its row (a lower column)."""
    row, col = square
    return any((row, c) in occupied for c in range(col))


def choices(
    rng: Range,
    ignore_formation: bool,
    summons: bool,
    enemy: Collection[Square],
    own: Collection[Square],
) -> list[Target]:
    """Every legal target of a card of range ``rng`` on these fields, in square order."""
    if rng is Range.SINGLE or rng is Range.CROSS:
        return [
            Target(r, c)
            for r, c in SQUARES
            if (r, c) in enemy and (ignore_formation or not screened((r, c), enemy))
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


def reach(
    rng: Range, target: Target, enemy: Collection[Square], own: Collection[Square]
) -> tuple[bool, list[Square]]:
    """The squares a card reaches: (on the enemy field?, squares in square order)."""
    if rng is Range.SINGLE or rng is Range.ALLY:
        square = target.square
        return rng is Range.SINGLE, [square] if square is not None else []
    if rng is Range.CROSS:
        r, c = target.row or 0, target.col or 0
        near = {(r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}
        return True, [s for s in SQUARES if s in near and s in enemy]
    if rng is Range.ROW:
        return True, [s for s in SQUARES if s[0] == target.row and s in enemy]
    if rng is Range.COLUMN:
        return True, [s for s in SQUARES if s[1] == target.col and s in enemy]
    if rng is Range.ALL:
        return True, [s for s in SQUARES if s in enemy]
    if rng is Range.ALLIES:
        return False, [s for s in SQUARES if s in own]
    return False, []
