"""Presence when a battle starts (BATTLE.md 5): a player with no session open then is
away from the start, as one whose session ends during the battle."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from structlog.testing import capture_logs
from triad.v1 import common_pb2 as pb

from services.battle import handlers, handlers_create, handlers_timers
from services.battle.domain import NO_WINNER, FinishReason
from services.battle.presenter import battle_view
from services.battle.tests.builders import (
    ANN,
    BEA,
    ROSTER,
    context,
    humans,
    key,
    online,
    start,
    versus_cpu,
)
from services.platform.errors import FailedPrecondition


async def test_a_player_with_no_session_at_the_start_is_taken_over_after_30_seconds() -> None:
    ctx, clock, _ = context()
    await online(ctx, ANN)
    await handlers_create.create_battle(ctx, "b1", humans())
    clock.advance(29)
    assert not await handlers_timers.fire_due_timer(ctx)
    clock.advance(2)  # bea's 30 s are up before the formation's
    assert await handlers_timers.fire_due_timer(ctx)
    state = await ctx.store.load("b1")
    assert state is not None and state.cpu == ("", "greedy") and state.taken_over == (1,)


async def test_a_session_opening_within_30_seconds_of_the_start_keeps_the_seat() -> None:
    ctx, clock, _ = context()
    await handlers_create.create_battle(ctx, "b1", humans())
    clock.advance(10)
    assert await handlers_timers.report_presence(ctx, ANN, "s1", True, clock()) == "b1"
    assert await handlers_timers.report_presence(ctx, BEA, "s1", True, clock()) == "b1"
    clock.advance(25)
    await handlers_timers.fire_due_timer(ctx)  # the formation's timer; no takeover
    state = await ctx.store.load("b1")
    assert state is not None and state.cpu == ("", "")


async def test_a_late_opening_report_of_a_session_that_ended_keeps_the_player_away() -> None:
    """A session's opening, reported late (after its ending: the two reports crossed),
    is the past: the player stays away and the CPU takes the seat over at 30 s, as the
    match service has it. Before, it counted as the player back, and the CPU never came."""
    ctx, clock, _ = context()
    await online(ctx, ANN)
    opened = clock()
    await handlers_timers.report_presence(ctx, BEA, "s9", True, opened)
    await handlers_create.create_battle(ctx, "b1", humans())
    assert await handlers_timers.report_presence(ctx, BEA, "s9", False, opened) == "b1"
    await handlers_timers.report_presence(ctx, BEA, "s9", True, opened)  # late
    assert not await ctx.store.connected(BEA)
    clock.advance(31)
    while await handlers_timers.fire_due_timer(ctx):
        pass
    state = await ctx.store.load("b1")
    assert state is not None and state.taken_over == (1,)


async def test_a_practice_battle_started_with_no_session_is_played_out_by_the_cpu() -> None:
    ctx, clock, _ = context()
    await handlers_create.create_battle(ctx, "b1", versus_cpu())
    state = await ctx.store.load("b1")
    assert state is not None
    for _ in range(200):
        if state.over:
            break
        clock.advance(61)
        await handlers_timers.fire_due_timer(ctx)
        state = await ctx.store.load("b1")
        assert state is not None
    assert state.result is not None
    assert (state.result.winner, state.result.reason) == (1, FinishReason.DISCONNECT)


async def test_a_player_the_cpu_took_over_may_not_give_up_and_the_battle_goes_on() -> None:
    ctx, clock, _ = context()
    await online(ctx, ANN)
    await handlers_create.create_battle(ctx, "b1", humans())
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)  # bea is away: the CPU takes her seat
    with pytest.raises(FailedPrecondition, match="the CPU plays your seat now"):
        await handlers.give_up(ctx, key(BEA), "b1", BEA)
    state = await ctx.store.load("b1")
    assert state is not None and not state.over and state.cpu == ("", "greedy")


async def test_giving_up_to_a_player_who_left_still_leaves_them_the_loss() -> None:
    """Found from outside: after the CPU took over a player who left (BATTLE.md 5: "the
    disconnected player loses"), their opponent's GiveUp ended the battle as the
    absent player's win."""
    ctx, clock, _ = context()
    await online(ctx, ANN)
    await handlers_create.create_battle(ctx, "b1", humans())
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)  # bea is away: the CPU takes her seat
    seen = await handlers.give_up(ctx, key(ANN), "b1", ANN)
    assert seen.state.result is not None
    assert (seen.state.result.winner, seen.state.result.reason) == (0, FinishReason.DISCONNECT)


async def test_when_both_players_have_left_both_lose_and_the_battle_ends() -> None:
    """Found from outside: BATTLE.md 5 has a disconnected player lose; with both away
    past their 30 s, the seat the CPU took second won (seat 1 when both went at once)
    once the CPUs had played it out. Now the second takeover ends it with no winner."""
    ctx, clock, _ = context()
    await handlers_create.create_battle(ctx, "b1", humans())  # neither has a session
    clock.advance(31)
    while await handlers_timers.fire_due_timer(ctx):
        pass
    state = await ctx.store.load("b1")
    assert state is not None and sorted(state.taken_over) == [0, 1]
    assert state.result is not None
    assert (state.result.winner, state.result.reason) == (NO_WINNER, FinishReason.DISCONNECT)
    for seat in (0, 1):
        outcome = battle_view(state, seat, ROSTER).outcome
        assert (outcome.winner_seat, outcome.winner_player_id) == (NO_WINNER, "")


