"""One contract, two adapters: the in-memory battles and PostgreSQL answer alike."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from services.battle import codec, handlers
from services.battle.domain.deadlines import DeadlineKind
from services.battle.schema import SCHEMA_MIGRATIONS
from services.battle.store import MemoryBattles, PostgresBattles
from services.battle.store.port import BattleRepository, DueTimer
from services.battle.tests.builders import ANN, BEA, commit, context, create, humans, key, start
from services.platform.eventstore import WrongExpectedVersion
from services.platform.migrations import migrate
from services.platform.requests import Request, RequestReused


@pytest.fixture
async def postgres(pg_pool: Any, pg_schema: str) -> PostgresBattles:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    return PostgresBattles(pg_pool, pg_schema)


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest) -> BattleRepository:
    if request.param == "memory":
        return MemoryBattles()
    found: PostgresBattles = request.getfixturevalue("postgres")
    return found


async def test_a_saved_battle_loads_back_equal(store: BattleRepository) -> None:
    ctx, _, _ = context(store)
    state = await start(ctx)
    assert await store.load("b1") == state
    assert await store.load("nope") is None
    assert await store.in_progress() == ["b1"]


async def test_an_append_at_a_stale_version_is_refused_and_changes_nothing(
    store: BattleRepository,
) -> None:
    ctx, _, _ = context(store)
    await start(ctx)
    stale = await store.load("b1")
    assert stale is not None
    await commit(ctx, "b1", ANN)
    from services.battle import domain
    from services.battle.store.port import Write

    decision = domain.give_up(stale, 1, ctx.clock())
    with pytest.raises(WrongExpectedVersion):
        await store.save(Write("b1", decision))
    after = await store.load("b1")
    assert after is not None and not after.over


async def test_a_request_id_answers_with_its_battle_and_refuses_other_content(
    store: BattleRepository,
) -> None:
    ctx, _, _ = context(store)
    await start(ctx)
    request = Request.of(ANN, "x1", "commit", 1)
    assert await store.answered(request) is None
    await handlers.commit_plan(ctx, request, "b1", ANN, 1, ())
    assert await store.answered(request) == "b1"
    with pytest.raises(RequestReused):
        await store.answered(Request.of(ANN, "x1", "commit", 2))


async def test_the_phase_timer_follows_the_state_and_a_claim_leases_it(
    store: BattleRepository,
) -> None:
    ctx, clock, _ = context(store)
    await create(ctx, "b1", humans())
    formation_due = clock() + ctx.timing.formation
    assert await store.next_due() == formation_due
    assert await store.claim_due(clock(), timedelta(seconds=5), 10) == []
    late = formation_due + timedelta(seconds=1)
    assert await store.claim_due(late, timedelta(seconds=5), 10) == [
        DueTimer("b1", DeadlineKind.FORMATION, -1)
    ]
    assert await store.claim_due(late, timedelta(seconds=5), 10) == [], "leased"
    assert await store.next_due() == late + timedelta(seconds=5)


async def test_presence_sets_and_clears_the_disconnect_timer(store: BattleRepository) -> None:
    ctx, clock, _ = context(store)
    await start(ctx)
    opened = clock()
    assert await store.record_presence(BEA, "s1", True, opened)
    assert await store.connected(BEA) and not await store.connected("nobody")
    assert await store.record_presence(BEA, "s1", False, opened)
    assert not await store.connected(BEA)
    assert not await store.record_presence(BEA, "s0", True, opened - timedelta(seconds=1))
    assert not await store.record_presence(BEA, "s1", True, opened), "its opening, late"
    assert not await store.connected(BEA)
    await store.set_disconnect("b1", 1, clock() + timedelta(seconds=30))
    assert await store.next_due() == clock() + timedelta(seconds=30)
    await store.clear_disconnect("b1", 1)
    assert await store.next_due() == clock() + ctx.timing.selection


async def test_the_end_of_a_battle_frees_its_players_and_its_timers(
    store: BattleRepository,
) -> None:
    ctx, clock, _ = context(store)
    await start(ctx)
    assert await store.active_battle(ANN) is not None
    await store.set_disconnect("b1", 1, clock() + timedelta(seconds=30))
    await handlers.give_up(ctx, key(ANN), "b1", ANN)
    assert await store.active_battle(ANN) is None and await store.active_battle(BEA) is None
    assert await store.next_due() is None and await store.in_progress() == []


async def test_a_battle_that_ends_while_its_player_is_away_is_told_to_them_once(
    store: BattleRepository,
) -> None:
    """Found from outside: a player whose battle ended while no session of theirs was
    open (the CPU played their seat) was told nothing when they came back."""
    ctx, clock, _ = context(store)
    await start(ctx)
    assert await store.record_presence(ANN, "s1", True, clock())
    assert await store.record_presence(BEA, "s1", True, clock())
    assert await store.record_presence(BEA, "s1", False, clock())
    assert await store.missed_battle(BEA) is None  # in progress: nothing missed yet
    await handlers.give_up(ctx, key(ANN), "b1", ANN)
    assert await store.missed_battle(ANN) is None  # she was there
    assert await store.record_presence(BEA, "s2", True, clock() + timedelta(seconds=1))
    assert await store.missed_battle(BEA) == "b1"
    assert await store.missed_battle(BEA) is None  # told once
    assert await store.missed_battle("nobody") is None


async def test_each_event_has_an_id_derived_from_its_battle_and_version(
    store: BattleRepository,
) -> None:
    ctx, _, _ = context(store)
    await start(ctx)
    records = await store.events.read_stream(codec.stream_id("b1"))  # type: ignore[attr-defined]
    assert [r.event_id for r in records] == [
        codec.event_id("b1", v) for v in range(1, len(records) + 1)
    ]
    assert records[0].type == "triad.v1.BattleCreated"


async def test_a_replica_loads_what_another_replica_saved_after_its_kept_state(
    postgres: PostgresBattles, pg_pool: Any, pg_schema: str
) -> None:
    """Each replica keeps the states it folded; a load still reads the events after the
    kept version, so what another replica appended meanwhile is never missed."""
    other = PostgresBattles(pg_pool, pg_schema)
    ctx, _, _ = context(postgres)
    await start(ctx)
    kept = await other.load("b1")
    assert kept is not None and kept.turn == 1
    await commit(ctx, "b1", ANN)
    await commit(ctx, "b1", BEA)
    moved = await other.load("b1")
    assert moved == await postgres.load("b1") and moved is not None and moved.turn == 2


async def test_a_request_recorded_first_undoes_the_whole_save(store: BattleRepository) -> None:
    """Two runs of one request racing: the second save raises RequestSeen and leaves
    neither its events nor its timers behind."""
    from services.battle import domain
    from services.battle.store.port import Write
    from services.platform.requests import RequestSeen

    ctx, _, _ = context(store)
    state = await start(ctx)
    request = Request.of(ANN, "raced", "give_up")
    await store.save(Write("b1", domain.give_up(state, 0, ctx.clock()), request))
    fresh = await store.load("b1")
    assert fresh is not None and fresh.over
    # the same request decided again on a battle that moved on differently elsewhere:
    other = domain.commit_plan(
        (await _unfinished(store, ctx)), 0, 1, (), ctx.rosters.current, ctx.clock(), ctx.timing
    )
    with pytest.raises(RequestSeen):
        await store.save(Write("b2", other, request))
    after = await store.load("b2")
    assert after is not None and after.plans == (None, None), "nothing of the save is left"


async def _unfinished(store: BattleRepository, ctx: Any) -> Any:
    await create(ctx, "b2", humans(a="ann2", b="bea2"))
    await handlers.set_formation(ctx, key("ann2"), "b2", "ann2", ((0, 0), (1, 0), (2, 0)))
    seen = await handlers.set_formation(ctx, key("bea2"), "b2", "bea2", ((0, 0), (1, 0), (2, 0)))
    return seen.state


async def test_saves_made_at_once_each_get_their_own_outcome(store: BattleRepository) -> None:
    """Concurrent saves (on PostgreSQL one group commit, one statement): a stale one
    is refused alone, the others are written."""
    import asyncio

    from services.battle import domain
    from services.battle.store.port import Write

    ctx, _, _ = context(store)
    state = await start(ctx)
    other = await _unfinished(store, ctx)
    mine = domain.commit_plan(state, 0, 1, (), ctx.rosters.current, ctx.clock(), ctx.timing)
    stale = domain.give_up(state, 1, ctx.clock())
    theirs = domain.commit_plan(other, 0, 1, (), ctx.rosters.current, ctx.clock(), ctx.timing)
    results = await asyncio.gather(
        store.save(Write("b1", mine, key(ANN))),
        store.save(Write("b1", stale, key(BEA))),
        store.save(Write("b2", theirs, key("ann2"))),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None, results
    assert isinstance(results[1], WrongExpectedVersion), results
    b1, b2 = await store.load("b1"), await store.load("b2")
    assert b1 is not None and b1.plans[0] == () and not b1.over
    assert b2 is not None and b2.plans[0] == ()


async def test_records_are_a_battles_stored_events_after_a_version_up_to_a_limit(
    store: BattleRepository,
) -> None:
    ctx, _, _ = context(store)
    state = await start(ctx)
    everything = await store.records("b1", 0, 100)
    assert [r.version for r in everything] == list(range(1, state.version + 1))
    assert {r.stream_id for r in everything} == {codec.stream_id("b1")}
    assert [r.version for r in await store.records("b1", 1, 2)] == [2, 3]
    assert await store.records("b1", state.version, 10) == []
    assert await store.records("nope", 0, 10) == []
