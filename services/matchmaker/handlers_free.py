"""Who may start a game now (RULES.md 5: one active match at a time, whichever game;
7 and 8: a pending trade or draft comes first), and what to tell a player the
matchmaker already holds.

Two checks guard every ticket, table and start. ``check_free`` asks the match and
battle services and the obligations before anything is claimed, so a busy player is
refused without a trace. A claim (a ticket, a hosted table, a start) then holds the
player in ``engaged_players``; but a start holds them only until its game exists, so
a whole practice or pairing can begin and end between a ticket's check and its claim.
``still_free`` therefore checks again once the claim holds the player, and a start
does the same (``handlers_starts``) before it creates anything.

A player who left is not seated either (``left_after_waiting``): a queued ticket or an
open table whose player's session ended for good after it was made (the match service
knows, ``Matches.away_since``) fails its start. Found in review: in the
``TRIAD_QUEUE_AWAY_SECONDS`` before the gateway gives such a ticket up (15 s, so that a
reload keeps its place), a pairing seated the absent player, who then lost the match,
its rating and a card by the disconnection forfeit while the opponent waited for them.
The innocent opponent goes back to the queue with the wait they had.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from uuid import uuid4

import structlog

from services.matchmaker.domain import Seat, StartKind, StartPlan, Table
from services.matchmaker.handlers import Context, Player
from services.matchmaker.store import Engaged, Hold, Request
from services.platform.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    Unavailable,
    short_id,
)

log = structlog.get_logger()


async def obstacle(
    ctx: Context, seat: Seat, match_id: str = "", *, obligations: bool = True
) -> str | None:
    """Why a player may not start a match or a battle now (RULES.md 5, 7, 8), or None.
    **Decision:** a Skirmish battle in progress counts as an active match (RULES.md 5:
    one at a time, whichever game). The match or battle being started (``match_id``)
    does not count: a retried start finds it active."""
    active, battle, blocking = await asyncio.gather(
        ctx.ports.matches.active_match(seat.player_id),
        active_battle(ctx, seat.player_id),
        ctx.ports.obligations.blocking(seat.player_id, match_id) if obligations else _none(),
    )
    if active is not None and active != match_id:
        return f"{seat.name} is playing match {short_id(active)}; finish it first"
    if battle is not None and battle != match_id:
        return f"{seat.name} is playing battle {short_id(battle)}; finish it first"
    if blocking:
        return f"{seat.name} cannot start another match yet: {blocking}"
    return None


async def your_obstacle(
    ctx: Context, seat: Seat, match_id: str = "", *, obligations: bool = True
) -> str | None:
    """``obstacle`` as the player themself is told it ("you are playing match ...")."""
    problem = await obstacle(ctx, replace(seat, name="you"), match_id, obligations=obligations)
    return None if problem is None else problem.replace("you is", "you are")


async def left_after_waiting(ctx: Context, plan: StartPlan) -> dict[str, str]:
    """The plan's players whose queued ticket (a pairing) or open table (its host) was
    made before their session ended for good, and who have not come back: id -> what
    they are told. A guest joining a table, a practice, a switch and a draft's match
    are asked for by a player there at that moment."""
    waiting: dict[str, datetime] = {}
    if plan.kind is StartKind.PAIRING:
        tickets = await asyncio.gather(*(ctx.store.ticket(s.ticket_id) for s in plan.humans))
        waiting = {t.player_id: t.enqueued_at for t in tickets if t is not None}
    elif plan.kind is StartKind.TABLE and (table := await ctx.lobby.table(plan.table_id)):
        waiting = {table.host_id: table.created_at}
    gone = await asyncio.gather(*(ctx.ports.matches.away_since(p) for p in waiting))
    return {
        player: "you left before it could start (your session ended after you were waiting)"
        for (player, since), left in zip(waiting.items(), gone, strict=True)
        if left is not None and left > since
    }


async def host_left(ctx: Context, table: Table) -> bool:
    """Whether the host's session ended for good after they opened ``table`` (Find Game
    passes such a table over: joining it would only be refused, and close it)."""
    away = await ctx.ports.matches.away_since(table.host_id)
    return away is not None and away > table.created_at


async def _none() -> None:
    return None


async def active_battle(ctx: Context, player_id: str) -> str | None:
    """The player's battle in progress; None also while no battle service is set or
    while it does not answer: Skirmish being away must not close the Triad queues and
    tables (a battle start itself still checks, ``handlers_starts._battle``)."""
    battles = ctx.ports.battles
    if battles is None:
        return None
    try:
        return await battles.active_battle(player_id)
    except Unavailable:
        log.warning("battle service unavailable: busy check skipped", player_id=player_id)
        return None


async def check_free(ctx: Context, player: Player) -> None:
    """Refuse (FAILED_PRECONDITION) a player with an active match or an obligation."""
    problem = await your_obstacle(ctx, Seat(player.player_id, player.name))
    if problem is not None:
        raise FailedPrecondition(problem)


async def check_unheld(ctx: Context, player: Player, already: Hold) -> None:
    """Refuse a player the matchmaker holds already (a ticket, a table, a start) before
    their deck is checked: the hold is what stands in the way, ALREADY_EXISTS for a
    second ``already`` (found from outside: a second Enqueue with a deck broken since
    was told of the deck, not of the ticket queued). The claim checks it again."""
    held = await ctx.store.engagement(player.player_id)
    if held is not None:
        raise engaged_error(Engaged(held), already)


async def checked_unless_answered(
    ctx: Context, request: Request, checks: Awaitable[object]
) -> str | None:
    """Await ``checks``; if they refuse, the first answer to ``request`` when it has one
    by now: a try of the same request id still running when this one began may be what
    holds the player (its ticket, its table). Found from outside: a Draft Enqueue sent
    three times at once was answered once and refused twice, "you already have queued
    ticket", its own. None: the checks passed."""
    try:
        await checks
    except DomainError:
        if (seen := await ctx.store.answered(request)) is not None:
            return seen
        raise
    return None


