"""The battle use cases on the in-memory store: milliseconds each."""

from __future__ import annotations

import pytest

from services.battle import handlers, handlers_timers
from services.battle.bots.levels import GreedyBot
from services.battle.domain import FinishReason, Phase
from services.battle.domain.deadlines import DeadlineKind
from services.battle.domain.errors import BadPlan, BattleNotFound, NotNow
from services.battle.handlers import SeatSpec
from services.battle.presenter import battle_view
from services.battle.rules import view_for
from services.battle.tests.builders import (
    ANN,
    BEA,
    ROSTER,
    TEAM_A,
    commit,
    context,
    create,
    humans,
    key,
    start,
    versus_cpu,
)
from services.platform.errors import FailedPrecondition, InvalidArgument
from services.platform.requests import Request, RequestReused


async def test_a_battle_begins_when_both_formations_are_set() -> None:
    ctx, _, announced = context()
    created = await create(ctx, "b1", humans())
    assert created.phase is Phase.FORMATION and created.battle is None
    state = await start(ctx)
    assert state.phase is Phase.SELECTION and state.turn == 1
    assert state.battle is not None
    assert [u.square for u in state.battle.teams[1].units] == [(0, 0), (1, 0), (2, 1)]
    assert announced.states[-1].version == state.version


async def test_a_committed_plan_stays_hidden_until_the_turn_resolves() -> None:
    ctx, _, _ = context()
    state = await start(ctx)
    assert state.battle is not None
    plan = GreedyBot().choose(ROSTER, view_for(state.battle, 0), __import__("random").Random(1))
    assert plan, "greedy sets something on turn 1"
    after = await commit(ctx, "b1", ANN, plan)
    theirs = battle_view(after, 1, ROSTER)
    assert theirs.opponent.committed and not theirs.plan
    assert not theirs.opponent.hand and theirs.opponent.hand_size == 5
    mine = battle_view(after, 0, ROSTER)
    assert [a.card for a in mine.plan] == [a.card for a in plan]
    resolved = await commit(ctx, "b1", BEA)
    assert resolved.turn == 2 and resolved.plans == (None, None)
    assert any(e.card == plan[0].card for e in resolved.log)


async def test_a_plan_is_committed_once_per_turn_and_a_retry_returns_the_first_result() -> None:
    ctx, _, _ = context()
    await start(ctx)
    request = Request.of(ANN, "same", "commit")
    first = await handlers.commit_plan(ctx, request, "b1", ANN, 1, ())
    again = await handlers.commit_plan(ctx, request, "b1", ANN, 1, ())
    assert again.state.version == first.state.version
    with pytest.raises(NotNow, match="committed already"):
        await handlers.commit_plan(ctx, key(ANN), "b1", ANN, 1, ())
    with pytest.raises(RequestReused):
        await handlers.commit_plan(ctx, Request.of(ANN, "same", "other"), "b1", ANN, 1, ())


async def test_a_bad_plan_is_refused_with_its_reason_and_changes_nothing() -> None:
    ctx, _, _ = context()
    state = await start(ctx)
    from services.battle.rules import Action, Target

    bad = (Action("ember", "no-such-card", Target()),)
    with pytest.raises(BadPlan, match="no such card"):
        await handlers.commit_plan(ctx, key(ANN), "b1", ANN, 1, bad)
    with pytest.raises(NotNow, match="turn 2"):
        await handlers.commit_plan(ctx, key(ANN), "b1", ANN, 2, ())
    after = await ctx.store.load("b1")
    assert after is not None and after.version == state.version


async def test_a_stranger_sees_no_battle() -> None:
    ctx, _, _ = context()
    await start(ctx)
    with pytest.raises(BattleNotFound):
        await handlers.view(ctx, "b1", "carl")
    with pytest.raises(BattleNotFound):
        await handlers.commit_plan(ctx, key("carl"), "b1", "carl", 1, ())


