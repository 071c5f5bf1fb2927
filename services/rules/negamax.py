"""The compiled search behind :mod:`solver` (whose docstring says why and how): negamax
with alpha-beta over mutable flat lists, placing cards with the resolver of :mod:`flips`,
as closures (:class:`Engine`) built by :func:`compile_position`. Pure: no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from operator import itemgetter
from random import Random

from services.rules.cards import ACE, Card, Sides, adjusted_sides
from services.rules.flips import NO_FLIPS, compile_flips
from services.rules.game import Move, Position

INF = 10_000
"""Above any score difference: a window (-INF, INF) is a full-width search."""

STOP_POLL = 2048
"""Nodes between two polls of ``stop``: costs nothing, keeps a budget to milliseconds."""

TABLE_MIN_EMPTIES = 3
"""Positions with fewer empty cells are not stored: recomputing them is cheaper."""


_captures = itemgetter(0)
"""A move's sort key: how many cards it captures. ``reverse=True`` keeps the sort stable."""


class SearchStopped(Exception):
    """The caller's ``stop`` asked the search to give up before it finished."""


Window = tuple[int, int]  # (alpha, beta)


@dataclass(frozen=True, slots=True)
class Engine:
    empties: int
    root: Callable[[int, int, int, Random | None], tuple[int, Move | None]]
    root_values: Callable[[int, Collection[Move] | None], list[tuple[Move, int]]]
    nodes: Callable[[], int]
    table_size: Callable[[], int]
    captured: Callable[[Move], list[int]]


def _card_types(
    position: Position,
) -> tuple[list[Card], list[list[int]], list[int], list[list[int]]]:
    """Number the distinct cards of both hands. Returns (a card per type, the types of
    each seat, how many of each type, the first hand index of each type)."""
    cards: list[Card] = []
    types: list[list[int]] = [[], []]
    counts: list[int] = []
    first_index: list[list[int]] = [[], []]
    for seat in (0, 1):
        seen: dict[tuple[Sides, object], int] = {}
        for index, card in enumerate(position.hands[seat]):
            key = (card.sides, card.element)
            kind = seen.get(key)
            if kind is None:
                kind = seen[key] = len(cards)
                cards.append(card)
                types[seat].append(kind)
                counts.append(0)
                first_index[seat].append(index)
            counts[kind] += 1
    return cards, types, counts, first_index