async def still_free(
    ctx: Context,
    player: Player,
    request: Request,
    withdraw: Callable[[str], Awaitable[object]],
) -> None:
    """``check_free`` again, now that ``request``'s claim holds the player: a game begun
    since the first check (found from outside: a practice battle asked in the same
    instant as a Battle ticket left the player both) withdraws the claim, by
    ``withdraw`` under a request id of its own, frees ``request``'s id (the call
    failed) and refuses as ``check_free`` does. A claim that can no longer be withdrawn
    has moved on (a pairing took the ticket, a guest sat down at the table), and the
    game found may be that very start's (a Draft paired at once): the claim stands, and
    its start checks the player itself (``handlers_starts``)."""
    problem = await your_obstacle(ctx, Seat(player.player_id, player.name))
    if problem is None:
        return
    try:
        await withdraw(uuid4().hex)
    except DomainError:
        return
    await ctx.store.forget(request)
    raise FailedPrecondition(problem)


def engaged_error(error: Engaged, already: Hold | None = None) -> DomainError:
    """What to tell a player the matchmaker already holds; ``already`` is the hold for
    which the answer is ALREADY_EXISTS (a second ticket, a second table)."""
    held = error.held
    if held is None:
        return FailedPrecondition("the matchmaker is busy with another request of yours")
    # The ticket or table in full: it is the caller's own, and CancelTicket / CloseTable
    # need its whole id (a short one in the message left the player nothing to send).
    ref = held.ref_id
    messages = {
        # Found from outside: "or switch it to practice" was said of a Battle ticket too,
        # which has no practice match to switch to.
        Hold.TICKET: f"you already have queued ticket {ref}: cancel it first (a Triad "
        "queue's ticket may switch to practice instead)",
        Hold.TABLE: f"you already host open table {ref}: close it first",
        Hold.JOINING: f"you are joining table {ref} right now",
        Hold.PRACTICE: "your practice game is starting right now",  # a match or a battle
    }
    message = messages[held.kind]
    return AlreadyExists(message) if held.kind is already else FailedPrecondition(message)