async def test_the_formation_deadline_places_the_default_and_begins_turn_1() -> None:
    ctx, clock, _ = context()
    await create(ctx, "b1", humans())
    assert not await handlers_timers.fire_due_timer(ctx)
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)
    state = await ctx.store.load("b1")
    assert state is not None and state.phase is Phase.SELECTION
    assert state.formations == (((0, 0), (1, 0), (2, 0)), ((0, 0), (1, 0), (2, 0)))


async def test_the_selection_deadline_resolves_with_what_was_committed() -> None:
    ctx, clock, _ = context()
    await start(ctx)
    await commit(ctx, "b1", ANN)
    clock.advance(61)
    assert await handlers_timers.fire_due_timer(ctx)
    state = await ctx.store.load("b1")
    assert state is not None and state.turn == 2


async def test_against_the_cpu_each_commit_resolves_a_turn_and_the_battle_ends() -> None:
    ctx, _, _ = context()
    created = await create(ctx, "b1", versus_cpu())
    assert created.formations[1] is not None
    seen = await handlers.set_formation(ctx, key(ANN), "b1", ANN, ((0, 0), (1, 0), (2, 0)))
    assert seen.state.plans[1] is not None, "the CPU commits as the turn opens"
    state = seen.state
    while not state.over:
        state = await commit(ctx, "b1", ANN)
    assert state.result is not None and state.result.winner == 1
    assert await handlers.active_battle(ctx, ANN) is None


async def test_a_player_away_30_seconds_is_taken_over_by_the_cpu_and_loses() -> None:
    ctx, clock, _ = context()
    await start(ctx)
    opened = clock()
    await handlers_timers.report_presence(ctx, BEA, "s1", True, opened)
    assert await handlers_timers.report_presence(ctx, BEA, "s1", False, opened) == "b1"
    clock.advance(29)
    assert not await handlers_timers.fire_due_timer(ctx)
    clock.advance(2)
    assert await handlers_timers.fire_due_timer(ctx)
    state = await ctx.store.load("b1")
    assert state is not None and state.cpu[1] == "greedy" and state.plans[1] is not None
    with pytest.raises(FailedPrecondition, match="CPU plays your seat"):
        await handlers.commit_plan(ctx, key(BEA), "b1", BEA, state.turn, ())
    with pytest.raises(FailedPrecondition, match="CPU plays your seat"):
        await handlers.set_plan(ctx, key(BEA), "b1", BEA, state.turn, ())
    watching = battle_view((await handlers.view(ctx, "b1", BEA)).state, 1, ROSTER)
    assert watching.you.cpu and not watching.opponent.hand, "back, bea watches"
    assert await handlers.active_battle(ctx, BEA) == handlers.Playing("b1", taken_over=True)
    assert await handlers.active_battle(ctx, ANN) == handlers.Playing("b1", taken_over=False)
    while not state.over:
        state = await commit(ctx, "b1", ANN)
    assert state.result is not None
    assert (state.result.winner, state.result.reason) == (0, FinishReason.DISCONNECT)


async def test_a_player_whose_seat_the_cpu_took_may_start_another_battle_at_once() -> None:
    """BATTLE.md 5: they lost and may only watch; found from outside, they were refused
    every queue until the CPU and their opponent had played the battle out. The new
    battle is their active one, and the old one's end does not take it away."""
    ctx, clock, _ = context()
    await start(ctx)
    await handlers_timers.report_presence(ctx, BEA, "s1", False, clock())
    with pytest.raises(FailedPrecondition, match="has a battle in progress"):
        await create(ctx, "b2", versus_cpu(player=BEA))
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)
    await create(ctx, "b2", versus_cpu(player=BEA))
    assert await handlers.active_battle(ctx, BEA) == handlers.Playing("b2", taken_over=False)
    with pytest.raises(FailedPrecondition, match="has a battle in progress"):
        await create(ctx, "b3", versus_cpu(player=ANN))
    await handlers.give_up(ctx, key(ANN), "b1", ANN)
    assert await handlers.active_battle(ctx, BEA) == handlers.Playing("b2", taken_over=False)
    assert await handlers.active_battle(ctx, ANN) is None


