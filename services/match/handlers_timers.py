"""The match service's timers: the earliest due timer of a match claimed by
:func:`fire_due_timer` from any replica and fired as a command at the expected version
(a turn timed out, a disconnect grace run out, a bot's move), what it saved announced
(``handlers.Context.announce``) after the commit, as every command's is."""

from __future__ import annotations

from datetime import datetime

import structlog

from services.match import bots, domain
from services.match.handlers import Context, _announce, _round_seed
from services.match.views import match_view
from services.platform.eventstore import WrongExpectedVersion

log = structlog.get_logger()


async def _due(ctx: Context, match: domain.Match, now: datetime) -> domain.Decision:
    """What the earliest due timer of ``match`` decides (no events if all are stale).

    Earliest first, so a loop that comes late (a restart, a load) settles what happened
    first: a seat whose disconnect grace ran out before the other seat's turn did loses
    by disconnect (RULES.md 5). Timers due at one instant go turn, then seat A's
    disconnect, then B's. A bot's move due with its turn's timeout is not made late:
    the turn timed out. Found more than ``ctx.late_seconds`` late, the server could not
    act meanwhile (every replica down, PostgreSQL away): the clocks restart instead,
    once a turn (``domain.restart_clocks``)."""
    rng = ctx.rng
    due = [t for t in domain.deadlines(match) if t.due <= now]
    if any(t.kind is domain.DeadlineKind.TURN for t in due):
        due = [t for t in due if t.kind is not domain.DeadlineKind.BOT]
    due.sort(key=lambda t: t.due)
    late = (now - due[0].due).total_seconds() if due else 0.0
    if late > ctx.late_seconds and due[0].kind is not domain.DeadlineKind.BOT:
        restarted = domain.restart_clocks(match, now, late)
        if restarted.events:
            return restarted
    for timer in due:
        if timer.kind is domain.DeadlineKind.TURN:
            decision = domain.time_out(
                match, timer.turn, now, rng.randrange(1 << 30), _round_seed(ctx, match)
            )
        elif timer.kind is domain.DeadlineKind.DISCONNECT:
            decision = domain.disconnect_expired(match, timer.seat, now)
        else:
            bot = match.player(timer.seat)
            view = match_view(match, bot.player_id)
            if ctx.bot_pool is None:
                chosen = bots.move(view, rng)
            else:  # in a worker process, within the bot's budget and the turn timer
                chosen = await ctx.bot_pool.move(view, rng, now)
            # The move happens when the bot is done thinking: the opponent's turn timer
            # starts then, not when the bot's timer fired.
            decision = domain.place(
                match,
                bot.player_id,
                chosen.card_id,
                chosen.cell,
                max(now, ctx.clock()),
                _round_seed(ctx, match),
                chosen.lair,
                by_bot=True,
            )
        if decision.events:
            return decision
    return domain.Decision([], match)


async def fire_due_timer(ctx: Context) -> bool:
    """Fire the most overdue timer of one match, if any is due; True if one was claimed.

    Runs in the claim's transaction: the timer row stays locked until the events are
    appended, so a move arriving in the same instant waits, then finds the new version.
    What it saved is announced once that transaction has committed.
    """
    now = ctx.clock()
    saved: domain.Match | None = None
    try:
        async with ctx.store.claim_due(now) as claim:
            match_id = claim.match_id
            if match_id is None:
                return False
            ctx.store.forget(match_id)
            match = await ctx.store.load(match_id)
            if match is None:
                return True
            decision = await _due(ctx, match, now)
            if decision.events:
                saved = await claim.save(match, decision)
                log.info(
                    "timer fired",
                    match_id=match_id,
                    events=[type(e).__name__ for e in decision.events],
                )
            else:
                await claim.refresh_timers(match)
    except WrongExpectedVersion:
        return True  # a move won the race; the next round sees the new state
    if saved is not None:
        await _announce(ctx, saved)
    return True
