"""SetPlan on the in-memory store (BATTLE.md 4.2: "a player who does not commit in 60 s
acts with the cards set so far"): a plan set and not committed acts at the deadline, a
later set replaces an earlier, a commit's plan is what acts, and the opponent never
sees a plan set before the turn resolves."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.battle import codec, handlers, handlers_timers
from services.battle.domain import BattleState
from services.battle.domain.errors import BadPlan, NotNow
from services.battle.domain.events import PlanCommitted, PlanSet
from services.battle.handlers import Context, Seen
from services.battle.presenter import SeatViews, battle_view
from services.battle.rules import Action, Plan, Step, Target, legal_actions
from services.battle.tests.builders import (
    ANN,
    BEA,
    ROSTER,
    commit,
    context,
    create,
    humans,
    key,
    start,
)
from services.platform.pushes import RecordedPushes
from services.platform.requests import Request, RequestReused


def two_plans(state: BattleState) -> tuple[Plan, Plan]:
    """Two one-card plans of seat 0, each with a different card."""
    assert state.battle is not None
    actions = legal_actions(ROSTER, state.battle, 0)
    first = actions[0]
    other = next(a for a in actions if a.card != first.card)
    return (first,), (other,)


async def set_plan(ctx: Context, player: str, plan: Plan, request: Request | None = None) -> Seen:
    state = await ctx.store.load("b1")
    assert state is not None
    return await handlers.set_plan(ctx, request or key(player), "b1", player, state.turn, plan)


def played(state: BattleState, seat: int) -> list[str]:
    """The cards the seat's characters played in the last resolved turn."""
    return [e.card for e in state.log if e.step is Step.CARD and e.team == seat]


async def test_a_plan_set_but_not_committed_acts_at_the_deadline() -> None:
    ctx, clock, _ = context()
    plan, _ = two_plans(await start(ctx))
    seen = await set_plan(ctx, ANN, plan)
    assert seen.state.set_plans[0] == plan and seen.state.plans[0] is None
    assert [a.card for a in battle_view(seen.state, 0, ROSTER).set_actions] == [plan[0].card]
    assert not battle_view(seen.state, 0, ROSTER).you.committed
    clock.advance(61)
    assert await handlers_timers.fire_due_timer(ctx)
    after = await ctx.store.load("b1")
    assert after is not None and after.turn == 2 and after.set_plans == ((), ())
    assert played(after, 0) == [plan[0].card]
    assert played(after, 1) == []
    committed = [e for e in await _events(ctx) if isinstance(e, PlanCommitted)]
    assert [(e.seat, e.plan, e.at_deadline) for e in committed] == [
        (0, plan, True),
        (1, (), True),
    ]


async def test_a_later_set_replaces_an_earlier_and_an_empty_one_clears_it() -> None:
    ctx, clock, _ = context()
    first, second = two_plans(await start(ctx))
    await set_plan(ctx, ANN, first)
    seen = await set_plan(ctx, ANN, second)
    assert seen.state.set_plans[0] == second
    assert [a.card for a in battle_view(seen.state, 0, ROSTER).set_actions] == [second[0].card]
    clock.advance(61)
    assert await handlers_timers.fire_due_timer(ctx)
    after = await ctx.store.load("b1")
    assert after is not None and played(after, 0) == [second[0].card]
    again, _ = two_plans(after)
    await set_plan(ctx, ANN, again)
    cleared = await set_plan(ctx, ANN, ())
    assert (
        cleared.state.set_plans[0] == () and not battle_view(cleared.state, 0, ROSTER).set_actions
    )
    clock.advance(61)
    assert await handlers_timers.fire_due_timer(ctx)
    turn_3 = await ctx.store.load("b1")
    assert turn_3 is not None and turn_3.turn == 3 and played(turn_3, 0) == []


async def test_a_commit_overrides_the_plan_set_and_ends_setting() -> None:
    ctx, _, _ = context()
    first, second = two_plans(await start(ctx))
    await set_plan(ctx, ANN, first)
    committed = await commit(ctx, "b1", ANN, second)
    assert committed.plans[0] == second and committed.set_plans[0] == ()
    mine = battle_view(committed, 0, ROSTER)
    assert [a.card for a in mine.plan] == [second[0].card] and not mine.set_actions
    with pytest.raises(NotNow, match="committed already"):
        await set_plan(ctx, ANN, first)
    resolved = await commit(ctx, "b1", BEA)
    assert resolved.turn == 2 and played(resolved, 0) == [second[0].card]


