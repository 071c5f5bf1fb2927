"""The time limits of BATTLE.md 2 and 4.2 hold to the second, whenever the timer fires:
a formation after its 30 s and a plan (set or committed) after the 60 s selection are
refused, and what was there at the limit is what counts (the default formation; the
plan set so far)."""

from __future__ import annotations

import pytest

from services.battle import handlers, handlers_timers
from services.battle.domain import Phase
from services.battle.domain.errors import NotNow
from services.battle.rules import Step, legal_actions
from services.battle.tests.builders import ANN, BEA, ROSTER, context, create, humans, key, start


async def test_a_formation_after_its_30_seconds_is_refused_and_the_default_stands() -> None:
    ctx, clock, _ = context()
    await create(ctx, "b1", humans())
    clock.advance(30)
    with pytest.raises(NotNow, match="formation time is up"):
        await handlers.set_formation(ctx, key(ANN), "b1", ANN, ((0, 1), (1, 1), (2, 1)))
    assert await handlers_timers.fire_due_timer(ctx)
    state = await ctx.store.load("b1")
    assert state is not None and state.phase is Phase.SELECTION
    assert state.formations[0] == ((0, 0), (1, 0), (2, 0))


async def test_a_plan_after_the_60_second_selection_is_refused_and_the_plan_set_acts() -> None:
    ctx, clock, _ = context()
    state = await start(ctx)
    assert state.battle is not None
    actions = legal_actions(ROSTER, state.battle, 0)
    first = (actions[0],)
    other = (next(a for a in actions if a.card != actions[0].card),)
    await handlers.set_plan(ctx, key(ANN), "b1", ANN, 1, first)
    clock.advance(59.9)
    await handlers.commit_plan(ctx, key(BEA), "b1", BEA, 1, ())  # in time
    clock.advance(0.1)
    with pytest.raises(NotNow, match="selection time is up"):
        await handlers.set_plan(ctx, key(ANN), "b1", ANN, 1, other)
    with pytest.raises(NotNow, match="selection time is up"):
        await handlers.commit_plan(ctx, key(ANN), "b1", ANN, 1, other)
    assert await handlers_timers.fire_due_timer(ctx)
    after = await ctx.store.load("b1")
    assert after is not None and after.turn == 2
    played = [e.card for e in after.log if e.step is Step.CARD and e.team == 0]
    assert played == [first[0].card]


async def test_the_cpu_taking_over_after_the_selection_deadline_still_plays_the_seat() -> None:
    ctx, clock, _ = context()
    await start(ctx)
    await handlers_timers.report_presence(ctx, BEA, "s1", False, clock())
    clock.advance(61)  # both the disconnect (30 s) and the selection (60 s) are due
    assert await handlers_timers.fire_due_timer(ctx)  # the disconnect: the CPU commits late
    state = await ctx.store.load("b1")
    assert state is not None and state.cpu[1] and state.plans[1] is not None
    assert await handlers_timers.fire_due_timer(ctx)  # the selection: ann acts with nothing
    after = await ctx.store.load("b1")
    assert after is not None and after.turn == 2
