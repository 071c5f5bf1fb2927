"""Content versions (BATTLE.md 1: "a battle records the content version it used"; 6: "a
battle replays to the same state after a code change"): a battle in progress plays on,
and is shown, with the roster it started under after a new one is deployed, while new
battles take the new one; a battle whose content is not deployed is refused, naming its
version, and the timers go on with the other battles."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest
from structlog.testing import capture_logs

from services.battle import handlers, handlers_timers
from services.battle.domain import BattleState, Phase
from services.battle.domain.errors import ContentNotDeployed
from services.battle.presenter import SeatViews
from services.battle.rules import (
    Action,
    Battle,
    Kind,
    Range,
    Roster,
    legal_actions,
    parse_roster,
    resolve_turn,
    rosters_of,
)
from services.battle.rules.content import ROSTER_PATH
from services.battle.tests.builders import (
    ANN,
    BEA,
    ROSTER,
    context,
    create,
    humans,
    key,
    start,
    versus_cpu,
)
from services.platform.pushes import RecordedPushes

A = ROSTER
CAT, DAN, EVE = "cat-id", "dan-id", "eve-id"


def _rebalanced(card_id: str) -> Roster:
    """Roster B: A with one card renamed and hitting 9 harder, under a new version."""
    raw = json.loads(ROSTER_PATH.read_text(encoding="utf-8"))
    raw["content_version"] = "skirmish-test-b"
    for character in raw["characters"]:
        for card in character["cards"]:
            if card["id"] == card_id:
                card["name"] = "Rebalanced " + card["name"]
                card["effects"] = [
                    {"damage": e["damage"] + 9} if "damage" in e else e for e in card["effects"]
                ]
    return parse_roster(raw, "roster B")


def _hit(battle: Battle) -> Action:
    """Seat 0's first legal one-target damage card."""
    return next(
        a
        for a in legal_actions(A, battle, 0)
        if A.cards[a.card].range is Range.SINGLE
        and [e.kind for e in A.cards[a.card].effects] == [Kind.DAMAGE]
    )


def _hand_names(views: SeatViews, state: BattleState) -> dict[str, str]:
    return {c.id: c.name for c in views.view(state, 0).you.hand}


async def test_a_battle_started_under_a_plays_on_under_a_once_b_is_deployed() -> None:
    old, clock, _ = context()
    state = await start(old)
    assert state.battle is not None and state.content_version == A.version
    hit = _hit(state.battle)
    b = _rebalanced(hit.card)
    assert b.cards[hit.card].name != A.cards[hit.card].name
    ctx, _, _ = context(store=old.store, rosters=rosters_of(b, A))
    ctx.clock = clock
    views = SeatViews(RecordedPushes(), ctx.rosters, lambda: datetime.now(UTC))

    seen = await handlers.set_plan(ctx, key(ANN), "b1", ANN, 1, (hit,))  # checked with A
    assert _hand_names(views, seen.state)[hit.card] == A.cards[hit.card].name
    await handlers.commit_plan(ctx, key(ANN), "b1", ANN, 1, (hit,))
    done = await handlers.commit_plan(ctx, key(BEA), "b1", BEA, 1, ())

    expected = resolve_turn(A, state.battle, ((hit,), ()), 0)
    assert done.state.turn == 2 and done.state.battle == expected.battle
    [entry] = [e for e in done.state.log if e.card == hit.card]
    dealt = sum(e.amount for e in entry.effects if e.change in ("damage", "absorbed"))
    assert dealt == A.cards[hit.card].effects[0].amount != b.cards[hit.card].effects[0].amount

    new = await create(ctx, "b2", humans(CAT, DAN))
    assert new.content_version == b.version
    names = _hand_names(views, new)
    assert all(names[c] == b.cards[c].name for c in names)
    assert names[hit.card] == b.cards[hit.card].name  # the same draw as b1's (seed 7)


