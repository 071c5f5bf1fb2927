"""The matchmaker's player-facing use cases for queues and practice: one short function
each. No protobuf, SQL or NATS here (STYLE 7); the lobby is in ``handlers_lobby.py``,
pairing in ``handlers_pairing.py``, starting matches in ``handlers_starts.py``, what a
ticket's status shows and when its player is told in ``handlers_status.py``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import timedelta
from uuid import uuid4

from services.matchmaker.domain import (
    COMPATIBLE_RULE_SETS,
    DECKLESS,
    LADDERS,
    MODE_RULES,
    QUEUES,
    STANDARD,
    UNRATED,
    BattleLevel,
    BotLevel,
    CancelReason,
    DeckChoice,
    Mode,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    Table,
    Ticket,
    TicketState,
    dealt_deck_problem,
    practice_rules,
    realm_deck_problem,
)
from services.matchmaker.handlers import Context, Player, QueueView, bot_seat, match_id_for
from services.matchmaker.handlers_free import (
    check_free,
    check_unheld,
    checked_unless_answered,
    engaged_error,
    still_free,
)
from services.matchmaker.handlers_starts import open_start, resume, run_start
from services.matchmaker.handlers_status import tell_ticket, view_of
from services.matchmaker.store import Engaged, Hold, Request, RequestSeen, StartRecord, StartState
from services.platform.errors import (
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    require_found,
    short_id,
)


@dataclass(frozen=True, slots=True)
class PlayerQueues:
    """What GetQueueStatus shows a player: their latest ticket with its live status
    (unless it ended long ago), and the open table they host."""

    view: QueueView | None
    hosted: Table | None


@dataclass(frozen=True, slots=True)
class Switched:
    """A ticket given up for a practice match: the ticket as it is now, and the match."""

    ticket: Ticket
    match_id: str


async def enqueue(
    ctx: Context, request_id: str, player: Player, mode: Mode, deck: DeckChoice | None
) -> Ticket:
    if mode not in QUEUES:
        raise InvalidArgument("mode must be a queue: Unranked, Ranked, Draft, Roulette or Battle")
    if mode is Mode.DRAFT and deck is not None:
        raise InvalidArgument("Draft decks are drafted after pairing: send no deck")
    if mode is Mode.BATTLE and deck is not None:
        raise InvalidArgument("a battle is played with characters, not a deck: send no deck")
    if mode not in DECKLESS and deck is None:
        raise InvalidArgument("a deck is required: a saved deck id, or Random")
    if mode is Mode.BATTLE and ctx.ports.battles is None:
        raise FailedPrecondition(
            "the Battle queue is closed: the battle service is not configured (TRIAD_BATTLE_ADDR)"
        )
    if mode is Mode.DRAFT and ctx.ports.drafts is None:
        raise FailedPrecondition(
            "the Draft queue is closed: drafts need the collection service, which is not "
            "configured (TRIAD_COLLECTION_ADDR)"
        )
    request = Request.of(player.player_id, request_id, "enqueue", mode, deck)
    if (seen := await ctx.store.answered(request)) is not None:
        return await _ticket(ctx, seen)
    checks = asyncio.gather(check_free(ctx, player), check_unheld(ctx, player, Hold.TICKET))
    if (seen := await checked_unless_answered(ctx, request, checks)) is not None:
        return await _ticket(ctx, seen)
    if deck is not None:  # refused now, not at pairing (someone else's, broken, not of 5)
        await ctx.ports.decks.check(player.player_id, deck, STANDARD.hand_size)
    ladder = LADDERS.get(mode)
    rating = UNRATED
    if ladder is not None:
        rating = (await ctx.ports.ratings.ratings(ladder, [player.player_id]))[player.player_id]
    ticket = Ticket(
        ticket_id=str(uuid4()),
        player_id=player.player_id,
        player_name=player.name,
        mode=mode,
        rating=rating,
        enqueued_at=ctx.clock(),
        deck=deck,
    )
    try:
        await ctx.store.enqueue(ticket, request)
    except RequestSeen:
        return await _ticket(ctx, await ctx.store.answered(request) or ticket.ticket_id)
    except Engaged as error:
        raise engaged_error(error, already=Hold.TICKET) from None
    ctx.metrics.tickets.labels(mode.value).inc()
    await still_free(
        ctx,
        player,
        request,
        lambda withdrawal: cancel(ctx, withdrawal, player.player_id, ticket.ticket_id),
    )
    # A round is due within a pair interval; an idle pairing loop sleeps longer.
    ctx.wakes.pairing.due_at(ctx.clock() + timedelta(seconds=ctx.config.pair_interval_seconds))
    await tell_ticket(ctx, ticket)
    return ticket


async def _ticket(ctx: Context, ticket_id: str) -> Ticket:
    return require_found(
        await ctx.store.ticket(ticket_id), f"you have no ticket {short_id(ticket_id)}"
    )


async def cancel(ctx: Context, request_id: str, player_id: str, ticket_id: str) -> Ticket:
    request = Request.of(player_id, request_id, "cancel", ticket_id)
    if (seen := await ctx.store.answered(request)) is not None:
        return await _ticket(ctx, seen)
    ticket, cancelled = await ctx.store.cancel(ticket_id, player_id, request, ctx.clock())
    if ticket is None or ticket.player_id != player_id:
        raise NotFound(f"you have no ticket {short_id(ticket_id)}")
    if cancelled:
        ctx.metrics.cancel(ticket.mode, CancelReason.PLAYER)
        await tell_ticket(ctx, ticket)
        return ticket
    if ticket.state is TicketState.CANCELLED:
        return ticket  # cancelling a cancelled ticket returns it unchanged
    if ticket.state is TicketState.PAIRED:
        target = (
            f"draft {short_id(ticket.draft_id)}"
            if ticket.draft_id
            else f"match {short_id(ticket.match_id)}"
        )
        raise FailedPrecondition(f"ticket {short_id(ticket_id)} was already paired: see {target}")
    start = await ctx.store.start(ticket.start_id) if ticket.start_id else None
    if start is not None and start.plan.kind is StartKind.SWITCH:
        raise FailedPrecondition(
            f"ticket {short_id(ticket_id)} is being switched to a practice match, as you asked; "
            "it can no longer be cancelled"
        )
    raise FailedPrecondition(
        f"ticket {short_id(ticket_id)} was just paired and its match is starting; it can no longer "
        "be cancelled"
    )


async def queue_status(ctx: Context, player_id: str) -> PlayerQueues:
    """The player's latest ticket with its live status (unless it ended long ago), and
    the open table they host."""
    ticket = await ctx.store.latest_ticket(player_id)
    hosted = await ctx.lobby.hosted_table(player_id)
    now = ctx.clock()
    if ticket is None or (
        ticket.ended_at is not None
        and (now - ticket.ended_at).total_seconds() > ctx.config.ended_visible_seconds
    ):
        return PlayerQueues(None, hosted)
    return PlayerQueues(await view_of(ctx, ticket, now), hosted)


async def ticket_view(ctx: Context, ticket_id: str) -> QueueView:
    """A ticket's live status now (a watched ticket, read again after a change)."""
    return await view_of(ctx, await _ticket(ctx, ticket_id), ctx.clock())


