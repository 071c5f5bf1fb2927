"""A deliberately naive second reading of RULES.md section 4, for differential tests.

It shares no code with the engine: coordinates instead of neighbour tables, dicts
instead of flat tuples, sets recomputed from scratch. When the two disagree on a
random position, one of them misreads the rulebook.
"""

from __future__ import annotations

from dataclasses import dataclass

DIRECTIONS = {  # side index: (row step, column step)
    0: (-1, 0),
    1: (0, 1),
    2: (1, 0),
    3: (0, -1),
}


@dataclass
class RefCard:
    sides: list[int]
    owner: str
    element: str | None


def _adjust(card: RefCard, mark: str | None, elemental: bool) -> list[int]:
    if not elemental or mark is None:
        return list(card.sides)
    delta = 1 if card.element == mark else -1
    return [min(10, max(1, s + delta)) for s in card.sides]


def reference_resolve(
    rows: int,
    cols: int,
    blocked: set[int],
    board: dict[int, RefCard],
    marks: dict[int, str | None],
    rules: dict[str, bool],
    cell: int,
    placed: RefCard,
) -> tuple[dict[int, str], dict[int, str]]:
    """Returns (owner of every occupied cell afterwards, captures with causes)."""
    elemental = rules.get("elemental", False)
    value = {c: _adjust(card, marks.get(c), elemental) for c, card in board.items()}
    value[cell] = _adjust(placed, marks.get(cell), elemental)
    owner = {c: card.owner for c, card in board.items()}
    owner[cell] = placed.owner
    me = placed.owner

    def neighbour(c: int, side: int) -> int | None:
        r, k = divmod(c, cols)
        dr, dk = DIRECTIONS[side]
        r, k = r + dr, k + dk
        if not (0 <= r < rows and 0 <= k < cols):
            return None
        n = r * cols + k
        return None if n in blocked else n

    # (neighbour cell, my value, its value) for occupied neighbours
    pairs = []
    edge_aces = 0
    for side in range(4):
        n = neighbour(cell, side)
        if n is None:
            if value[cell][side] == 10:
                edge_aces += 1
            continue
        if n in board:
            pairs.append((n, value[cell][side], value[n][(side + 2) % 4]))

    causes: dict[int, str] = {}
    if rules.get("same"):
        matching = [n for n, a, b in pairs if a == b]
        count = len(matching) + (edge_aces if rules.get("same_wall") else 0)
        if count >= 2:
            for n in matching:
                if owner[n] != me:
                    causes[n] = "same"
    if rules.get("plus"):
        for i, (n, a, b) in enumerate(pairs):
            partners = [j for j, (_, c, d) in enumerate(pairs) if j != i and c + d == a + b]
            if partners and owner[n] != me and n not in causes:
                causes[n] = "plus"
    special = sorted(causes)
    for n in special:
        owner[n] = me
    for n, a, b in pairs:
        if owner[n] != me and a > b:
            owner[n] = me
            causes[n] = "basic"
    if rules.get("combo"):
        queue = list(special)
        while queue:
            q = queue.pop(0)
            for side in range(4):
                n = neighbour(q, side)
                if n is None or n not in owner or owner[n] == me:
                    continue
                if value[q][side] > value[n][(side + 2) % 4]:
                    owner[n] = me
                    causes[n] = "combo"
                    queue.append(n)
    return owner, causes