async def test_the_cpu_of_a_battle_under_a_plays_with_a_and_takes_a_seat_over_with_a() -> None:
    old, clock, _ = context()
    await create(old, "p1", versus_cpu("greedy"))
    seen = await handlers.set_formation(old, key(ANN), "p1", ANN, ((0, 0), (1, 0), (2, 0)))
    assert seen.state.battle is not None and seen.state.plans[1] is not None
    ctx, _, _ = context(store=old.store, rosters=rosters_of(_rebalanced("wisp.needle"), A))
    ctx.clock = clock
    turn2 = await handlers.commit_plan(ctx, key(ANN), "p1", ANN, 1, ())
    assert turn2.state.turn == 2 and turn2.state.plans[1] is not None  # the CPU, with A
    await handlers_timers.report_presence(ctx, ANN, "s1", False, clock())
    clock.advance(31)
    assert await handlers_timers.fire_due_timer(ctx)  # the takeover
    taken = await ctx.store.load("p1")
    assert taken is not None and taken.cpu[0] and taken.content_version == A.version
    assert taken.turn == 3 or taken.over


async def test_a_battle_of_content_not_deployed_is_refused_and_the_timers_go_on() -> None:
    old, clock, _ = context()
    state = await start(old)
    assert state.battle is not None
    b = _rebalanced(_hit(state.battle).card)
    ctx, _, _ = context(store=old.store, rosters=rosters_of(b))  # A is gone
    ctx.clock = clock
    await create(ctx, "b2", humans(CAT, DAN))

    refusals = (
        handlers.set_plan(ctx, key(ANN), "b1", ANN, 1, ()),
        handlers.commit_plan(ctx, key(ANN), "b1", ANN, 1, ()),
        handlers.give_up(ctx, key(BEA), "b1", BEA),
        handlers.view(ctx, "b1", ANN),
    )
    for refused in refusals:
        with pytest.raises(ContentNotDeployed, match=f"'{A.version}'"):
            await refused

    clock.advance(61)  # b2's formation and b1's selection are both due
    with capture_logs() as logs:
        assert await handlers_timers.fire_due_timer(ctx)
        assert await handlers_timers.fire_due_timer(ctx)
        assert not await handlers_timers.fire_due_timer(ctx)
    assert any(
        e["event"] == "battle.content_not_deployed" and e["content_version"] == A.version
        for e in logs
    )
    still = await ctx.store.load("b1")
    assert still is not None and still.version == state.version
    moved = await ctx.store.load("b2")
    assert moved is not None and moved.phase is Phase.SELECTION

    ctx.rosters = rosters_of(b, A)  # A deployed again: b1's timer fires after its lease
    clock.advance(handlers_timers.CLAIM_LEASE.total_seconds())
    assert await handlers_timers.fire_due_timer(ctx)
    resumed = await ctx.store.load("b1")
    assert resumed is not None and resumed.turn == 2


async def test_battles_in_progress_are_announced_once_nats_is_back_but_not_unloaded_ones() -> None:
    """At a start (or NATS back) every battle in progress is pushed again to its players,
    but for one whose content is not deployed (logged) and one that is over."""
    old, clock, _ = context()
    await start(old)  # b1, under A
    b = _rebalanced("wisp.needle")
    ctx, _, announced = context(store=old.store, rosters=rosters_of(b))  # A is gone
    ctx.clock = clock
    await create(ctx, "b2", humans(CAT, DAN))
    await create(ctx, "b3", versus_cpu(player=EVE))
    await handlers.give_up(ctx, key(EVE), "b3", EVE)
    announced.states.clear()
    with capture_logs() as logs:
        assert await handlers.announce_in_progress(ctx, asyncio.Event()) == 1
    assert [(s.battle_id, s.over) for s in announced.states] == [("b2", False)]
    assert any(e["event"] == "battle.content_not_deployed" for e in logs)
    stop = asyncio.Event()
    stop.set()
    assert await handlers.announce_in_progress(ctx, stop) == 0
