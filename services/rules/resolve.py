"""Placement resolution, RULES.md section 4, in the rulebook's order.

When a player places card P on cell c:

1. **Special captures** (Same, Same Wall, Plus), judged on the board as it was before
   the placement changes any owner; their union is the special set and flips at once.
2. **Basic captures**: P takes every enemy neighbour whose facing side is strictly lower.
3. **Combo**: each card of the special set, in ascending cell order, attacks its enemy
   neighbours by the basic rule; each card it takes joins the queue in turn. Cards
   taken in step 2 never start a chain.

Every comparison uses adjusted values (see :func:`cards.adjusted_sides`), which the
caller stores per occupied cell. This module is the hot path of the whole backend: it
works on flat sequences and precomputed neighbour tables and allocates little.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple, TypeVar

from services.rules.cards import ACE, Sides
from services.rules.geometry import Contact, Geometry


class Cause(StrEnum):
    """Why a card changed owner. A card in both the Same and Plus sets is ``same``."""

    SAME = "same"
    PLUS = "plus"
    BASIC = "basic"
    COMBO = "combo"


class Capture(NamedTuple):
    cell: int
    cause: Cause


@dataclass(frozen=True, slots=True)
class Rules:
    """The optional placement rules of a match; a rule left out is off."""

    same: bool = False
    plus: bool = False
    combo: bool = False
    elemental: bool = False
    same_wall: bool = False


@dataclass(frozen=True, slots=True)
class Placement:
    """The outcome of one placement: every captured cell with its cause, in the order
    the rules took them (special set ascending, then basic, then the Combo chain)."""

    cell: int
    captures: tuple[Capture, ...]


_SAME, _PLUS, _BASIC, _COMBO = Cause.SAME, Cause.PLUS, Cause.BASIC, Cause.COMBO

Touching = list[tuple[int, int, int]]
"""Occupied neighbours of the placed card: (cell, P's facing value, its facing value)."""

Owners = MutableSequence[int | None]
Adjusted = Sequence[Sides | None]
Owner = TypeVar("Owner")
"""A cell's owner as a resolver keeps it: a seat, or what marks an empty cell."""


def resolve(
    geometry: Geometry,
    adjusted: Adjusted,
    owners: Owners,
    cell: int,
    sides: Sides,
    player: int,
    rules: Rules,
) -> list[Capture]:
    """Resolve ``player`` placing a card with adjusted ``sides`` on the empty ``cell``.

    ``adjusted`` holds the adjusted sides of every occupied cell and ``owners`` its
    owner (0 or 1; ``None`` when empty). The captured cells' owners are flipped in
    ``owners`` in place; the placed card itself is left for the caller to record.
    Returns the captures with their causes.
    """
    touching: Touching = [
        (n, sides[mine], other[theirs])
        for n, mine, theirs in geometry.contacts[cell]
        if (other := adjusted[n]) is not None
    ]
    enemy = 1 - player
    special: dict[int, Cause] = {}
    if rules.same:
        walls = _aces_facing_walls(geometry.walls[cell], sides) if rules.same_wall else 0
        _same(touching, walls, owners, enemy, special)
    if rules.plus:
        _plus(touching, owners, enemy, special)
    captures: list[Capture] = []
    for n in sorted(special):
        owners[n] = player
        captures.append(Capture(n, special[n]))
    _basic(touching, owners, player, enemy, captures)
    if rules.combo and special:
        # Combo: the special set, in ascending cell order, starts the chain.
        chain = combo_chain(geometry.contacts, adjusted, owners, sorted(special), player, enemy)
        captures.extend(Capture(n, _COMBO) for n in chain)
    return captures


def _aces_facing_walls(walls: tuple[int, ...], sides: Sides) -> int:
    """Same Wall: each side of P facing the board edge (or a blocked cell) that reads A
    counts as one more match."""
    return sum(1 for side in walls if sides[side] == ACE)


def _same(
    touching: Touching, walls: int, owners: Owners, enemy: int, special: dict[int, Cause]
) -> None:
    """Same: with two or more matching neighbours (friendly ones and Same Wall edges
    count), every enemy card among the matching ones is captured. A Realm table's Same
    is this one on printed values, with no Same Wall (``walls`` 0)."""
    matched = [n for n, mine, theirs in touching if mine == theirs]
    if len(matched) + walls >= 2:
        for n in matched:
            if owners[n] == enemy:
                special[n] = _SAME


def _plus(touching: Touching, owners: Owners, enemy: int, special: dict[int, Cause]) -> None:
    """Plus: for every sum of facing sides shared by two or more neighbours, every enemy
    card among them is captured. Friendly pairs count; the board edge never does."""
    if len(touching) < 2:
        return
    sums = [mine + theirs for _, mine, theirs in touching]
    for (n, _, _), total in zip(touching, sums, strict=True):
        if owners[n] == enemy and n not in special and sums.count(total) >= 2:
            special[n] = _PLUS


def _basic(
    touching: Touching, owners: Owners, player: int, enemy: int, captures: list[Capture]
) -> None:
    """Basic: P captures every enemy neighbour whose facing side is strictly lower."""
    for n, mine, theirs in touching:
        if mine > theirs and owners[n] == enemy:
            owners[n] = player
            captures.append(Capture(n, _BASIC))


def combo_chain(
    contacts: Sequence[tuple[Contact, ...]],
    adjusted: Adjusted,
    owners: MutableSequence[Owner],
    queue: list[int],
    player: Owner,
    enemy: Owner,
) -> Iterator[int]:
    """Combo: each card of ``queue`` (the special set) in turn attacks its enemy
    neighbours by the basic rule; every card it takes goes to ``player`` in ``owners``,
    joins the end of the queue and is yielded. The caller takes every card it yields
    (the chain goes on only as it is read). The search's resolver (:mod:`flips`) reads
    it too, with its own owners (-1 for an empty cell)."""
    for attacker in queue:  # the queue grows while we walk it
        attack = adjusted[attacker]
        assert attack is not None
        for n, mine, theirs in contacts[attacker]:
            if owners[n] == enemy:
                defence = adjusted[n]
                assert defence is not None
                if attack[mine] > defence[theirs]:
                    owners[n] = player
                    queue.append(n)
                    yield n