def compile_position(position: Position, stop: Callable[[], bool] | None) -> Engine:
    """Build the search closures over flat mutable state for ``position``."""
    board = position.board
    geometry = board.geometry
    rules = board.rules
    size = geometry.size
    contacts = geometry.contacts

    at: list[Sides | None] = list(board.adjusted)
    own: list[int] = [-1 if o is None else o for o in board.owners]
    near, capture = compile_flips(contacts, rules, at, own)
    cards, types, counts, first_index = _card_types(position)
    # Per type and cell: its adjusted sides, and (Same Wall) its aces facing the edge.
    sides_at: list[list[Sides]] = [
        [adjusted_sides(card, board.marks[c], rules.elemental) for c in range(size)]
        for card in cards
    ]
    wall_aces: list[list[int]] = [
        [
            sum(1 for side in geometry.walls[c] if sides[c][side] == ACE) if rules.same_wall else 0
            for c in range(size)
        ]
        for sides in sides_at
    ]
    # The key: one digit per cell, (type + 1) * 2 + owner, 0 while empty. Cells filled
    # before the search are constant, so only cells filled during it need a digit.
    bits = (2 * len(cards) + 2).bit_length()
    digit = [
        [[((kind + 1) * 2 + p) << (bits * c) for c in range(size)] for p in (0, 1)]
        for kind in range(len(cards))
    ]
    owner_bit = [1 << (bits * c) for c in range(size)]
    cell_bit = [1 << c for c in range(size)]
    cells_of = _CellsOf(size)

    table: dict[int, tuple[int, int, int, int]] = {}
    visited = 0
    next_poll = STOP_POLL
    """``stop`` is polled at the first node after every ``STOP_POLL`` nodes (leaves count
    as nodes but are not polled at), so each poll stands for at least that many nodes."""

    def search(
        p: int, d: int, alpha: int, beta: int, empty: int, left: int, key: int, depth: int
    ) -> int:
        """Negamax value for ``p`` to move, with ``d`` the score difference now, ``left``
        empty cells (bit set ``empty``), ``depth`` placements still to look at."""
        nonlocal visited, next_poll
        visited += 1
        if visited >= next_poll and stop is not None:
            next_poll = visited + STOP_POLL
            if stop():
                raise SearchStopped
        if depth == 0 or left == 0:
            return d
        q = 1 - p
        if depth == 1:  # the last placement, or the horizon: no reply, no table
            # Each placement looked at is a position visited: counted here and added at
            # once (``stop`` is polled on entry only, so only the total matters).
            best = -INF
            looked = 0
            kinds = types[p]
            for c in cells_of[empty]:
                touching = near(c, q)  # read once for every card tried on c
                for kind in kinds:
                    if counts[kind]:
                        looked += 1
                        if touching is None:  # nothing flips here
                            value = d
                        else:
                            flipped = capture(touching, sides_at[kind][c], wall_aces[kind][c], p)
                            for n in flipped:
                                own[n] = q
                            value = d + 2 * len(flipped)
                        if value > best:
                            best = value
                            if value >= beta:
                                visited += looked
                                return best
            visited += looked
            return best
        entry = table.get(key) if left >= TABLE_MIN_EMPTIES else None
        first = -1
        lo, hi = -INF, INF
        if entry is not None:
            if entry[2] >= depth:
                lo, hi = entry[0], entry[1]
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                # Plain ifs, not max()/min(): this is the hottest loop of the search.
                if lo > alpha:  # noqa: PLR1730
                    alpha = lo
                if hi < beta:  # noqa: PLR1730
                    beta = hi
            first = entry[3]
        start_alpha, start_beta = alpha, beta
        if first >= 0:
            # The table's move alone first: it refutes often, and a refutation then
            # saves resolving every other move just to order them.
            kind, c = divmod(first, size)
            touching = near(c, q)
            flipped = NO_FLIPS
            if touching is not None:
                flipped = capture(touching, sides_at[kind][c], wall_aces[kind][c], p)
                for n in flipped:
                    own[n] = q
            moves = [(len(flipped), kind, c, flipped)]
        else:
            moves = _ordered_moves(p, q, empty, -1)
        best = -INF
        best_move = -1
        child_depth = depth - 1
        child_left = left - 1
        for count, kind, c, flipped in moves:
            child_key = key + digit[kind][p][c]
            for n in flipped:
                own[n] = p
                child_key ^= owner_bit[n]
            own[c] = p
            at[c] = sides_at[kind][c]
            counts[kind] -= 1
            try:
                value = -search(
                    q,
                    -d - 2 * count,
                    -beta,
                    -alpha,
                    empty ^ cell_bit[c],
                    child_left,
                    child_key,
                    child_depth,
                )
            finally:
                counts[kind] += 1
                at[c] = None
                own[c] = -1
                for n in flipped:
                    own[n] = q
            if value > best:
                best = value
                best_move = kind * size + c
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
            if first >= 0:  # no refutation: the other moves, which the loop goes on to
                moves.extend(_ordered_moves(p, q, empty, first))
                first = -1
        if left >= TABLE_MIN_EMPTIES and (entry is None or entry[2] <= depth):
            # Keep a deeper entry (an exact one met by a depth-limited search).
            if entry is None or entry[2] != depth:
                lo, hi = -INF, INF
            if best <= start_alpha:
                hi = best
            elif best >= start_beta:
                lo = best
            else:
                lo = hi = best
            table[key] = (lo, hi, depth, best_move)
        return best

    def _ordered_moves(
        p: int, q: int, empty: int, tried: int
    ) -> list[tuple[int, int, int, list[int]]]:
        """Every distinct move of ``p`` but ``tried`` (the table's move, already searched)
        with what it captures, best first: by captures (stable, so equal moves keep the
        order given)."""
        moves: list[tuple[int, int, int, list[int]]] = []
        # A cell's neighbours are read once for every card tried there (a loop, not a
        # comprehension: cheaper for the few cells of a small board).
        nears = []
        for c in cells_of[empty]:
            nears.append((c, near(c, q)))
        for kind in types[p]:
            if counts[kind]:
                sides = sides_at[kind]
                aces = wall_aces[kind]
                for c, touching in nears:
                    if touching is None:
                        moves.append((0, kind, c, NO_FLIPS))
                    else:
                        flipped = capture(touching, sides[c], aces[c], p)
                        for n in flipped:
                            own[n] = q
                        moves.append((len(flipped), kind, c, flipped))
        moves.sort(key=_captures, reverse=True)
        if tried >= 0:
            for i, move in enumerate(moves):
                if move[1] * size + move[2] == tried:
                    del moves[i]
                    break
        return moves

    empty_mask = 0
    for c in geometry.playable:
        if at[c] is None:
            empty_mask |= cell_bit[c]
    empties = len(cells_of[empty_mask])
    mover = int(position.to_move)
    other = 1 - mover
    start = position.score(position.to_move) - position.score(position.to_move.other)

    root_first = [-1]
    """The best root move of the last search, tried first by the next (deepening)."""

    def root_moves(tiebreak: Random | None) -> list[tuple[int, int, int, list[int]]]:
        moves = _ordered_moves(mover, other, empty_mask, -1)
        if tiebreak is not None:
            tiebreak.shuffle(moves)
            moves.sort(key=_captures, reverse=True)
        for i, move in enumerate(moves):
            if move[1] * size + move[2] == root_first[0]:
                moves.insert(0, moves.pop(i))
                break
        return moves

    def play_root(move: tuple[int, int, int, list[int]], window: Window, depth: int) -> int:
        count, kind, c, flipped = move
        key = digit[kind][mover][c]
        for n in flipped:
            own[n] = mover
            key ^= owner_bit[n]
        own[c] = mover
        at[c] = sides_at[kind][c]
        counts[kind] -= 1
        try:
            return -search(
                other,
                -start - 2 * count,
                -window[1],
                -window[0],
                empty_mask ^ cell_bit[c],
                empties - 1,
                key,
                depth - 1,
            )
        finally:
            counts[kind] += 1
            at[c] = None
            own[c] = -1
            for n in flipped:
                own[n] = other

    def to_move(kind: int, c: int) -> Move:
        return (first_index[mover][types[mover].index(kind)], c)

    def root(depth: int, alpha: int, beta: int, tiebreak: Random | None) -> tuple[int, Move | None]:
        nonlocal visited
        visited += 1
        if empties == 0 or depth <= 0:  # nothing to search: the score as it stands
            return start, None
        moves = root_moves(tiebreak)
        if not moves:
            raise ValueError("the side to move has no card left but the board is not full")
        best, best_move = -INF, moves[0]
        for move in moves:
            value = play_root(move, (alpha, beta), depth)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        root_first[0] = best_move[1] * size + best_move[2]
        return best, to_move(best_move[1], best_move[2])

    def root_values(depth: int, only: Collection[Move] | None) -> list[tuple[Move, int]]:
        nonlocal visited
        visited += 1
        found = []
        for move in root_moves(None) if empties else []:
            named = to_move(move[1], move[2])
            if only is None or named in only:
                found.append((named, play_root(move, (-INF, INF), depth)))
        return found

    def captured(move: Move) -> list[int]:
        index, c = move
        card = position.hands[mover][index]
        if at[c] is not None or c in geometry.blocked:
            raise ValueError(f"cell {c} is not an empty playable cell")
        kind = next(k for k in types[mover] if _same_card(cards[k], card))
        touching = near(c, other)
        if touching is None:
            return []
        flipped = capture(touching, sides_at[kind][c], wall_aces[kind][c], mover)
        for n in flipped:
            own[n] = other
        return sorted(flipped)

    return Engine(empties, root, root_values, lambda: visited, lambda: len(table), captured)


class _CellsOf(dict[int, tuple[int, ...]]):
    """The cells of a bit set, ascending; each set is listed once, then looked up (a
    subscript, not a call: it is read at every node)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __missing__(self, mask: int) -> tuple[int, ...]:
        found = self[mask] = tuple(c for c in range(self.size) if mask >> c & 1)
        return found


def _same_card(a: Card, b: Card) -> bool:
    return a.sides == b.sides and a.element == b.element
