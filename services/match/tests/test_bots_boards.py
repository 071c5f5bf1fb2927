"""Bot seats on every board (RULES.md 11): 4x4 with 8-card hands and 5x5 with 13-card
hands and 0..5 blocked cells, from each seat's redacted view only.

3x3 play is pinned down in ``test_bots.py``; strength and move times per board size
are figures of ``bench/bots_boards.py``.
"""

from __future__ import annotations

import time
from random import Random

import pytest

from services.match import bots, domain
from services.match.bots import Budget, Level, decide, sample_unseen
from services.match.bots.arena import (
    STANDARD,
    T0,
    Table,
    draw_deal,
    knowledge_of,
    play,
    synthetic_catalog,
)
from services.match.domain.events import MatchRules, Mode, SeatPlayer
from services.match.tests.builders import after
from services.match.views import match_view
from services.rules import Visibility
from services.rules.deck import star_limits
from services.rules.solver import solve

CATALOG = synthetic_catalog(Random(7))
NODES = Budget(seconds=None, nodes=20_000)
"""Node budgets: reproducible on any machine, however loaded."""
WHOLE_GAMES = Budget(seconds=None, nodes=3_000)
"""Enough for a few plies on an opening 5x5 (325 root moves): the whole games check
where the bots play, not how well."""
TABLES = [Table(4, 4), *(Table(5, 5, k) for k in range(6))]


def new_match(
    table: Table, visibility: Visibility, levels: tuple[str, str] = ("hard", "hard"), seed: int = 1
) -> domain.Match:
    rng = Random(seed)
    deal = draw_deal(rng, CATALOG, visibility, table)
    setup = MatchRules(Mode.PRACTICE, STANDARD, visibility, table.rows, table.cols, deal.blocked)
    players = (
        SeatPlayer("bot-a", "[BOT] A", True, levels[0]),
        SeatPlayer("bot-b", "[BOT] B", True, levels[1]),
    )
    draws = domain.StartDraws(deal.first, deal.marks, deal.revealed)
    return domain.create(None, "m", setup, players, deal.hands, draws, T0, 60, 120).state


def advance(match: domain.Match, moves: int, seed: int = 0) -> domain.Match:
    """Play ``moves`` random legal placements."""
    rng = Random(seed)
    for _ in range(moves):
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        match = after(
            match,
            domain.place(match, match.player(seat).player_id, card_id, cell, match.created_at),
        )
    return match


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
@pytest.mark.parametrize("level", list(Level))
def test_every_level_plays_whole_games_on_every_board_never_on_a_blocked_cell(
    table: Table, level: Level
) -> None:
    visibility = list(Visibility)[table.blocked % 3]
    match = new_match(table, visibility, (level.value, level.value), seed=table.blocked)
    blocked = match.setup.blocked
    assert len(blocked) == table.blocked
    rng = Random(4)
    while match.in_progress:
        player = match.player(match.position.to_move)
        view = match_view(match, player.player_id)
        card_id, cell = bots.choose(view, rng, WHOLE_GAMES, CATALOG)
        assert cell not in blocked
        assert card_id in {card.card_id for card in view.hand}
        match = after(match, domain.place(match, player.player_id, card_id, cell, T0))
    assert match.finished is not None
    assert sum(match.finished.scores) == 2 * table.hand_size


@pytest.mark.parametrize("visibility", [Visibility.ALL_OPEN, Visibility.CLOSED])
@pytest.mark.parametrize("table", [Table(4, 4), Table(5, 5), Table(5, 5, 5)], ids=lambda t: t.name)
def test_hard_moves_within_a_small_time_budget_on_the_opening_of_a_large_board(
    table: Table, visibility: Visibility
) -> None:
    match = new_match(table, visibility)
    seat = knowledge_of(match, match.position.to_move)
    started = time.perf_counter()
    decision = decide(seat, 1, Budget(seconds=0.2), CATALOG)
    spent = time.perf_counter() - started
    assert spent < 0.2 + 0.5  # the budget, plus a loaded machine
    assert not decision.exact and decision.depth >= 1
    assert decision.cell in seat.empty_cells
    assert decision.card_id in {card.id for card in seat.hand}


