"""What a player is shown of their ticket (its QueueStatus) and telling them when that
changes, and telling a host of their table. No protobuf, SQL or NATS here: the telling
goes through ``Context.pushes`` (the ``Pushes`` port), which ``pushes.py`` puts on the
player's NATS subject.

When a player is told, always after the change committed and by the replica that made
it, at most once:

- their ticket: when it is created; cancelled (by them, for a practice match, or by the
  server when its match could not start because of them, with the message saying why);
  paired (a Draft pairing with its draft); back in the queue when its match could not
  start because of the other player; and while it waits, when what its status shows
  changes (the rating window widens, the queue's length changes). The pairing rounds
  that run anyway notice the last: each round of a queue tells each ticket it saw
  waiting at most once, and only when that changed since this process last told it
  (``Shown``): no timer per ticket, nothing for tickets that no longer wait.
- the host of a table: when it is opened, joined (its match started), reopened or closed
  after a join that failed, closed, expired, or declined by the challenged player; and
  the challenged player of a challenge at each of those same moments (it is made,
  accepted, withdrawn, declined, expires).

A push is a hint: what could not be read for it (the database away just after the
commit) is logged and skipped, never turned into a failure of the change itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import structlog

from services.matchmaker.domain import LADDERS, Mode, StartPlan, Table, Ticket, TicketState
from services.matchmaker.handlers import Context, QueueView, Shown

log = structlog.get_logger()


async def view_of(ctx: Context, ticket: Ticket, now: datetime) -> QueueView:
    return _view(ctx, ticket, now, await ctx.store.queue_length(ticket.mode))


def _view(ctx: Context, ticket: Ticket, now: datetime, queue_length: int) -> QueueView:
    waited = ticket.waited(now)
    rated = ticket.mode in LADDERS
    return QueueView(
        ticket=ticket,
        waited=waited,
        queue_length=queue_length,
        window=ctx.config.policy.window(waited) if rated else 0,
        bot_fill_delay=ctx.config.bot_fill_seconds if ticket.mode is Mode.UNRANKED else None,
        practice_available=ticket.state is TicketState.QUEUED and ticket.mode is not Mode.BATTLE,
    )


async def tell_ticket(ctx: Context, ticket: Ticket) -> None:
    """Tell the ticket's player its status now (it was created, cancelled, paired)."""
    try:
        view = await view_of(ctx, ticket, ctx.clock())
    except Exception as error:  # the change committed; the next push or a session repairs
        log.warning("push.skipped", ticket_id=ticket.ticket_id, error=repr(error))
        return
    ctx.shown.told(view)
    await ctx.pushes.queue_status(view)


async def tell_waiting(ctx: Context, mode: Mode, waiting: Sequence[Ticket]) -> None:
    """After a pairing round of ``mode``: tell each ticket it left waiting whose status
    shows something else than this process last told (a wider window, another queue
    length). ``waiting``: the round's tickets it did not claim."""
    waiting = ctx.shown.still_waiting(mode, waiting)
    try:
        length = await ctx.store.queue_length(mode)
    except Exception as error:
        log.warning("push.skipped", mode=mode.value, error=repr(error))
        return
    now = ctx.clock()
    before = ctx.shown.queues.get(mode, {})
    after: dict[str, tuple[int, int]] = {}
    changed = []
    for ticket in waiting:
        view = _view(ctx, ticket, now, length)
        after[ticket.ticket_id] = Shown.key(view)
        if before.get(ticket.ticket_id) != after[ticket.ticket_id]:
            changed.append(view)
    ctx.shown.queues[mode] = after
    for view in changed:
        await ctx.pushes.queue_status(view)


async def tell_table(ctx: Context, table: Table) -> None:
    """Tell a table's host the table as it is now, and the challenged player when it is
    a challenge to them."""
    await ctx.pushes.table(table)
    if table.challenged_id:
        await ctx.pushes.challenge(table)


async def tell_settled(ctx: Context, plan: StartPlan) -> None:
    """After a start was settled (its match or draft exists, or it failed): the tickets
    it held (paired; cancelled saying why; back in the queue) and its table's host."""
    try:
        tickets = [await ctx.store.ticket(t) for t in plan.ticket_ids]
        table = await ctx.lobby.table(plan.table_id) if plan.table_id else None
    except Exception as error:
        log.warning("push.skipped", start_id=plan.start_id, error=repr(error))
        return
    for ticket in tickets:
        if ticket is not None:
            await tell_ticket(ctx, ticket)
    if table is not None:
        await tell_table(ctx, table)