async def test_reconnecting_within_30_seconds_keeps_the_seat() -> None:
    ctx, clock, _ = context()
    await start(ctx)
    opened = clock()
    await handlers_timers.report_presence(ctx, BEA, "s1", False, opened)
    clock.advance(10)
    await handlers_timers.report_presence(ctx, BEA, "s2", True, clock())
    clock.advance(25)
    await handlers_timers.fire_due_timer(ctx)
    state = await ctx.store.load("b1")
    assert state is not None and state.cpu == ("", "")


async def test_giving_up_loses_and_ends_every_timer() -> None:
    ctx, clock, _ = context()
    await start(ctx)
    seen = await handlers.give_up(ctx, key(ANN), "b1", ANN)
    assert seen.state.result is not None
    assert (seen.state.result.winner, seen.state.result.reason) == (1, FinishReason.GIVE_UP)
    clock.advance(3600)
    assert not await handlers_timers.fire_due_timer(ctx)
    with pytest.raises(FailedPrecondition):
        await handlers.give_up(ctx, key(ANN), "b1", ANN)


async def test_a_player_has_one_battle_at_a_time() -> None:
    ctx, _, _ = context()
    await start(ctx)
    with pytest.raises(FailedPrecondition, match="in progress"):
        await create(ctx, "b2", humans())
    again = await create(ctx, "b1", humans())
    assert again.battle_id == "b1"


async def test_a_battle_asked_again_with_another_team_or_level_is_refused() -> None:
    """A practice battle's id comes from its request id: the same id asking for another
    team or CPU level is the request id reused, not a retry answered with the first."""
    ctx, _, _ = context()
    first = await create(ctx, "b1", versus_cpu("greedy"))
    assert (await create(ctx, "b1", versus_cpu("greedy"))) == first
    other_team = [SeatSpec(ANN, "ann", "", tuple(reversed(TEAM_A))), versus_cpu()[1]]
    for specs in (versus_cpu("search"), other_team):
        with pytest.raises(RequestReused, match="already used for a different request"):
            await create(ctx, "b1", specs)
    unnamed = [SeatSpec(ANN, "ann", "", ()), SeatSpec("", "", "greedy", ())]
    assert await create(ctx, "b1", unnamed) == first, "no team named: any"


async def test_a_replay_of_the_log_gives_the_same_state() -> None:
    ctx, _, _ = context()
    await create(ctx, "b1", versus_cpu("search"))
    state = (await handlers.set_formation(ctx, key(ANN), "b1", ANN, ((0, 0), (1, 0), (2, 0)))).state
    while not state.over:
        state = await commit(ctx, "b1", ANN)
    again = await ctx.store.load("b1")
    assert again == state
    assert battle_view(again, 0, ROSTER) == battle_view(state, 0, ROSTER)
    assert DeadlineKind.SELECTION.value == "selection"


async def test_a_commands_reply_is_the_view_its_push_carried_and_a_new_state_a_new_view() -> None:
    from datetime import UTC, datetime

    from services.battle.presenter import SeatViews
    from services.platform.pushes import RecordedPushes

    ctx, _, _ = context()
    pushes = RecordedPushes()
    views = SeatViews(pushes, ctx.rosters, lambda: datetime.now(UTC))
    state = await start(ctx)
    await views.announce(state)
    [pushed] = pushes.of(ANN)
    assert views.view(state, 0) is pushed  # built once: the reply reuses the push
    assert views.view(state, 1) is not pushed and views.view(state, 1).seat == 1
    after = await commit(ctx, "b1", ANN)
    assert after is not state
    assert views.view(after, 0) is not pushed and views.view(after, 0) == battle_view(
        after, 0, ROSTER
    )


async def test_a_team_of_other_than_three_different_characters_is_refused_in_words() -> None:
    """Found from outside: "a team is three different characters, got ['ember', 'wisp']"."""
    ctx, _, _ = context()
    two = [SeatSpec(ANN, "ann", "", ("ember", "wisp")), *versus_cpu()[1:]]
    with pytest.raises(InvalidArgument) as refused:
        await create(ctx, "b9", two)
    assert str(refused.value) == "a team is three different characters; got 2: ember, wisp"