@pytest.mark.parametrize("visibility", [Visibility.ALL_OPEN, Visibility.CLOSED])
def test_hard_sees_deeper_than_normal_on_a_5x5_board_with_the_same_time(
    visibility: Visibility,
) -> None:
    match = advance(new_match(Table(5, 5, 2), visibility), 6)
    seat = knowledge_of(match, match.position.to_move)
    hard = decide(seat, 2, Budget(seconds=None, nodes=400_000), CATALOG)
    normal = decide(seat, 2, None, CATALOG, Level.NORMAL)
    assert hard.depth > normal.depth == 2


@pytest.mark.parametrize("visibility", list(Visibility))
def test_hard_on_a_large_board_is_deterministic_given_its_seed(visibility: Visibility) -> None:
    match = advance(new_match(Table(5, 5, 3), visibility, seed=5), 5, seed=5)
    seat = knowledge_of(match, match.position.to_move)
    first = decide(seat, 9, NODES, CATALOG)
    assert decide(seat, 9, NODES, CATALOG) == first
    assert first.cell in seat.empty_cells


@pytest.mark.parametrize(
    ("table", "empties"), [(Table(4, 4), 7), (Table(5, 5), 7), (Table(5, 5, 1), 6)]
)
def test_hard_solves_the_last_cells_of_a_large_board_exactly(table: Table, empties: int) -> None:
    # Seven cells as on 3x3; one fewer for each card beyond one left in hand at the end.
    match = new_match(table, Visibility.ALL_OPEN, seed=3)
    match = advance(match, len(match.position.board.empty_cells) - empties, seed=3)
    decision = decide(knowledge_of(match, match.position.to_move), 3, NODES, CATALOG)
    assert decision.exact and decision.depth == empties
    assert decision.value == solve(match.position).value


def test_with_many_cards_left_over_hard_keeps_to_its_budget_instead_of_solving() -> None:
    # 5x5 with five blocked cells: six cards stay in hand, so seven empty cells are
    # far more work than on 3x3; hard deepens within its budget instead.
    match = new_match(Table(5, 5, 5), Visibility.ALL_OPEN, seed=3)
    match = advance(match, len(match.position.board.empty_cells) - 7, seed=3)
    seat = knowledge_of(match, match.position.to_move)
    decision = decide(seat, 3, Budget(seconds=None, nodes=4_000), CATALOG)
    assert not decision.exact and decision.cell in seat.empty_cells


def test_a_closed_5x5_seat_knows_only_how_many_cards_the_opponent_hides() -> None:
    match = new_match(Table(5, 5, 4), Visibility.CLOSED)
    known = knowledge_of(match, match.position.to_move)
    assert known.opponent_known == () and known.opponent_hidden == 13
    assert known.blocked == match.setup.blocked and len(known.hand) == 13


def test_samples_of_a_13_card_hand_keep_its_star_limits() -> None:
    assert star_limits(5) == (1, 2) and star_limits(8) == (1, 3) and star_limits(13) == (2, 5)
    match = new_match(Table(5, 5), Visibility.CLOSED)
    seat = knowledge_of(match, match.position.to_move)
    stars = {entry.sides: entry.stars for entry in CATALOG}
    for seed in range(30):
        drawn = sample_unseen(seat, Random(seed), CATALOG)
        ranks = [stars[card.sides] for card in drawn]
        assert len(drawn) == 13
        assert ranks.count(5) <= 2 and ranks.count(5) + ranks.count(4) <= 5


@pytest.mark.parametrize("table", [Table(4, 4), Table(5, 5, 2)], ids=lambda t: t.name)
def test_hard_outscores_novice_on_a_large_board(table: Table) -> None:
    # A weak check (tiny node budgets, hidden cards, four games): clearly more cards
    # than a random player. The real figures are bench/bots_boards.py's.
    rng = Random(6)
    points = [0, 0]
    for game in range(4):
        deal = draw_deal(rng, CATALOG, Visibility.CLOSED, table)
        result = play(
            (Level.HARD, Level.NOVICE),
            deal,
            Visibility.CLOSED,
            game,
            (NODES, NODES),
            STANDARD,
            CATALOG,
        )
        points = [points[0] + result.scores[0], points[1] + result.scores[1]]
    assert points[0] > 1.5 * points[1]
