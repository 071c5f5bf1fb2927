"""Bot seats: each level's play, honesty (a bot never sees a hidden card), seats played
through the match domain, the worker pool, and a small strength check.

The full 1,000-game strength matches and every timing live in ``bench/bots.py``.
"""

from __future__ import annotations

import dataclasses
import time
import typing
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from random import Random
from typing import Any

import pytest

from services.match import bots, domain
from services.match.bots import (
    BotPool,
    Budget,
    CatalogEntry,
    Level,
    SeatKnowledge,
    decide,
    knowledge,
    sample_unseen,
)
from services.match.bots.arena import (
    STANDARD,
    draw_deal,
    knowledge_of,
    play,
    synthetic_catalog,
)
from services.match.domain.events import MatchCard, MatchRules, Mode, SeatPlayer
from services.match.tests.builders import after
from services.match.views import match_view
from services.rules import Card, Position, Seat, Visibility
from services.rules.solver import Search, solve

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
NODES = Budget(seconds=None, nodes=20_000)
"""Tests decide on node budgets: reproducible on any machine, however loaded."""
CATALOG = synthetic_catalog(Random(7))
SECRET_SIDES = (10, 1, 10, 1)
"""No catalog character has these sides: a hidden card that leaked would stand out."""


def new_match(
    visibility: Visibility,
    levels: tuple[str, str] = ("hard", "hard"),
    seed: int = 1,
    secret: bool = False,
    first: Seat | None = None,
) -> domain.Match:
    """A started match between two bot seats on a legal deal. With ``secret`` every card
    of seat B carries the sentinel sides, so any trace of them is easy to spot."""
    rng = Random(seed)
    deal = draw_deal(rng, CATALOG, visibility)
    hands = deal.hands
    if secret:
        hands = (hands[0], tuple(dataclasses.replace(c, sides=SECRET_SIDES) for c in hands[1]))
    setup = MatchRules(Mode.PRACTICE, STANDARD, visibility)
    players = (
        SeatPlayer("bot-a", "[BOT] A", True, levels[0]),
        SeatPlayer("bot-b", "[BOT] B", True, levels[1]),
    )
    draws = domain.StartDraws(deal.first if first is None else first, deal.marks, deal.revealed)
    return domain.create(None, "m", setup, players, hands, draws, T0, 60, 120).state


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


def mover_view(match: domain.Match) -> SeatKnowledge:
    return knowledge_of(match, match.position.to_move)


def value_of(position: Position, card_id: str, cell: int, depth: int = 99) -> int:
    """The brute-force-free check of a decision: the solver's value of the move played."""
    index = next(i for i, c in enumerate(position.hand(position.to_move)) if c.id == card_id)
    after, _ = position.play(index, cell)
    return -Search(after).best(None if depth >= 99 else depth - 1).value


# --------------------------------------------------------------------------- levels


def test_levels_are_read_from_the_seat_and_an_unset_level_plays_as_novice() -> None:
    assert Level.of("hard") is Level.HARD
    assert Level.of("") is Level.NOVICE
    with pytest.raises(ValueError):
        Level.of("grandmaster")


def test_novice_plays_a_random_legal_placement() -> None:
    match = advance(new_match(Visibility.CLOSED, ("novice", "novice")), 3)
    seat = mover_view(match)
    picks = {(d.card_id, d.cell) for d in (decide(seat, s) for s in range(40))}
    legal = {(c.id, cell) for c in seat.hand for cell in seat.empty_cells}
    assert picks <= legal and len(picks) > 10


@pytest.mark.parametrize("visibility", list(Visibility))
def test_easy_takes_the_best_immediate_score(visibility: Visibility) -> None:
    for seed in range(8):
        match = advance(new_match(visibility, ("easy", "easy"), seed), 2 + seed % 5, seed)
        seat = mover_view(match)
        decision = decide(seat, seed)
        truth = match.position  # the referee's position: only to judge the move
        assert value_of(truth, decision.card_id, decision.cell, 1) == Search(truth).best(1).value


