"""The solver against an independent brute force, and its resolver against the engine's.

The brute force below shares nothing with the solver but the public rules engine: it
plays every legal move with ``Position.play`` and takes the plain minimax of the final
score difference. No table, no pruning, no deduplication: slow and obviously right.
"""

from __future__ import annotations

import random

import pytest

from services.rules import Board, Card, Element, Geometry, Position, Rules, Seat
from services.rules.solver import INF, Search, SearchStopped, Verdict, solve

ALL = Rules(same=True, plus=True, combo=True, elemental=True, same_wall=True)
CARD_ELEMENTS = (*Element, None)


def brute_force(position: Position, depth: int = 99) -> int:
    """Minimax of the score difference for the side to move, ``depth`` placements deep."""
    if position.over or depth == 0:
        return position.score(position.to_move) - position.score(position.to_move.other)
    return max(
        -brute_force(position.play(index, cell)[0], depth - 1)
        for index, cell in position.legal_moves()
    )


def random_card(rng: random.Random, pool: list[Card]) -> Card:
    """Mostly fresh random cards; sometimes a copy of an earlier one, so hands hold
    identical cards (the solver merges them) and Same/Plus ties are frequent."""
    if pool and rng.random() < 0.2:
        return rng.choice(pool)
    sides = (rng.randint(1, 10), rng.randint(1, 10), rng.randint(1, 10), rng.randint(1, 10))
    card = Card(sides, rng.choice(CARD_ELEMENTS))
    pool.append(card)
    return card


def random_position(rng: random.Random, max_empty: int) -> Position:
    """A 3x3 game from a random deal (random rules, marks and first seat) played at
    random until at most ``max_empty`` cells are left (at least one)."""
    rules = ALL if rng.random() < 0.5 else Rules(*(rng.random() < 0.5 for _ in range(5)))
    marks = [rng.choice(list(Element)) if rng.random() < 1 / 3 else None for _ in range(9)]
    pool: list[Card] = []
    hands = [[random_card(rng, pool) for _ in range(5)] for _ in range(2)]
    first = Seat.A if rng.random() < 0.5 else Seat.B
    position = Position.start(
        Board.empty(Geometry.of(3, 3), rules, marks), hands[0], hands[1], first
    )
    for _ in range(9 - rng.randint(1, max_empty)):
        position, _ = position.play(*rng.choice(position.legal_moves()))
    return position


POSITIONS = [random_position(random.Random(seed), 5) for seed in range(200)]


@pytest.mark.parametrize("position", POSITIONS, ids=[f"seed{i}" for i in range(200)])
def test_exact_values_agree_with_a_brute_force_minimax(position: Position) -> None:
    expected = brute_force(position)
    solution = solve(position)
    assert solution.exact
    assert solution.value == expected
    assert solution.verdict is Verdict.of(expected)
    assert solution.move is not None
    after, _ = position.play(*solution.move)
    assert -brute_force(after) == expected, "the best move must reach the value"
    assert solve(position, wdl=True).verdict is Verdict.of(expected)


def test_every_root_value_and_every_depth_agree_with_the_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(25):
        position = random_position(rng, 5)
        search = Search(position)
        for depth in (1, 2, 3, None):
            limit = 99 if depth is None else depth
            assert search.best(depth).value == brute_force(position, limit)
            for entry in search.values(depth):
                child, _ = position.play(*entry.move)
                assert entry.value == -brute_force(child, limit - 1)


def test_the_search_resolver_captures_exactly_what_the_rules_engine_captures() -> None:
    rng = random.Random(11)
    checked = 0
    for _ in range(300):
        position = random_position(rng, 8)
        search = Search(position)
        for move in position.legal_moves():
            _, placement = position.play(*move)
            assert search.captured(move) == sorted(c.cell for c in placement.captures)
            checked += 1
    assert checked > 5000


def test_the_value_counts_the_card_the_second_player_keeps() -> None:
    # Nothing can ever be captured: the first player ends with 5 cards on the board, the
    # second with 4 on the board and 1 in hand, a draw.
    ones = Card((1, 1, 1, 1))
    board = Board.empty(Geometry.of(3, 3), Rules())
    position = Position.start(board, [ones] * 5, [ones] * 5, Seat.A)
    for _ in range(3):
        position, _ = position.play(0, position.board.empty_cells[0])
    solution = solve(position)
    assert (solution.value, solution.verdict) == (0, Verdict.DRAW)
    assert solution.move is not None


def test_a_full_board_has_its_score_as_value_and_no_move() -> None:
    position = random_position(random.Random(3), 1)
    position, _ = position.play(*position.legal_moves()[0])
    solution = solve(position)
    assert solution.move is None and solution.exact
    assert solution.value == position.score(position.to_move) - position.score(
        position.to_move.other
    )


def test_a_stopped_search_raises_and_leaves_the_search_usable() -> None:
    rng = random.Random(5)
    pool: list[Card] = []
    hands = [[random_card(rng, pool) for _ in range(5)] for _ in range(2)]
    position = Position.start(Board.empty(Geometry.of(3, 3), ALL), hands[0], hands[1], Seat.A)
    position, _ = position.play(0, 4)  # eight empty cells: thousands of nodes
    calls = [0]

    def stop_soon() -> bool:
        calls[0] += 1
        return calls[0] >= 2

    search = Search(position, stop_soon)
    with pytest.raises(SearchStopped):
        search.best()
    calls[0] = -(10**9)  # never again
    assert search.best().value == solve(position).value


def test_ties_are_broken_by_the_given_random_source_only() -> None:
    ones = Card((1, 1, 1, 1))  # every move draws: all of them tie
    board = Board.empty(Geometry.of(3, 3), Rules())
    position = Position.start(board, [ones] * 5, [ones] * 5, Seat.A)
    for _ in range(3):
        position, _ = position.play(0, position.board.empty_cells[-1])

    def best(seed: int) -> object:
        return Search(position).best(None, (-INF, INF), random.Random(seed)).move

    assert best(1) == best(1)
    assert len({best(seed) for seed in range(20)}) > 1
    assert Search(position).best().move == Search(position).best().move


def test_identical_cards_are_one_move_named_by_the_first_copy() -> None:
    twin = Card((5, 5, 5, 5))
    board = Board.empty(Geometry.of(3, 3), Rules(same=True))
    position = Position.start(board, [twin, twin, Card((2, 2, 2, 2))], [twin] * 2, Seat.A)
    position, _ = position.play(0, 0)
    position, _ = position.play(0, 8)
    moves = {entry.move[0] for entry in Search(position).values(1)}
    assert moves == {0, 1}  # the twin left (index 0) and the 2-2-2-2 (index 1)


@pytest.mark.parametrize(("shape", "blocked"), [((3, 4), ()), ((4, 4), (5, 10)), ((2, 3), (1,))])
def test_other_board_shapes_agree_with_the_brute_force(
    shape: tuple[int, int], blocked: tuple[int, ...]
) -> None:
    rng = random.Random(sum(shape))
    geometry = Geometry.of(*shape, blocked)
    pool: list[Card] = []
    per_hand = (len(geometry.playable) + 1) // 2
    for _ in range(5):
        hands = [[random_card(rng, pool) for _ in range(per_hand)] for _ in range(2)]
        board = Board.empty(geometry, ALL)
        position = Position.start(board, hands[0], hands[1], Seat.B)
        while len(position.board.empty_cells) > 5:
            position, _ = position.play(*rng.choice(position.legal_moves()))
        assert solve(position).value == brute_force(position)
