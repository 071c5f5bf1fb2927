"""``triad-admin battle show``'s report, from a battle's stored events alone: a line per
event saying what it did, then the turn, the teams' units with their HP and the outcome
of the same battle the store folds."""

from __future__ import annotations

from services.battle import handlers_create, handlers_timers
from services.battle.admin import report
from services.battle.tests.builders import ANN, commit, context, start, versus_cpu
from services.platform.bus import envelope

SEATS = ("seat 0 (ann)", "seat 1 (CPU greedy)")


async def test_a_battle_the_cpu_took_over_is_told_event_by_event_then_as_it_ended() -> None:
    ctx, clock, _ = context()
    await handlers_create.create_battle(ctx, "b1", versus_cpu())  # ann has no session
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)  # the CPU takes her seat and plays on
    state = await ctx.store.load("b1")
    assert state is not None and state.over and state.battle is not None
    records = await ctx.store.records("b1", 0, 1000)
    lines = list(report("b1", [envelope(r) for r in records]))

    events, gap, final = lines[: len(records)], lines[len(records)], lines[len(records) + 1 :]
    assert gap == ""
    assert events[0].startswith("   1  BattleCreated")
    assert f"{SEATS[0]} ember, bastion, wisp vs {SEATS[1]} sable, moss, volt" in events[0]
    assert any(f"{SEATS[1]} places sable at (" in line for line in events)
    assert any(f"the CPU (greedy) takes over {SEATS[0]}" in line for line in events)
    committed = [line for line in events if "BattlePlanCommitted" in line]
    assert committed and all("(by the CPU)" in line for line in committed)
    assert any(" plays " in line for line in committed), "the cards of a plan are named"
    resolved = [line for line in events if "BattleTurnResolved" in line]
    assert len(resolved) == state.battle.turn
    assert all(" resolved, " in line for line in resolved)
    assert any(" damage " in line for line in resolved), "what the actions did"
    assert events[-1].endswith(f"BattleFinished       {SEATS[1]} wins (disconnect)")

    assert final[0] == f"turn {state.battle.turn}"
    for seat, team in enumerate(state.battle.teams):
        at = final.index(f"{SEATS[seat]}: energy {team.energy}")
        for offset, unit in enumerate(team.units, start=1):
            assert final[at + offset].split()[:2] == [unit.uid, f"{unit.hp}/{unit.max_hp}"]
    assert final[-1] == f"outcome: {SEATS[1]} wins (disconnect)"


async def test_a_battle_in_progress_shows_its_turn_and_no_outcome_yet() -> None:
    ctx, _, _ = context()
    await start(ctx)
    await commit(ctx, "b1", ANN)
    records = await ctx.store.records("b1", 0, 100)
    lines = list(report("b1", [envelope(r) for r in records]))
    assert lines[len(records) - 1].endswith(f"{SEATS[0]} commits turn 1: no cards")
    assert lines[len(records) + 1] == "turn 1"
    assert lines[-1] == "outcome: none yet (selection)"
