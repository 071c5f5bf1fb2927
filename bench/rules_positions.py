"""Random positions for the rules engine benchmark (bench/rules.py), 3x3 and 5x5 with
blocked cells: mid-game boards, the flat inputs the kernel (``resolve``) takes and the
immutable ``Board`` the match service places on, and the check that both agree.

Why random and uniform: no deck rule applies, so every kind of comparison (ties for
Same, sums for Plus, elemental +-1) turns up often; the capture mix each check returns
says what a workload exercised.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from services.rules import (
    ACE,
    Board,
    Capture,
    Card,
    Element,
    Geometry,
    Rules,
    Sides,
    adjusted_sides,
    resolve,
)
from services.rules.compatibility import MAX_BLOCKED
from services.rules.draws import draw_blocked_cells

WIDE_ROWS = WIDE_COLS = 5
"""Quintra's board (RULES.md 11): 13-card hands, 0..MAX_BLOCKED cells blocked."""
MARK_CHANCE = 1 / 3
"""The Elemental decision: each cell is marked with probability 1/3, element uniform."""
ELEMENTS: tuple[Element, ...] = tuple(Element)
CARD_ELEMENTS: tuple[Element | None, ...] = (*ELEMENTS, None)
"""A random card's element: uniform over the eight elements and none."""


@dataclass(frozen=True, slots=True)
class MidGame:
    """A random mid-game 3x3 position and the placement about to be made on it."""

    marks: tuple[Element | None, ...]
    cards: tuple[Card | None, ...]
    owners: tuple[int | None, ...]
    cell: int
    card: Card
    player: int


KernelCase = tuple[tuple[Sides | None, ...], list[int | None], int, Sides, int]
"""What ``resolve`` takes besides geometry and rules: adjusted, owners, cell, sides, player."""
BoardCase = tuple[Board, int, Card, int]
"""What ``Board.place`` takes: the board, the cell, the card, the player."""


class Caused(Protocol):
    """A capture of either kernel, standard or Realm: what caused it is all the mix reads."""

    @property
    def cause(self) -> str: ...


def random_card(rng: random.Random) -> Card:
    """Uniform sides 1..A and element: no deck rule applies, so every kind of comparison
    (ties for Same, sums for Plus, elemental +-1) turns up often."""
    return Card(
        (rng.randint(1, ACE), rng.randint(1, ACE), rng.randint(1, ACE), rng.randint(1, ACE)),
        rng.choice(CARD_ELEMENTS),
    )


def random_marks(
    rng: random.Random, size: int, blocked: frozenset[int] = frozenset()
) -> tuple[Element | None, ...]:
    """Cell marks as the Elemental decision draws them (see ``MARK_CHANCE``); a blocked
    cell is never marked and takes nothing from ``rng``."""
    return tuple(
        rng.choice(ELEMENTS) if c not in blocked and rng.random() < MARK_CHANCE else None
        for c in range(size)
    )


def random_midgame(rng: random.Random, geometry: Geometry) -> MidGame:
    """1..n-1 of the n playable cells occupied by random cards and owners, one random
    empty playable target cell, a random mover and a random card for it."""
    size = geometry.size
    marks = random_marks(rng, size, geometry.blocked)
    occupied = set(rng.sample(geometry.playable, rng.randint(1, len(geometry.playable) - 1)))
    cards = tuple(random_card(rng) if c in occupied else None for c in range(size))
    owners = tuple(rng.randint(0, 1) if c in occupied else None for c in range(size))
    cell = rng.choice([c for c in geometry.playable if c not in occupied])
    return MidGame(marks, cards, owners, cell, random_card(rng), rng.randint(0, 1))


def random_wide_geometry(rng: random.Random) -> Geometry:
    """A 5x5 board with 0..MAX_BLOCKED blocked cells (uniform), drawn as a match draws
    them (``draw_blocked_cells``)."""
    blocked = draw_blocked_cells(WIDE_ROWS, WIDE_COLS, rng.randint(0, MAX_BLOCKED), rng)
    return Geometry.of(WIDE_ROWS, WIDE_COLS, blocked)


def kernel_case(position: MidGame, rules: Rules) -> KernelCase:
    """The flat inputs of ``resolve``, adjusted for the cell marks as ``Board`` would."""
    adjusted = tuple(
        None if card is None else adjusted_sides(card, mark, rules.elemental)
        for card, mark in zip(position.cards, position.marks, strict=True)
    )
    sides = adjusted_sides(position.card, position.marks[position.cell], rules.elemental)
    return adjusted, list(position.owners), position.cell, sides, position.player


def board_case(position: MidGame, geometry: Geometry, rules: Rules) -> BoardCase:
    """The same position as an immutable ``Board``, built with ``with_card``."""
    board = Board.empty(geometry, rules, position.marks)
    for cell, (card, owner) in enumerate(zip(position.cards, position.owners, strict=True)):
        if card is not None and owner is not None:
            board = board.with_card(cell, card, owner)
    return board, position.cell, position.card, position.player


def cross_check(
    rules: Rules, kernels: list[KernelCase], boards: list[BoardCase]
) -> dict[str, float]:
    """Both paths must agree on every position (else one of them is being timed doing
    something else), and the mix of captures says what the workload exercised. Each
    position is resolved on its board's geometry."""
    found: list[list[Capture]] = []
    for (adjusted, owners, cell, sides, player), (board, b_cell, card, b_player) in zip(
        kernels, boards, strict=True
    ):
        after = owners[:]
        captures = resolve(board.geometry, adjusted, after, cell, sides, player, rules)
        placed, placement = board.place(b_cell, card, b_player)
        after[cell] = player
        if tuple(captures) != placement.captures or tuple(after) != placed.owners:
            raise RuntimeError(f"kernel and Board.place disagree on cell {cell}: {captures}")
        found.append(captures)
    return capture_mix(found)


def capture_mix(placements: Sequence[Sequence[Caused]]) -> dict[str, float]:
    """What a workload exercised, from each placement's captures: the share of
    placements with a capture, with a Same or Plus capture, with a Combo capture, and
    the mean captures per placement."""
    n = len(placements)
    special = sum(any(c.cause in ("same", "plus") for c in p) for p in placements)
    return {
        "placements_with_a_capture": round(sum(bool(p) for p in placements) / n, 4),
        "placements_with_same_or_plus": round(special / n, 4),
        "placements_with_combo": round(
            sum(any(c.cause == "combo" for c in p) for p in placements) / n, 4
        ),
        "mean_captures_per_placement": round(sum(len(p) for p in placements) / n, 4),
    }