def test_normal_sees_the_reply_and_in_the_endgame_its_own_answer_when_all_is_open() -> None:
    for seed in range(7):
        match = advance(new_match(Visibility.ALL_OPEN, ("normal", "normal"), seed), 1 + seed, seed)
        decision = decide(mover_view(match), seed)
        truth = match.position
        empty = len(truth.board.empty_cells)
        depth = min(empty, 3 if empty <= 5 else 2)
        assert decision.depth == depth
        assert value_of(truth, decision.card_id, decision.cell, depth) == (
            Search(truth).best(depth).value
        )


def test_hard_plays_perfectly_once_seven_cells_or_fewer_are_empty_in_all_open() -> None:
    for seed in range(8):
        match = advance(new_match(Visibility.ALL_OPEN, seed=seed), 2 + seed % 6, seed)
        decision = decide(mover_view(match), seed, NODES)
        truth = match.position
        assert decision.exact
        assert decision.value == solve(truth).value
        assert value_of(truth, decision.card_id, decision.cell) == decision.value


def test_hard_keeps_to_its_budget_and_deepens_within_it() -> None:
    match = new_match(Visibility.ALL_OPEN)
    started = time.perf_counter()
    decision = decide(mover_view(match), 1, Budget(seconds=0.3))
    assert time.perf_counter() - started < 1.5  # the budget, plus a loaded machine
    assert 1 <= decision.depth < 9 and not decision.exact
    deeper = decide(mover_view(match), 1, Budget(seconds=None, nodes=200_000))
    assert deeper.depth >= decide(mover_view(match), 1, NODES).depth


@pytest.mark.parametrize("visibility", [Visibility.CLOSED, Visibility.THREE_OPEN])
def test_hard_with_hidden_cards_averages_samples_and_is_reproducible(
    visibility: Visibility,
) -> None:
    match = advance(new_match(visibility), 3)
    seat = mover_view(match)
    first = decide(seat, 5, NODES)
    assert first.samples > 1
    assert decide(seat, 5, NODES) == first
    assert (first.card_id, first.cell) in {(c.id, x) for c in seat.hand for x in seat.empty_cells}


def test_hard_never_loses_an_all_open_game_it_has_solved_as_a_win() -> None:
    rng = Random(3)
    solved = 0
    for game in range(12):
        deal = draw_deal(rng, CATALOG, Visibility.ALL_OPEN)
        for levels in ((Level.HARD, Level.NOVICE), (Level.EASY, Level.HARD)):
            result = play(levels, deal, Visibility.ALL_OPEN, game, (NODES, NODES))
            assert result.solved_wins_lost == 0
            solved += 1
    assert solved == 24


# --------------------------------------------------------------------------- honesty


def test_the_decision_input_has_room_for_the_number_of_hidden_cards_only() -> None:
    hints = typing.get_type_hints(decide)
    assert hints["seat"] is SeatKnowledge
    fields = typing.get_type_hints(SeatKnowledge)
    assert fields["opponent_hidden"] is int
    card_fields = {name for name, hint in fields.items() if "Card" in str(hint)}
    assert card_fields == {"board", "hand", "opponent_known"}
    match = new_match(Visibility.CLOSED)
    for seat in Seat:
        known = knowledge(match_view(match, match.player(seat).player_id))
        assert known.opponent_known == () and known.opponent_hidden == 5


