"""Every board of RULES.md 11 through the match service: 3x3, 4x4 and 5x5 with k blocked
cells drawn at match start and recorded, hands of 5, 8 and 13, scores totalling 10, 16
and 26, Three Open's three cards and Elemental's marks on open cells only; and the edge
refusing what cannot be played, in words a person can act on."""

from __future__ import annotations

from datetime import timedelta
from random import Random

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m

from services.match import domain, handlers, handlers_timers, mapping, server
from services.match.domain.events import MatchCard, MatchRules, Mode
from services.match.handlers import Context
from services.match.tests.builders import players
from services.match.tests.conftest import Clock
from services.match.views import match_view
from services.platform.errors import InvalidArgument
from services.platform.requests import Request
from services.rules import Element, Rules, Seat, Visibility

ELEMENTAL = Rules(same=True, plus=True, combo=True, elemental=True)
BOARDS = [(3, 0, 5, 10), (4, 0, 8, 16), (5, 0, 13, 26), (5, 3, 13, 26), (5, 5, 13, 26)]
"""(side, blocked cells, hand, total score) of RULES.md 11's table."""


def deal(prefix: str, size: int, rng: Random) -> tuple[MatchCard, ...]:
    elements = [*Element, None]
    cards = []
    for i in range(size):
        sides = tuple(rng.randint(1, 10) for _ in range(4))
        cards.append(
            MatchCard(
                f"{prefix}{i}", f"chr-{prefix}{i}", f"Card {prefix}{i}", 1,
                rng.choice(elements), sides, sides,  # type: ignore[arg-type]
            )
        )  # fmt: skip
    return tuple(cards)


async def play_out(ctx: Context, match: domain.Match, rng: Random) -> domain.Match:
    turn = 0
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        player = match.player(seat).player_id
        turn += 1
        match = await handlers.place_card(
            ctx,
            Request.of(player, f"t{turn}", match.match_id, card_id, cell),
            match.match_id,
            player,
            card_id,
            cell,
        )
    return match


@pytest.mark.parametrize(("side", "k", "size", "total"), BOARDS)
async def test_every_board_plays_to_its_end_with_its_hands_blocked_cells_and_total(
    ctx: Context, side: int, k: int, size: int, total: int
) -> None:
    """The cells are drawn once at match start and recorded; a retried CreateMatch finds
    them unchanged, the log alone rebuilds them, both seats see them, and the scores add
    up to the board's total (cards owned on the board plus cards left in hand)."""
    rng = Random(side * 10 + k)
    setup = MatchRules(Mode.CUSTOM, ELEMENTAL, Visibility.THREE_OPEN, rows=side, cols=side)
    hands = (deal("a", size, rng), deal("b", size, rng))
    key = Request.of("matchmaker", "create-board", "mb")
    start = await handlers.start_match(ctx, key, "mb", setup, players(), hands, "", k)
    match = start.match
    blocked = match.setup.blocked
    assert len(blocked) == k and all(0 <= c < side * side for c in blocked)
    assert match.position.board.geometry.blocked == blocked
    again = await handlers.start_match(ctx, key, "mb", setup, players(), hands, "", k)
    assert not again.created and again.match.setup.blocked == blocked
    marks = match.position.board.marks
    assert len(marks) == side * side and all(marks[c] is None for c in blocked)
    for player in players():
        view = match_view(match, player.player_id)
        assert {c.index for c in view.board if c.blocked} == blocked
        assert len(view.hand) == size
        assert len(view.opponent_hand) == size
        shown = [slot for slot in view.opponent_hand if isinstance(slot, MatchCard)]
        assert len(shown) == 3, "Three Open reveals three cards whatever the hand size"
    finished = await play_out(ctx, match, rng)
    assert finished.placement_count == side * side - k
    assert sum(finished.scores()) == total
    left = sum(len(finished.position.hand(s)) for s in Seat)
    assert left == 2 * size - (side * side - k)
    ctx.store.forget("mb")
    replayed = await ctx.store.load("mb")
    assert replayed is not None and replayed.setup.blocked == blocked
    assert replayed.scores() == finished.scores()


