"""Pairing rounds: each queue's waiting tickets paired by ``domain.pair_tickets``,
Unranked leftovers seated against populated bots, every pair claimed with its start
in one transaction, then started. Any replica may run rounds; a per-queue lock lets
one replica pair a queue at a time (see ``store.tickets.TicketRepository.queue_round``).
After a round commits, the tickets it left waiting are told their status if what it
shows changed (``handlers_status.tell_waiting``): the rounds are what notices a window
widening or a queue's length changing, so no ticket needs a timer of its own."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from uuid import uuid4

from services.matchmaker.domain import (
    COMPATIBLE_RULE_SETS,
    LADDERS,
    MODE_RULES,
    QUEUES,
    Mode,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    Ticket,
    due_for_bot,
    pair_tickets,
    roulette_rules,
)
from services.matchmaker.handlers import Context, bot_seat, draft_id_for, match_id_for
from services.matchmaker.handlers_starts import run_started
from services.matchmaker.handlers_status import tell_waiting
from services.matchmaker.store import StartRecord, StartState


async def pair_queue(ctx: Context, mode: Mode) -> list[StartRecord]:
    """One round of one queue; the claimed starts, for the caller to run."""
    now = ctx.clock()
    async with ctx.store.queue_round(mode, ctx.config.round_limit) as queue:
        if queue is None:  # another replica pairs it now, and reports what it finds
            ctx.metrics.pairable.labels(mode.value).set(0)
            return []
        tickets = {t.ticket_id: t for t in queue.tickets}
        waiting = [t.as_waiting() for t in queue.tickets]
        pairs = pair_tickets(waiting, now.timestamp(), ctx.config.policy)
        plans = [
            _plan(ctx, mode, (tickets[p.first.ticket_id], tickets[p.second.ticket_id]), now)
            for p in pairs
        ]
        if mode is Mode.UNRANKED:
            paired = {t for p in pairs for t in (p.first.ticket_id, p.second.ticket_id)}
            leftovers = [w for w in waiting if w.ticket_id not in paired]
            for due in due_for_bot(leftovers, now.timestamp(), ctx.config.bot_fill_seconds):
                plans.append(_plan(ctx, mode, (tickets[due.ticket_id],), now))
        # Set before the claims: a round that fails from here on leaves them counted.
        ctx.metrics.pairable.labels(mode.value).set(sum(len(p.ticket_ids) for p in plans))
        token = uuid4()
        for plan in plans:
            await queue.claim(plan, ctx.lease_until(now), token)
        starts = [StartRecord(plan, StartState.PENDING, token) for plan in plans]
        claimed = {t for s in starts for t in s.plan.ticket_ids}
        left = [t for t in queue.tickets if t.ticket_id not in claimed]
    if plans:
        ctx.wakes.starts.due_at(ctx.lease_until(now))
    ctx.metrics.queue_length.labels(mode.value).set(len(left))
    await tell_waiting(ctx, mode, left)
    return starts


def _plan(ctx: Context, mode: Mode, tickets: tuple[Ticket, ...], now: datetime) -> StartPlan:
    """Two tickets against each other, or one against a populated bot; every draw
    (Roulette rules, the bot's name) made here and kept in the plan."""
    start_id = str(uuid4())
    seats = [
        Seat(
            t.player_id,
            t.player_name,
            deck=t.deck,
            ticket_id=t.ticket_id,
            rating=t.rating,
            waited=t.waited(now),
        )
        for t in tickets
    ]
    if len(seats) == 1:
        seats.append(bot_seat(ctx, start_id, ctx.config.bot_level))
    drafting = mode is Mode.DRAFT
    return StartPlan(
        start_id=start_id,
        kind=StartKind.PAIRING,
        mode=mode,
        rules=_rules(ctx, mode),
        seats=(seats[0], seats[1]),
        match_id="" if drafting else match_id_for(start_id),
        draft_id=draft_id_for(start_id) if drafting else "",
        ladder=LADDERS.get(mode, "") if len(tickets) == 2 else "",
        origin_id=start_id,
    )


def _rules(ctx: Context, mode: Mode) -> RuleSet:
    if mode is Mode.ROULETTE:
        return roulette_rules(ctx.rng.randrange(len(COMPATIBLE_RULE_SETS)))
    return MODE_RULES[mode]


async def pair_all(ctx: Context, waiting: Mapping[Mode, int] | None = None) -> bool:
    """A round of every queue where tickets wait (``waiting``: the queues' lengths, read
    here when not given), then the new starts; True if anything was paired."""
    if waiting is None:
        waiting = await ctx.store.queue_lengths()
    starts = []
    for mode in QUEUES:
        if waiting.get(mode):
            starts += await pair_queue(ctx, mode)
        else:  # what its last round left waiting has gone (paired, cancelled)
            ctx.shown.queues.pop(mode, None)
            ctx.metrics.pairable.labels(mode.value).set(0)
    if starts:
        await run_started(ctx, starts)
    return bool(starts)


class PairingLoop:
    """This replica's pairing loop (``services.platform.background.every``): ``step``
    pairs the queues where tickets wait; ``next_due`` says when the next round is due, a
    pair interval later while tickets wait (their windows widen, bots sit down), else
    None once the queues are seen empty: the loop then looks at them once per poll
    ceiling, woken sooner by an enqueue here (``Context.wakes.pairing``). A ticket
    enqueued at another replica is seen at the next look, and from then on paired
    every interval."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._waiting = False

    async def step(self) -> bool:
        waiting = await self._ctx.store.queue_lengths()
        self._waiting = any(waiting.values())
        return await pair_all(self._ctx, waiting)

    async def next_due(self) -> datetime | None:
        if self._waiting:
            return self._ctx.clock() + timedelta(seconds=self._ctx.config.pair_interval_seconds)
        # Idle: one look at the queues (a ticket enqueued at another replica, or put
        # back by a start that failed, wakes nobody here).
        waiting = await self._ctx.store.queue_lengths()
        return self._ctx.clock() if any(waiting.values()) else None
