"""Sudden Death through the handlers (RULES.md 12), in memory and on PostgreSQL: the
round-ending move is saved with the next round's recorded draws, a retry of it answers
that same state (nothing drawn twice), the log alone rebuilds every round, and the
round's turn timer fires in the new round."""

from __future__ import annotations

from datetime import timedelta

from services.match import domain, handlers, handlers_timers
from services.match.domain.events import MatchCard, MatchRules, Mode
from services.match.handlers import Context
from services.match.tests.builders import card, players
from services.match.tests.conftest import Clock
from services.platform.requests import Request
from services.rules import Rules, Visibility


def _hand(prefix: str) -> tuple[MatchCard, ...]:
    return tuple(card(f"{prefix}{i}") for i in range(5))  # all 5s: every round ties


async def _place(ctx: Context, match: domain.Match, request_id: str) -> domain.Match:
    seat = match.position.to_move
    card_id = match.position.hand(seat)[0].id
    cell = match.position.board.empty_cells[0]
    player = match.player(seat).player_id
    return await handlers.place_card(
        ctx,
        Request.of(player, request_id, match.match_id, card_id, cell),
        match.match_id,
        player,
        card_id,
        cell,
    )


async def test_a_tie_goes_on_in_round_two_and_the_log_rebuilds_it(
    ctx: Context, clock: Clock
) -> None:
    setup = MatchRules(Mode.CUSTOM, Rules(), Visibility.THREE_OPEN, sudden_death=True)
    started = await handlers.start_match(
        ctx,
        Request.of("matchmaker", "create-sd", "sd"),
        "sd",
        setup,
        players(),
        (_hand("a"), _hand("b")),
    )
    match = started.match
    for turn in range(1, 10):
        before = match
        match = await _place(ctx, match, f"r{turn}")
    assert match.round == 2 and match.turn == 10 and match.earlier[0].scores == (5, 5)
    # A retry of the tying move answers the state it made: no second round drawn.
    again = await _place(ctx, before, "r9")
    assert again == match
    records = await ctx.store.records("sd", 0, 100)
    assert sum(r.type == "triad.v1.RoundStarted" for r in records) == 1
    ctx.store.forget("sd")
    assert await ctx.store.load("sd") == match
    # Round 2's turn timer was set from the tie: its miss auto-plays in round 2.
    clock.now += timedelta(seconds=61)
    assert await handlers_timers.fire_due_timer(ctx)
    ctx.store.forget("sd")
    after = await ctx.store.load("sd")
    assert after is not None and after.round == 2 and after.warned[match.first] is True
    assert len(after.placements) == 1 and after.placements[0].auto_played
