"""The match handlers: idempotency, races, timers, replay. Each runs on the in-memory
repository and, as an integration test, on PostgreSQL (``conftest.ctx``)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from random import Random

import pytest

from services.match import domain, handlers, handlers_timers
from services.match.domain.events import FinishReason, MatchRules, Mode, TradeRule
from services.match.handlers import Context
from services.match.store import PlayerBusy
from services.match.tests.builders import ALL, hand, players
from services.match.tests.conftest import Clock
from services.platform.errors import Conflict, FailedPrecondition
from services.platform.requests import Request, RequestReused
from services.platform.tests.logcapture import captured_logs
from services.rules import Seat, Visibility


async def new_match(
    ctx: Context,
    match_id: str = "m1",
    visibility: Visibility = Visibility.THREE_OPEN,
    bot_b: bool = False,
) -> domain.Match:
    setup = MatchRules(Mode.RANKED, ALL, visibility, trade=TradeRule.ONE, ladder="ranked")
    seated = players(bot_b)
    if match_id.startswith("long"):  # one active match per player: their own players
        seated = tuple(replace(p, player_id=f"{p.player_id}-{match_id}") for p in seated)  # type: ignore[assignment]
    started = await handlers.start_match(
        ctx,
        Request.of("matchmaker", f"create-{match_id}", match_id),
        match_id,
        setup,
        seated,
        (hand(f"{match_id}a"), hand(f"{match_id}b")),
    )
    return started.match


async def move(ctx: Context, match: domain.Match, request_id: str, rng: Random) -> domain.Match:
    seat = match.position.to_move
    index, cell = rng.choice(match.position.legal_moves())
    card_id = match.position.hand(seat)[index].id
    player = match.player(seat).player_id
    return await handlers.place_card(
        ctx,
        Request.of(player, request_id, match.match_id, card_id, cell),
        match.match_id,
        player,
        card_id,
        cell,
    )


async def test_a_match_is_played_to_the_end_and_the_log_replays_to_the_same_state(
    ctx: Context,
) -> None:
    match = await new_match(ctx)
    rng = Random(1)
    while match.in_progress:
        match = await move(ctx, match, f"r{match.version}", rng)
    assert match.finished is not None and sum(match.finished.scores) == 10
    ctx.store.forget("m1")  # no cache: the log alone
    assert await ctx.store.load("m1") == match
    assert await ctx.store.active_match("p-a") is None


async def test_the_end_of_a_match_is_logged_once_with_how_it_ended(ctx: Context) -> None:
    """Found from outside: an operator could not follow a match to its end in the logs
    (nothing said it finished, or how)."""
    match = await new_match(ctx)
    with captured_logs() as logs:
        for _ in range(2):  # a retried forfeit logs nothing more
            await handlers.forfeit(ctx, Request.of("p-a", "quit"), match.match_id, "p-a")
    (line,) = logs.events("match finished")
    assert (line["match_id"], line["reason"], line["winner_id"]) == ("m1", "forfeit", "p-b")
    assert line["rated"] is True


async def test_creating_twice_with_the_same_request_creates_once(ctx: Context) -> None:
    first = await new_match(ctx)
    again = await new_match(ctx)
    assert again == first and again.version == 1


async def test_a_player_has_at_most_one_active_match(ctx: Context) -> None:
    await new_match(ctx, "m1")
    with pytest.raises(PlayerBusy, match="already has an active match"):
        await new_match(ctx, "m2")
    assert await ctx.store.load("m2") is None  # nothing appended


async def test_a_replayed_move_returns_the_first_result_and_appends_nothing(ctx: Context) -> None:
    match = await new_match(ctx)
    player = match.player(match.position.to_move).player_id
    card = match.position.hand(match.position.to_move)[0].id
    request = Request.of(player, "same-id", "m1", card, 4)
    first = await handlers.place_card(ctx, request, "m1", player, card, 4)
    second = await handlers.place_card(ctx, request, "m1", player, card, 4)
    assert second == first and first.version == 2
    other = Request.of(player, "same-id", "m1", card, 5)
    with pytest.raises(RequestReused):
        await handlers.place_card(ctx, other, "m1", player, card, 5)
    latest = await ctx.store.load("m1")
    assert latest is not None and latest.version == 2


async def test_two_moves_in_the_same_instant_one_wins_the_other_is_refused(ctx: Context) -> None:
    match = await new_match(ctx)
    seat = match.position.to_move
    player = match.player(seat).player_id
    cards = [c.id for c in match.position.hand(seat)[:2]]
    results = await asyncio.gather(
        handlers.place_card(ctx, Request.of(player, "a", cards[0], 0), "m1", player, cards[0], 0),
        handlers.place_card(ctx, Request.of(player, "b", cards[1], 1), "m1", player, cards[1], 1),
        return_exceptions=True,
    )
    assert sum(isinstance(r, domain.Match) for r in results) == 1
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], FailedPrecondition)
    latest = await ctx.store.load("m1")
    assert latest is not None and latest.version == 2


async def test_a_stale_expected_version_is_refused(ctx: Context) -> None:
    match = await new_match(ctx)
    seat = match.position.to_move
    player, card = match.player(seat).player_id, match.position.hand(seat)[0].id
    with pytest.raises(Conflict, match="refresh the view"):
        await handlers.place_card(ctx, Request.of(player, "x", 1), "m1", player, card, 0, 7)


async def test_a_turn_timer_auto_plays_then_forfeits_on_the_second_miss(
    ctx: Context, clock: Clock
) -> None:
    await new_match(ctx)
    assert not await handlers_timers.fire_due_timer(ctx)  # nothing due yet
    clock.now += timedelta(seconds=60)
    assert await handlers_timers.fire_due_timer(ctx)
    match = await ctx.store.load("m1")
    assert match is not None and match.last is not None and match.last.auto_played
    missed = match.last.seat
    # the other seat moves, then the warned seat misses again
    other = match.player(match.position.to_move).player_id
    card = match.position.hand(match.position.to_move)[0].id
    empty = match.position.board.empty_cells[0]
    match = await handlers.place_card(ctx, Request.of(other, "m", 1), "m1", other, card, empty)
    clock.now += timedelta(seconds=60)
    assert await handlers_timers.fire_due_timer(ctx)
    match = await ctx.store.load("m1")
    assert match is not None and match.finished is not None
    assert match.finished.forfeited is missed
    assert not await handlers_timers.fire_due_timer(ctx)  # no timers left


async def test_a_timer_and_a_move_in_the_same_instant_exactly_one_wins(
    ctx: Context, clock: Clock
) -> None:
    for attempt in range(5):
        match_id = f"race{attempt}"
        match = await new_match(ctx, match_id)
        clock.now += timedelta(seconds=60)
        seat = match.position.to_move
        player, card = match.player(seat).player_id, match.position.hand(seat)[0].id
        results = await asyncio.gather(
            handlers_timers.fire_due_timer(ctx),
            handlers.place_card(ctx, Request.of(player, match_id, 1), match_id, player, card, 0),
            return_exceptions=True,
        )
        latest = await ctx.store.load(match_id)
        assert latest is not None
        placed = [e for e in latest.placements if e.turn == 1]
        assert len(placed) == 1  # exactly one placement for turn 1: the move or the auto-play
        if isinstance(results[1], Exception):
            assert isinstance(results[1], FailedPrecondition) and placed[0].auto_played
        else:
            assert not placed[0].auto_played
        await handlers.forfeit(ctx, Request.of(player, f"f{attempt}"), match_id, player)


async def test_a_bot_seat_moves_by_its_timer_from_its_own_view(ctx: Context, clock: Clock) -> None:
    match = await new_match(ctx, bot_b=True)
    rng = Random(3)
    while match.in_progress:
        if match.player(match.position.to_move).is_bot:
            assert await handlers_timers.fire_due_timer(ctx)
            latest = await ctx.store.load("m1")
            assert latest is not None
            match = latest
        else:
            match = await move(ctx, match, f"h{match.version}", rng)
    assert match.finished is not None and not match.finished.rated


async def test_disconnect_grace_forfeits_through_the_timer(ctx: Context, clock: Clock) -> None:
    await new_match(ctx)
    await handlers.report_presence(ctx, "p-b", "sb", True)  # B plays on: A alone is away
    assert await handlers.report_presence(ctx, "p-a", "s1", True) == "m1"
    await handlers.report_presence(ctx, "p-a", "s1", False)
    match = await ctx.store.load("m1")
    assert match is not None and match.disconnected[0] is not None
    clock.now += timedelta(seconds=120)
    while await handlers_timers.fire_due_timer(ctx):
        latest = await ctx.store.load("m1")
        if latest is not None and latest.finished is not None:
            break
    latest = await ctx.store.load("m1")
    assert latest is not None and latest.finished is not None
    assert latest.finished.forfeited is Seat.A


async def test_a_late_timer_loop_settles_the_grace_that_ran_out_first(
    ctx: Context, clock: Clock
) -> None:
    """RULES.md 5: both players leave, B first; the loop looks only after both graces
    ran out (a restart, a load): B, whose grace ended first, forfeits, not seat A because
    its timer is listed first."""
    await new_match(ctx)
    start = clock.now
    for player, away_at in (("p-b", 10), ("p-a", 20)):
        clock.now = start + timedelta(seconds=away_at)
        await handlers.report_presence(ctx, player, f"s-{player}", True)
        await handlers.report_presence(ctx, player, f"s-{player}", False)
    clock.now = start + timedelta(seconds=20 + 120 + 5)
    latest = await ctx.store.load("m1")
    while latest is not None and latest.finished is None:  # the turn timed out first
        assert await handlers_timers.fire_due_timer(ctx)
        latest = await ctx.store.load("m1")
    assert latest is not None and latest.finished is not None
    assert (latest.finished.forfeited, latest.finished.reason) == (Seat.B, FinishReason.DISCONNECT)


async def test_timers_found_late_after_an_outage_restart_the_clocks_once_a_turn(
    ctx: Context, clock: Clock
) -> None:
    """Found from outside: the backend was stopped during a turn and started again after
    its deadline; the timers fired at once, auto-playing for (and then forfeiting) a
    player who could not have moved. A timer found over ``late_seconds`` late restarts
    the turn timer and the away seat's grace from now; once a turn, so a server late
    again in the same turn still ends an abandoned match."""
    ctx = replace(ctx, late_seconds=10.0)
    match = await new_match(ctx)
    start = clock.now
    await handlers.report_presence(ctx, "p-a", "s-a", True)  # A here
    await handlers.report_presence(ctx, "p-b", "s-b", True)
    await handlers.report_presence(ctx, "p-b", "s-b", False)  # B away: forfeits at 120
    clock.now = start + timedelta(seconds=300)  # everything was down from 30 s to 300 s
    assert await handlers_timers.fire_due_timer(ctx)
    restarted = await ctx.store.load("m1")
    assert restarted is not None and restarted.in_progress
    assert restarted.turn == match.turn and restarted.placements == match.placements
    assert restarted.deadline == clock.now + timedelta(seconds=ctx.turn_seconds)
    assert restarted.disconnected[Seat.B] == clock.now + timedelta(seconds=ctx.disconnect_seconds)
    assert restarted.disconnected[Seat.A] is None and restarted.warned == (False, False)
    assert not await handlers_timers.fire_due_timer(ctx)  # nothing due any more
    clock.now += timedelta(seconds=ctx.turn_seconds + 30)  # late again, in the same turn
    assert await handlers_timers.fire_due_timer(ctx)
    timed_out = await ctx.store.load("m1")
    assert timed_out is not None and timed_out.last is not None and timed_out.last.auto_played


async def test_a_move_after_the_deadline_before_the_timer_fired_is_refused_and_auto_played(
    ctx: Context, clock: Clock
) -> None:
    """RULES.md 5: the timer has not fired yet (the poll, load, a restart) when the late
    move arrives: it is refused, nothing is placed, and the timer then plays for the
    missed turn."""
    match = await new_match(ctx)
    clock.now += timedelta(seconds=60.5)
    seat = match.position.to_move
    player, card = match.player(seat).player_id, match.position.hand(seat)[0].id
    with pytest.raises(FailedPrecondition, match="turn is over"):
        await handlers.place_card(ctx, Request.of(player, "late", 1), "m1", player, card, 0)
    assert (await ctx.store.load("m1")) == match
    assert await handlers_timers.fire_due_timer(ctx)
    latest = await ctx.store.load("m1")
    assert latest is not None and latest.last is not None and latest.last.auto_played
    assert latest.warned[seat]
    # Sent again, a moment later: the turn is the other's now, and the refusal says why
    # (found from outside: "it is not your turn" alone, the player never told hers ran out).
    card = latest.position.hand(seat)[0].id
    with pytest.raises(FailedPrecondition) as again:
        await handlers.place_card(ctx, Request.of(player, "later", 1), "m1", player, card, 1)
    assert "yours ran out and the server played a card for you; wait for" in str(again.value)


async def test_a_reconnect_after_the_grace_forfeits_before_the_timer_fired(
    ctx: Context, clock: Clock
) -> None:
    await new_match(ctx)
    await handlers.report_presence(ctx, "p-b", "sb", True)  # B plays on: A alone is away
    await handlers.report_presence(ctx, "p-a", "s1", True)
    await handlers.report_presence(ctx, "p-a", "s1", False)
    clock.now += timedelta(seconds=121)
    assert await handlers.report_presence(ctx, "p-a", "s2", True) == "m1"
    latest = await ctx.store.load("m1")
    assert latest is not None and latest.finished is not None
    assert latest.finished.reason is FinishReason.DISCONNECT
    assert latest.finished.forfeited is Seat.A


async def test_a_long_random_run_replays_to_the_live_state_for_every_match(
    ctx: Context, clock: Clock
) -> None:
    """Thirty matches advance in random order through moves, timeouts, disconnects and
    forfeits; a store that never saw them rebuilds each from the log alone."""
    rng = Random(7)
    live: dict[str, domain.Match] = {}
    for i in range(30):
        live[f"long{i}"] = await new_match(ctx, f"long{i}", list(Visibility)[i % 3])
    for step in range(400):
        running = [m for m in live.values() if m.in_progress]
        if not running:
            break
        match = rng.choice(running)
        roll = rng.random()
        seat = match.position.to_move
        player = match.player(seat).player_id
        if roll < 0.75:
            live[match.match_id] = await move(ctx, match, f"s{step}", rng)
        elif roll < 0.85:
            clock.now += timedelta(seconds=61)
            while await handlers_timers.fire_due_timer(ctx):
                pass
        elif roll < 0.95:
            await handlers.report_presence(ctx, player, f"sess{step}", rng.random() < 0.5)
        else:
            await handlers.forfeit(ctx, Request.of(player, f"f{step}"), match.match_id, player)
        for match_id in live:
            latest = await ctx.store.load(match_id)
            assert latest is not None
            live[match_id] = latest
    for match_id, match in live.items():
        ctx.store.forget(match_id)  # no cache: the log alone
        assert await ctx.store.load(match_id) == match