def create_request(
    side: int = 3,
    k: int = 0,
    size: int = 5,
    cells: tuple[int, ...] = (),
    house: bool = False,
    trade: pb.TradeRule.ValueType = pb.TRADE_RULE_NONE,
) -> m.MatchServiceCreateMatchRequest:
    rng = Random(1)
    request = m.MatchServiceCreateMatchRequest(
        request_id="r",
        match_id="m",
        mode=pb.MODE_CUSTOM,
        rules=pb.Rules(
            visibility=pb.VISIBILITY_CLOSED,
            same=True,
            plus=True,
            combo=True,
            trade_rule=trade,
            board=pb.BoardShape(rows=side, columns=side, blocked_count=k, blocked_cells=cells),
            house_hands=house,
        ),
    )
    for prefix, player in zip("ab", players(), strict=True):
        request.seats.add(
            player=mapping.seat_player(Seat.A if prefix == "a" else Seat.B, player),
            deck=[mapping.card(c) for c in deal(prefix, size, rng)],
        )
    return request


def refusal(request: m.MatchServiceCreateMatchRequest) -> str:
    with pytest.raises(InvalidArgument) as refused:
        setup, _ = server._setup(request)
        for seat in request.seats:
            server._seat(seat, setup)
    return str(refused.value)


def test_the_edge_takes_each_board_and_says_how_many_cells_to_draw() -> None:
    setup, count = server._setup(create_request(5, 3, 13))
    assert (setup.rows, setup.cols, setup.blocked, count) == (5, 5, frozenset(), 3)
    setup, count = server._setup(create_request(4, 0, 8, house=True))
    assert (setup.rows, setup.house_hands, count) == (4, True, 0)
    setup, count = server._setup(create_request(5, 0, 13, cells=(0, 24)))
    assert (setup.blocked, count) == (frozenset({0, 24}), 0)
    # RULES.md 11, 17: a Realm table deals house hands on 3x3 too.
    request = create_request(3, 0, 5, house=True)
    request.rules.family = pb.RULES_FAMILY_REALM
    setup, _ = server._setup(request)
    assert (setup.rows, setup.house_hands, setup.realm is not None) == (3, True, True)


@pytest.mark.parametrize(
    ("request_args", "says"),
    [
        ({"side": 4, "size": 5}, "a 4x4 table needs a deck of 8; this one holds 5"),
        ({"side": 5, "k": 6, "size": 13}, "a 5x5 table blocks 0 to 5 cells, not 6"),
        ({"side": 3, "k": 1}, "blocked cells are for the 5x5 board only"),
        ({"side": 4, "size": 8, "cells": (3,)}, "blocked cells are for the 5x5 board only"),
        ({"side": 6, "size": 13}, "a table plays on a 3x3, 4x4 or 5x5 board, not 6x6"),
        ({"side": 3, "house": True}, "house hands are dealt on the 4x4 and 5x5 boards"),
        (
            {"side": 5, "size": 13, "house": True, "trade": pb.TRADE_RULE_ONE},
            "house hands never trade",
        ),
    ],
)
def test_the_edge_refuses_what_no_board_can_play_saying_why(
    request_args: dict[str, object], says: str
) -> None:
    assert says in refusal(create_request(**request_args))  # type: ignore[arg-type]


async def test_a_missed_turn_on_a_5x5_board_auto_plays_an_open_cell(
    ctx: Context, clock: Clock
) -> None:
    """Timers apply unchanged on every board (RULES.md 5, 11): the auto-played card goes
    to an open cell, never a blocked one."""
    rng = Random(5)
    setup = MatchRules(Mode.CUSTOM, ELEMENTAL, Visibility.CLOSED, rows=5, cols=5)
    hands = (deal("a", 13, rng), deal("b", 13, rng))
    key = Request.of("matchmaker", "create-timer", "mt")
    match = (await handlers.start_match(ctx, key, "mt", setup, players(), hands, "", 5)).match
    clock.now += timedelta(seconds=60)
    assert await handlers_timers.fire_due_timer(ctx)
    after = await ctx.store.load("mt")
    assert after is not None and after.last is not None and after.last.auto_played
    assert after.last.cell not in match.setup.blocked and len(match.setup.blocked) == 5
    assert after.warned[after.last.seat]