def _cards_in(value: Any, found: list[Card | MatchCard]) -> list[Card | MatchCard]:
    """Every card reachable from ``value`` (dataclasses, tuples, lists, dicts)."""
    if isinstance(value, Card | MatchCard):
        found.append(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _cards_in(getattr(value, f.name), found)
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            _cards_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _cards_in(item, found)
    return found


@pytest.mark.parametrize("visibility", [Visibility.CLOSED, Visibility.THREE_OPEN])
@pytest.mark.parametrize("level", list(Level))
def test_a_bot_decision_never_receives_a_hidden_card(
    visibility: Visibility, level: Level, monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[tuple[Any, ...]] = []
    real = bots.decide

    def spy(*args: Any, **kwargs: Any) -> bots.Decision:
        received.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(bots, "decide", spy)
    match = new_match(visibility, (level.value, "novice"), secret=True, first=Seat.B)
    rng = Random(1)
    while match.in_progress:
        seat = match.position.to_move
        player = match.player(seat)
        view = match_view(match, player.player_id)
        if seat is Seat.A:
            hidden = {c.id for c in match.position.hand(Seat.B)} - match.seats[1].revealed
            received.clear()
            card_id, cell = bots.choose(view, rng, NODES)
            assert received, "choose must go through decide"
            leaked = [
                c
                for c in _cards_in(received, [])
                if (c.card_id if isinstance(c, MatchCard) else c.id) in hidden
            ]
            assert leaked == []
        else:
            card_id, cell = bots.choose(view, rng, NODES)
        match = after(match, domain.place(match, player.player_id, card_id, cell, match.created_at))


def swap_hidden(match: domain.Match, seat: Seat, rng: Random) -> domain.Match:
    """The same match but for ``seat``'s unplayed, unrevealed cards: other sides."""
    hidden = {c.id for c in match.position.hand(seat)} - match.seats[seat].revealed
    cards = dict(match.cards)
    for card_id in hidden:
        sides = (rng.randint(1, 10), rng.randint(1, 10), rng.randint(1, 10), rng.randint(1, 10))
        cards[card_id] = dataclasses.replace(cards[card_id], sides=sides)
    hands = list(match.position.hands)
    hands[seat] = tuple(cards[c.id].rules_card() for c in match.position.hand(seat))
    position = dataclasses.replace(match.position, hands=(hands[0], hands[1]))
    return match._replace(position=position, cards=cards)


@pytest.mark.parametrize("visibility", [Visibility.CLOSED, Visibility.THREE_OPEN])
@pytest.mark.parametrize("level", list(Level))
def test_changing_the_opponents_hidden_cards_never_changes_the_decision(
    visibility: Visibility, level: Level
) -> None:
    for seed in range(3):
        match = advance(new_match(visibility, (level.value, "novice"), seed, first=Seat.A), 2)
        other = swap_hidden(match, Seat.B, Random(seed))
        assert other.position.hands[Seat.B] != match.position.hands[Seat.B]
        mine, theirs = mover_view(match), mover_view(other)
        assert mine == theirs  # the seat's knowledge cannot tell the two apart...
        assert decide(mine, seed, NODES) == decide(theirs, seed, NODES)  # ...nor can it
        rng_a, rng_b = Random(seed), Random(seed)
        view_a = match_view(match, "bot-a")
        view_b = match_view(other, "bot-a")
        assert bots.choose(view_a, rng_a, NODES) == bots.choose(view_b, rng_b, NODES)


def test_samples_draw_only_from_public_facts() -> None:
    match = advance(new_match(Visibility.CLOSED, secret=True), 3)
    seat = knowledge_of(match, Seat.A if match.position.to_move is Seat.A else Seat.B)
    drawn = sample_unseen(seat, Random(1), CATALOG)
    assert len(drawn) == seat.opponent_hidden
    assert all(card.sides != SECRET_SIDES for card in drawn)
    no_catalog = sample_unseen(seat, Random(1))
    assert len(no_catalog) == seat.opponent_hidden


def test_catalog_samples_respect_the_deck_rules() -> None:
    match = advance(new_match(Visibility.CLOSED), 4)
    seat = mover_view(match)
    names = {e.sides: e for e in CATALOG}
    for seed in range(30):
        drawn = sample_unseen(seat, Random(seed), CATALOG)
        entries = [names[c.sides] for c in drawn]
        ranks = [e.stars for e in entries] + [s.stars for s in seat.opponent_seen]
        characters = [e.character_id for e in entries] + [
            s.character_id for s in seat.opponent_seen
        ]
        assert ranks.count(5) <= 1 and ranks.count(5) + ranks.count(4) <= 2
        assert len(set(characters)) == len(characters)


def test_a_catalog_too_small_for_a_legal_deck_falls_back_to_plausible_cards() -> None:
    match = new_match(Visibility.CLOSED)
    seat = mover_view(match)
    tiny = [CatalogEntry("only", 5, None, (9, 9, 9, 9))]
    assert len(sample_unseen(seat, Random(1), tiny)) == seat.opponent_hidden


# --------------------------------------------------------------------------- seats


def test_bots_play_whole_matches_through_the_domain_as_ordinary_seats() -> None:
    for visibility in Visibility:
        match = new_match(visibility, ("normal", "hard"))
        rng = Random(2)
        while match.in_progress:
            player = match.player(match.position.to_move)
            card_id, cell = bots.choose(match_view(match, player.player_id), rng, NODES)
            match = after(
                match, domain.place(match, player.player_id, card_id, cell, match.created_at)
            )
        assert match.finished is not None and sum(match.finished.scores) == 10


def test_the_budget_stays_inside_the_turn_timer() -> None:
    match = new_match(Visibility.ALL_OPEN)
    view = match_view(match, "bot-a")
    assert Budget.for_turn(60).seconds == 1.0
    assert Budget.for_turn(0.5).seconds == 0.25
    pool = BotPool(seconds=1.0, executor=ThreadPoolExecutor(1))
    try:
        assert pool.budget(view).seconds == 1.0
        assert view.deadline is not None
        late = view.deadline - timedelta(seconds=0.4)
        assert pool.budget(view, late).seconds == pytest.approx(0.2)
        assert pool.budget(view, view.deadline).seconds == pytest.approx(0.001)
    finally:
        pool.close()


async def test_the_pool_decides_in_a_worker_process_without_blocking_the_event_loop() -> None:
    match = new_match(Visibility.ALL_OPEN)  # hard, nine empty cells: uses its whole budget
    view = match_view(match, match.player(match.position.to_move).player_id)
    async with BotPool(workers=1, seconds=0.5) as pool:
        await pool.choose(view, Random(1))  # warm up: spawning the worker takes a while
        started, cpu = time.perf_counter(), time.thread_time()
        card_id, cell = await pool.choose(view, Random(1))
        thinking, spent = time.perf_counter() - started, time.thread_time() - cpu
    assert thinking >= 0.25  # it did think, for most of its budget
    # ... and not on the event loop's thread: CPU time, which a busy machine does not bend
    assert spent < thinking * 0.25
    assert card_id in {c.card_id for c in view.hand} and cell in range(9)


# --------------------------------------------------------------------------- strength


def _score(hi: Level, lo: Level, visibility: Visibility, deals: int, seed: int) -> float:
    """``hi``'s share of the points against ``lo``, each deal played from both seats."""
    rng = Random(seed)
    points = 0.0
    for game in range(deals):
        deal = draw_deal(rng, CATALOG, visibility)
        for levels, seat in (((hi, lo), Seat.A), ((lo, hi), Seat.B)):
            result = play(levels, deal, visibility, game, (NODES, NODES))
            points += result.points(seat)
    return points / (2 * deals)


@pytest.mark.parametrize(
    ("hi", "lo", "visibility", "deals"),
    [
        (Level.EASY, Level.NOVICE, Visibility.ALL_OPEN, 30),
        (Level.EASY, Level.NOVICE, Visibility.CLOSED, 30),
        (Level.NORMAL, Level.EASY, Visibility.ALL_OPEN, 30),
        (Level.NORMAL, Level.EASY, Visibility.CLOSED, 20),
        (Level.HARD, Level.NORMAL, Visibility.ALL_OPEN, 12),
    ],
)
def test_each_level_beats_the_one_below(
    hi: Level, lo: Level, visibility: Visibility, deals: int
) -> None:
    # Deterministic (node budgets, fixed seeds). 60 games is too few to pin the 60% bar
    # (bench/bots.py plays 1,000), but a clear edge must show.
    assert _score(hi, lo, visibility, deals, seed=1) >= 0.6