def next_change(ctx: Context, view: QueueView) -> float | None:
    """Seconds until a waiting ticket's status changes by itself (its window widens, or
    its bot fill is due); None if it never will."""
    if not view.ticket.waiting:
        return None
    moments = []
    if view.window:
        widening = ctx.config.policy.next_widening(view.waited)
        if widening is not None:
            moments.append(widening - view.waited)
    if view.bot_fill_delay is not None and view.waited < view.bot_fill_delay:
        moments.append(view.bot_fill_delay - view.waited)
    return min(moments, default=None)


async def start_practice(
    ctx: Context,
    request_id: str,
    player: Player,
    origin: Mode,
    level: BotLevel | None,
    deck: DeckChoice | None,
    custom: RuleSet | None,
) -> str:
    """A practice match against a bot with the rules of ``origin``; its match id."""
    rules = practice_rules(origin, custom, ctx.rng.randrange(len(COMPATIBLE_RULE_SETS)))
    if deck is None and not rules.house_hands:  # house hands are dealt (RULES.md 11)
        raise InvalidArgument("a deck is required: a saved deck id, or Random")
    if (problem := realm_deck_problem(rules, deck is not None and deck.random)) is not None:
        raise InvalidArgument(problem)
    if (problem := dealt_deck_problem(rules, deck is not None)) is not None:
        raise InvalidArgument(problem)
    request = Request.of(player.player_id, request_id, "practice", origin, level, deck, custom)
    if (seen := await ctx.store.answered(request)) is not None:
        return (await resume(ctx, seen)).plan.match_id
    await check_free(ctx, player)
    if deck is not None and not rules.house_hands:  # as a queue: someone else's is NOT_FOUND
        await ctx.ports.decks.check(player.player_id, deck, rules.hand_size)
    start = _practice_plan(ctx, StartKind.PRACTICE, player, origin, rules, level, deck)
    await open_start(ctx, start, request)
    return await run_start(ctx, start)