async def test_the_opponent_never_sees_a_plan_set_nor_hears_that_one_was() -> None:
    ctx, _, _ = context()
    plan, _ = two_plans(await start(ctx))
    pushes = RecordedPushes()
    ctx.announce = SeatViews(pushes, ctx.rosters, lambda: datetime.now(UTC)).announce
    seen = await set_plan(ctx, ANN, plan)
    assert seen.state.set_plans[0] == plan
    [mine] = pushes.of(ANN)
    assert [a.card for a in mine.set_actions] == [plan[0].card], "the setter is told"  # type: ignore[attr-defined]
    assert pushes.of(BEA) == [], "the opponent is not"
    theirs = battle_view(seen.state, 1, ROSTER)
    assert not theirs.set_actions and not theirs.plan and not theirs.opponent.committed
    assert plan[0].card.encode() not in theirs.SerializeToString()
    waiting = await commit(ctx, "b1", BEA)
    assert waiting.set_plans[0] == plan, "bea's commit leaves ann's plan set, unseen"
    assert plan[0].card.encode() not in pushes.of(BEA)[-1].SerializeToString()


async def test_the_opponents_view_version_does_not_move_when_a_plan_is_set() -> None:
    ctx, _, _ = context()
    first, second = two_plans(await start(ctx))
    before = battle_view((await handlers.view(ctx, "b1", BEA)).state, 1, ROSTER)
    mine = (await set_plan(ctx, ANN, first)).state
    await set_plan(ctx, ANN, second)
    seen = await handlers.view(ctx, "b1", BEA)
    theirs = battle_view(seen.state, 1, ROSTER)
    assert theirs == before, "a poll tells bea nothing, not even that ann set a plan"
    assert battle_view(mine, 0, ROSTER).version == before.version + 1
    committed = battle_view(await commit(ctx, "b1", BEA), 1, ROSTER)
    assert committed.version == before.version + 1, "bea's own changes still count"
    resolved = await commit(ctx, "b1", ANN)
    assert battle_view(resolved, 0, ROSTER).version > battle_view(mine, 0, ROSTER).version + 1


async def test_a_plan_set_is_checked_as_a_commit_is_and_a_refusal_records_nothing() -> None:
    ctx, _, _ = context()
    state = await start(ctx)
    bad = (Action("ember", "no-such-card", Target()),)
    with pytest.raises(BadPlan, match="no such card"):
        await set_plan(ctx, ANN, bad)
    with pytest.raises(NotNow, match="turn 2"):
        await handlers.set_plan(ctx, key(ANN), "b1", ANN, 2, ())
    after = await ctx.store.load("b1")
    assert after is not None and after.version == state.version


async def test_a_retried_set_records_nothing_new_and_a_reused_id_is_refused() -> None:
    ctx, _, _ = context()
    first, second = two_plans(await start(ctx))
    request = Request.of(ANN, "same", "set", first)
    once = await set_plan(ctx, ANN, first, request)
    again = await set_plan(ctx, ANN, first, request)
    assert again.state.version == once.state.version
    await set_plan(ctx, ANN, second)
    late = await set_plan(ctx, ANN, first, request)
    assert late.state.set_plans[0] == second, "a late retry changes nothing"
    assert len([e for e in await _events(ctx) if isinstance(e, PlanSet)]) == 2
    with pytest.raises(RequestReused):
        await set_plan(ctx, ANN, second, Request.of(ANN, "same", "set", second))


async def test_a_plan_set_survives_a_reload_from_the_log() -> None:
    ctx, _, _ = context()
    plan, _ = two_plans(await start(ctx))
    seen = await set_plan(ctx, ANN, plan)
    again = await ctx.store.load("b1")
    assert again == seen.state and again.set_plans[0] == plan


async def _events(ctx: Context) -> list[object]:
    records = await ctx.store.events.read_stream(codec.stream_id("b1"))  # type: ignore[attr-defined]
    return [codec.decode_record(r) for r in records]


async def test_a_plan_before_turn_1_says_what_the_battle_waits_for() -> None:
    """Found from outside: a player whose formation was placed, planning before the
    opponent placed theirs, was told "set your formation first"."""
    ctx, _, _ = context()
    await create(ctx, "b1", humans())
    for player in (ANN, BEA):
        with pytest.raises(NotNow, match="set your formation first"):
            await handlers.set_plan(ctx, key(player), "b1", player, 1, ())
    await handlers.set_formation(ctx, key(ANN), "b1", ANN, ((0, 0), (1, 0), (2, 0)))
    for call in (handlers.set_plan, handlers.commit_plan):
        with pytest.raises(NotNow) as refused:
            await call(ctx, key(ANN), "b1", ANN, 1, ())
        told = str(refused.value)
        assert "set your formation" not in told, told
        assert "your opponent" in told and "formation" in told, told
