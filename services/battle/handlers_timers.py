"""The battle service's timers and presence: timers (formation; selection, where a seat
that did not commit acts with the plan it set; disconnect takeovers) are claimed by
:func:`fire_due_timer` from any replica and fired as commands at the expected version;
a session's end starts the 30 s before the CPU takes the seat over
(:func:`report_presence`), and a battle that ended meanwhile is told to the player's
next session (:func:`missed_battle`). A timer plays the battle with the content it
recorded; one whose content is not loaded is logged and left to its lease (fired again
when it ends), and the loop goes on with the other battles."""

from __future__ import annotations

from datetime import datetime, timedelta

import structlog

from services.battle import domain
from services.battle.domain import BattleState, Decision
from services.battle.domain.deadlines import DeadlineKind
from services.battle.domain.errors import ContentNotDeployed
from services.battle.handlers import RETRIES, Context, after, cpu_moves, roster_of
from services.battle.rules import Roster
from services.battle.store.port import DueTimer, Write
from services.platform.eventstore import WrongExpectedVersion

log = structlog.get_logger()

CLAIM_LEASE = timedelta(seconds=10)
"""How long a claimed timer waits before another try if its command failed."""


# ---------------------------------------------------------------------------- timers


async def fire_due_timer(ctx: Context) -> bool:
    """Claim one due timer and fire it as a command at the expected version; False when
    none is due (the loop rests)."""
    claimed = await ctx.store.claim_due(ctx.clock(), CLAIM_LEASE, 1)
    for timer in claimed:
        await _fire(ctx, timer)
    return bool(claimed)


def _due(ctx: Context, state: BattleState, timer: DueTimer, roster: Roster) -> Decision:
    now = ctx.clock()
    ripe = state.deadline is not None and state.deadline <= now
    if timer.kind is DeadlineKind.FORMATION and ripe:
        return domain.formation_due(state, roster, now, ctx.timing)
    if timer.kind is DeadlineKind.SELECTION and ripe:
        return domain.selection_due(state, roster, now, ctx.timing)
    if timer.kind is DeadlineKind.DISCONNECT:
        return domain.take_over(state, timer.seat, ctx.takeover_level, now)
    return domain.decide._decide(state, [])  # stale: the save puts the right timer back


async def _fire(ctx: Context, timer: DueTimer) -> None:
    async with ctx.locks.hold(timer.battle_id):
        await _fire_held(ctx, timer)


async def _fire_held(ctx: Context, timer: DueTimer) -> None:
    for _ in range(RETRIES):
        state = await ctx.store.load(timer.battle_id)
        if state is None:
            return
        try:
            roster = roster_of(ctx, state)
        except ContentNotDeployed:
            return  # logged; the claim's lease brings the timer back
        decision = await cpu_moves(ctx, roster, _due(ctx, state, timer, roster))
        settled: tuple[int, ...] = (timer.seat,) if timer.kind is DeadlineKind.DISCONNECT else ()
        if decision.state.over:
            settled = (0, 1)
        try:
            await ctx.store.save(Write(timer.battle_id, decision, None, settled))
        except WrongExpectedVersion:
            continue
        await after(ctx, decision)
        return
    log.warning("battle.timer_conflict", battle_id=timer.battle_id, kind=timer.kind.value)


# ---------------------------------------------------------------------------- presence


async def report_presence(
    ctx: Context,
    player: str,
    session_id: str,
    connected: bool,
    opened_at: datetime,
    applied: bool = True,
) -> str | None:
    """A session opened or ended: an ending starts the 30 s before the CPU takes the
    seat over, an opening cancels it; not ``applied`` (a session its client reopens at
    once), recorded only, so that a battle finishing meanwhile is missed, as the match
    service does. Returns the player's battle in progress."""
    active = await ctx.store.active_battle(player)
    if not await ctx.store.record_presence(player, session_id, connected, opened_at):
        return None if active is None else active.battle_id
    if active is None or not applied:
        return None if active is None else active.battle_id
    due = None if connected else ctx.clock() + ctx.disconnect
    if due is None:
        await ctx.store.clear_disconnect(active.battle_id, active.seat)
    else:
        await ctx.store.set_disconnect(active.battle_id, active.seat, due)
        ctx.wake(due)
    await tell_presence(ctx, active.battle_id, active.seat, due)
    return active.battle_id


async def tell_presence(ctx: Context, battle_id: str, seat: int, due: datetime | None) -> None:
    """Both seats' views say the player left and when the CPU takes the seat over
    (``due``), or that they came back (None). Found from outside: the opponent was told
    nothing for the 30 s before a takeover. The timer decides; this is what is seen."""
    async with ctx.locks.hold(battle_id):
        for _ in range(RETRIES):
            state = await ctx.store.load(battle_id)
            if state is None:
                return
            decision = domain.presence(state, seat, due)
            if not decision.events:
                return
            try:
                await ctx.store.save(Write(battle_id, decision, None, ()))
            except WrongExpectedVersion:
                continue
            await after(ctx, decision)
            return
    log.warning("battle.presence_conflict", battle_id=battle_id, seat=seat)


async def missed_battle(ctx: Context, player: str) -> str | None:
    """The battle that finished while the player's session was closed (the CPU played
    their seat, say), told once."""
    return await ctx.store.missed_battle(player)