async def start_practice_battle(
    ctx: Context,
    request_id: str,
    player: Player,
    level: BattleLevel,
    characters: tuple[str, ...],
) -> str:
    """A practice Skirmish battle against the CPU (BATTLE.md); its battle id. Started as
    every start is, under the matchmaker's hold on the player, so that no Triad match,
    ticket or table begins beside it, however close the two requests come (RULES.md 5:
    one game at a time, whichever game)."""
    request = Request.of(player.player_id, request_id, "practice-battle", level, characters)
    if (seen := await ctx.store.answered(request)) is not None:
        return (await resume(ctx, seen)).plan.match_id
    start_id = str(uuid4())
    plan = StartPlan(
        start_id=start_id,
        kind=StartKind.PRACTICE,
        mode=Mode.BATTLE,
        rules=MODE_RULES[Mode.BATTLE],
        seats=(
            Seat(player.player_id, player.name, characters=characters),
            Seat("", "CPU", battle_level=level),
        ),
        match_id=match_id_for(start_id),
        origin_mode=Mode.BATTLE,
        origin_id=start_id,
    )
    start = StartRecord(plan, StartState.PENDING, uuid4())
    try:
        await check_free(ctx, player)
        await open_start(ctx, start, request)
    except (FailedPrecondition, Conflict):
        # A try of this same request that began meanwhile holds the player (or made
        # the battle already): its battle is the answer.
        if (seen := await ctx.store.answered(request)) is None:
            raise
        return (await resume(ctx, seen)).plan.match_id
    try:
        return await run_start(ctx, start)
    except InvalidArgument:
        # The battle service refused the team (characters outside the roster, not three
        # different ones): the request is malformed, and no battle was made. Its id stays
        # free, as gateway.proto promises of a call that failed, and the same request
        # asked again is refused again as INVALID_ARGUMENT, where the failed start would
        # have answered it FAILED_PRECONDITION (found from outside).
        await ctx.store.forget(request)
        raise


async def switch_to_practice(
    ctx: Context,
    request_id: str,
    player: Player,
    ticket_id: str,
    level: BotLevel | None,
    deck: DeckChoice | None,
) -> Switched:
    """Give up a queued ticket for a practice match, atomically: the ticket is cancelled
    when the match exists, and stays queued if it cannot start."""
    ticket = await ctx.store.ticket(ticket_id)
    if ticket is None or ticket.player_id != player.player_id:
        raise NotFound(f"you have no ticket {short_id(ticket_id)}")
    request = Request.of(player.player_id, request_id, "switch", ticket_id, level, deck)
    if (seen := await ctx.store.answered(request)) is not None:
        match_id = (await resume(ctx, seen)).plan.match_id
        return Switched(await _ticket(ctx, ticket_id), match_id)
    if ticket.state is not TicketState.QUEUED:
        raise FailedPrecondition(
            f"ticket {short_id(ticket_id)} is no longer queued ({ticket.state})"
        )
    if ticket.mode is Mode.BATTLE:
        raise FailedPrecondition(
            "the Battle queue has no practice match to switch to: cancel the ticket, "
            "then start a practice battle against the CPU"
        )
    deck = deck or ticket.deck
    if deck is None:
        raise FailedPrecondition("practising from the Draft queue needs a deck of yours")
    rules = practice_rules(ticket.mode, None, ctx.rng.randrange(len(COMPATIBLE_RULE_SETS)))
    await ctx.ports.decks.check(player.player_id, deck, rules.hand_size)  # another's: NOT_FOUND
    start = _practice_plan(ctx, StartKind.SWITCH, player, ticket.mode, rules, level, deck)
    start = StartRecord(_with_ticket(start.plan, ticket_id), start.state, start.token)
    if not await open_start(ctx, start, request):
        # Something took the ticket since it was read: say what, as it now stands.
        now = await ctx.store.ticket(ticket_id)
        state = f"({now.state})" if now is not None else "(gone)"
        raise FailedPrecondition(f"ticket {short_id(ticket_id)} is no longer queued {state}")
    match_id = await run_start(ctx, start)
    return Switched(await _ticket(ctx, ticket_id), match_id)


def _practice_plan(
    ctx: Context,
    kind: StartKind,
    player: Player,
    origin: Mode,
    rules: RuleSet,
    level: BotLevel | None,
    deck: DeckChoice | None,
) -> StartRecord:
    """``deck``: None only for house hands (RULES.md 11), which the start deals."""
    start_id = str(uuid4())
    plan = StartPlan(
        start_id=start_id,
        kind=kind,
        mode=Mode.PRACTICE,
        rules=rules,
        seats=(
            Seat(player.player_id, player.name, deck=deck),
            bot_seat(ctx, start_id, level or ctx.config.bot_level),
        ),
        match_id=match_id_for(start_id),
        origin_mode=origin,
        origin_id=start_id,
    )
    return StartRecord(plan, StartState.PENDING, uuid4())


def _with_ticket(plan: StartPlan, ticket_id: str) -> StartPlan:
    human, bot = plan.seats
    return replace(plan, seats=(replace(human, ticket_id=ticket_id), bot))