async def test_a_battle_lost_while_away_is_told_to_the_next_session_once() -> None:
    """Found from outside: a player who closed the client mid-battle (the CPU took their
    seat over and lost it) was told nothing of it when they came back."""
    ctx, clock, _ = context()
    opened = clock()
    await handlers_timers.report_presence(ctx, ANN, "s1", True, opened)
    await handlers_create.create_battle(ctx, "b1", versus_cpu())
    assert await handlers_timers.report_presence(ctx, ANN, "s1", False, opened) == "b1"
    state = await ctx.store.load("b1")
    while state is not None and not state.over:
        clock.advance(61)
        await handlers_timers.fire_due_timer(ctx)
        state = await ctx.store.load("b1")
    assert state is not None and state.result is not None
    assert state.result.reason == FinishReason.DISCONNECT
    assert await handlers_timers.report_presence(ctx, ANN, "s2", True, clock()) is None
    assert await handlers_timers.missed_battle(ctx, ANN) == "b1"
    assert await handlers_timers.missed_battle(ctx, ANN) is None  # told once


async def test_a_battle_ending_while_the_session_reopens_is_told_and_starts_no_takeover() -> None:
    """A session ended by its token's expiry is reported LEAVING at once (recorded, not
    applied: no CPU clock) and away seconds later. A battle that finishes in between is
    told to the next session, as a match is (before: the battle service heard nothing
    until the late report, and the battle's end was never told)."""
    ctx, clock, _ = context()
    opened = clock()
    await handlers_timers.report_presence(ctx, ANN, "s1", True, opened)
    await handlers_create.create_battle(ctx, "b1", versus_cpu())
    leaving = await handlers_timers.report_presence(ctx, ANN, "s1", False, opened, applied=False)
    assert leaving == "b1"
    clock.advance(31)
    while await handlers_timers.fire_due_timer(ctx):
        pass
    state = await ctx.store.load("b1")
    assert state is not None and state.taken_over == ()  # no takeover from a LEAVING
    await handlers.give_up(ctx, key(ANN), "b1", ANN)  # as if it ended in those seconds
    assert await handlers_timers.report_presence(ctx, ANN, "s2", True, clock()) is None
    assert await handlers_timers.missed_battle(ctx, ANN) == "b1"


async def test_a_battle_is_logged_as_it_starts_is_taken_over_and_ends() -> None:
    """Found from outside: the battle service logged nothing of its battles, so an
    operator asked about one found neither its players, its takeover nor its end."""
    ctx, clock, _ = context()
    await online(ctx, ANN)
    with capture_logs() as logs:
        await handlers_create.create_battle(ctx, "b1", humans())
        clock.advance(31)
        assert await handlers_timers.fire_due_timer(ctx)  # bea is away: the CPU takes over
        await handlers.give_up(ctx, key(ANN), "b1", ANN)
    told = {e["event"]: e for e in logs if e["event"].startswith("battle.")}
    assert told["battle.created"]["players"] == [ANN, BEA]
    taken = told["battle.taken_over"]
    assert (taken["battle_id"], taken["player_id"], taken["level"]) == ("b1", BEA, "greedy")
    finished = told["battle.finished"]
    assert (finished["battle_id"], finished["reason"], finished["winner_id"]) == (
        "b1",
        "disconnect",
        ANN,
    )


async def test_both_views_tell_a_player_away_until_the_takeover_and_back_again() -> None:
    """BATTLE.md 5. Found from outside: the opponent of a player who left was told
    nothing for the 30 s before the CPU took the seat over."""
    ctx, clock, announced = context()
    await start(ctx)
    opened = clock()
    await handlers_timers.report_presence(ctx, BEA, "s1", True, opened)
    told = len(announced.states)
    await handlers_timers.report_presence(ctx, BEA, "s1", False, opened)
    assert len(announced.states) == told + 1, "both seats are pushed the news"
    due = opened + timedelta(seconds=30)
    ann_view, bea_view = (battle_view(announced.states[-1], seat, ROSTER) for seat in (0, 1))
    assert ann_view.opponent.takeover_time.ToDatetime(UTC) == due
    assert bea_view.you.takeover_time.ToDatetime(UTC) == due
    assert not ann_view.you.HasField("takeover_time")
    clock.advance(10)
    await handlers_timers.report_presence(ctx, BEA, "s2", True, clock())
    back = battle_view(announced.states[-1], 0, ROSTER)
    assert not back.opponent.HasField("takeover_time")
    # Away again, for good: the takeover ends the line (the CPU plays the seat).
    await handlers_timers.report_presence(ctx, BEA, "s2", False, clock())
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)
    taken = battle_view(announced.states[-1], 0, ROSTER)
    assert taken.opponent.cpu and not taken.opponent.HasField("takeover_time")


async def test_a_battle_that_ends_while_a_player_is_away_shows_no_takeover_to_come() -> None:
    ctx, clock, announced = context()
    await start(ctx)
    await handlers_timers.report_presence(ctx, BEA, "s1", False, clock())
    await handlers.give_up(ctx, key(ANN), "b1", ANN)
    ended = battle_view(announced.states[-1], 0, ROSTER)
    assert ended.status == pb.BATTLE_STATUS_FINISHED
    assert not ended.opponent.HasField("takeover_time"), ended.opponent


async def test_a_player_with_no_session_at_the_start_is_shown_away_from_it() -> None:
    ctx, clock, announced = context()
    await online(ctx, ANN)
    await handlers_create.create_battle(ctx, "b1", humans())
    view = battle_view(announced.states[-1], 0, ROSTER)
    assert view.opponent.takeover_time.ToDatetime(UTC) == clock() + timedelta(seconds=30)
