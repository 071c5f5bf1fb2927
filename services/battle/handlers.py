"""The battle service's use cases: load -> decide -> save -> announce. No protobuf, SQL
or NATS: the store, the clock, the random source and the announcer come in a
:class:`Context`.

Every command runs through :func:`_run`: it answers a retried request from its first
result, decides once, lets the CPU seats move (:func:`cpu_moves`, each plan drawn here
and recorded in its event), saves at the expected version (a conflict reloads and
decides again) and announces the state after the commit (a plan set, to its own seat
alone). New battles are made in ``handlers_create.py``, timers and presence are in
``handlers_timers.py``. The reads: a seat's view, a player's battle in progress and, for
operators, a page of a battle's stored events (:func:`battle_events`).

New battles use the current content (``ctx.rosters.current``) and record its version;
every command, timer, CPU move and view of a battle uses the content it recorded
(:func:`roster_of`), so a battle in progress plays on unchanged when a new roster is
deployed (BATTLE.md 1 and 6). A battle whose content is not loaded is refused
(``ContentNotDeployed``, FAILED_PRECONDITION naming the version) and logged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from random import Random

import structlog

from services.battle import domain
from services.battle.bots.levels import Level, bot, formation
from services.battle.domain import BattleState, Decision, Phase, Timing
from services.battle.domain.errors import ContentNotDeployed, no_battle
from services.battle.domain.events import NO_WINNER, Created, Finished, SeatTakenOver
from services.battle.rules import (
    ContentNotLoaded,
    Plan,
    Roster,
    Rosters,
    view_for,
)
from services.battle.rules.state import Square
from services.battle.store.port import BattleRepository, Write
from services.platform.errors import (
    Conflict,
    DomainError,
    FailedPrecondition,
    short_id,
)
from services.platform.eventpages import EventsPage, events_page
from services.platform.eventstore import WrongExpectedVersion
from services.platform.keyedlocks import KeyedLocks
from services.platform.requests import Request, RequestSeen

log = structlog.get_logger()

RETRIES = 5

Announce = Callable[[BattleState, tuple[int, ...]], Awaitable[None]]
"""Push the state's view to the human players of these seats."""
Observe = Callable[[Decision], None]


async def _think(call: Callable[[], Plan]) -> Plan:
    return await asyncio.to_thread(call)


async def _nothing(state: BattleState, seats: tuple[int, ...]) -> None:
    return None


@dataclass
class Context:
    store: BattleRepository
    rosters: Rosters
    """``current`` for new battles; each battle in progress plays with its own version."""
    clock: Callable[[], datetime]
    rng: Random
    timing: Timing = field(default_factory=Timing)
    disconnect: timedelta = timedelta(seconds=30)
    takeover_level: str = Level.GREEDY.value
    announce: Announce = _nothing
    observe: Observe = lambda decision: None
    wake: Callable[[datetime], None] = lambda when: None
    """Tells the timer loop of a timer due sooner than it sleeps (``DueSoon.due_at``)."""
    think: Callable[[Callable[[], Plan]], Awaitable[Plan]] = _think
    locks: KeyedLocks = field(default_factory=KeyedLocks)
    """Commands on one battle take turns in this process (both players commit at once)."""


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat asked for: a human (``player_id``) or the CPU (``level``); no characters:
    the server draws three."""

    player_id: str
    name: str
    level: str
    characters: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Seen:
    """A battle as one seat sees it (the edge makes it a view)."""

    state: BattleState
    seat: int


def roster_of(ctx: Context, state: BattleState) -> Roster:
    """The content the battle started under (BATTLE.md 1: "a battle records the content
    version it used"): a battle in progress plays on with it after a new roster is
    deployed. One whose content is not loaded is refused, never played with another."""
    try:
        return ctx.rosters.for_version(state.content_version)
    except ContentNotLoaded as exc:
        log.error(
            "battle.content_not_deployed",
            battle_id=state.battle_id,
            content_version=state.content_version,
            loaded=sorted(ctx.rosters.by_version),
        )
        raise ContentNotDeployed(
            f"battle {short_id(state.battle_id)} was started under content "
            f"{state.content_version!r}, which this server does not have: it cannot go on "
            "until that content is deployed again"
        ) from exc


# ---------------------------------------------------------------------------- commands

Decide = Callable[[BattleState, int, Roster], Decision]
"""A command on the battle, from the seat it is for, with the battle's own content."""


async def _run(ctx: Context, battle_id: str, player: str, request: Request, decide: Decide) -> Seen:
    """Decide, save. Optimistic, as the match service's moves: commands on one battle
    take turns in this process (``ctx.locks``) and decide on the state it keeps (the
    save's expected version checks it was current, another replica may have moved the
    battle on: then the stream is read after it), so a command is one round trip. Only
    a refusal or a no-op is checked against the stream. The request key is looked up
    only when it may matter: a retry of a command that was carried out finds the battle
    moved on (the decision refuses it, or the save finds the key recorded), and then
    answers from the battle as it is (``RequestReused`` if the id came with other
    content)."""
    async with ctx.locks.hold(battle_id):
        return await _decide_and_save(ctx, battle_id, player, request, decide)


async def _decide_and_save(
    ctx: Context, battle_id: str, player: str, request: Request, decide: Decide
) -> Seen:
    read = ctx.store.current
    for _ in range(RETRIES):
        state = await read(battle_id)
        read = ctx.store.load
        seat = None if state is None else state.seat_of(player)
        if state is None or seat is None:
            raise no_battle(battle_id)
        roster = roster_of(ctx, state)
        try:
            decision = await cpu_moves(ctx, roster, decide(state, seat, roster))
        except DomainError:
            if await ctx.store.answered(request) is not None:
                return await view(ctx, battle_id, player)
            if await _moved_on(ctx, battle_id, state):
                continue
            raise
        if not decision.events and await _moved_on(ctx, battle_id, state):
            continue
        try:
            await ctx.store.save(Write(battle_id, decision, request, _settled(decision)))
        except WrongExpectedVersion:
            continue
        except RequestSeen:
            await ctx.store.answered(request)  # RequestReused when the content differs
            return await view(ctx, battle_id, player)
        await after(ctx, decision)
        return Seen(decision.state, seat)
    raise Conflict("the battle changed while your command ran: try again")


async def _moved_on(ctx: Context, battle_id: str, state: BattleState) -> bool:
    """Whether the stream is ahead of the state a decision was made on."""
    fresh = await ctx.store.load(battle_id)
    return fresh is None or fresh.version != state.version


def _settled(decision: Decision) -> tuple[int, ...]:
    return (0, 1) if decision.state.over else ()


async def set_formation(
    ctx: Context, request: Request, battle_id: str, player: str, squares: tuple[Square, ...]
) -> Seen:
    return await _run(
        ctx,
        battle_id,
        player,
        request,
        lambda s, seat, roster: domain.set_formation(
            s, seat, squares, roster, ctx.clock(), ctx.timing
        ),
    )


def _playing(state: BattleState, seat: int) -> None:
    """A seat the CPU took over is the CPU's to play to the end (BATTLE.md 5: "reconnecting
    later lets them watch the rest, not play"): its player may not set, commit nor give
    up (a give-up would end the battle and record give_up for a disconnect)."""
    if state.cpu[seat] and not state.over:
        raise FailedPrecondition("the CPU plays your seat now (you were away): you may watch")


async def set_plan(
    ctx: Context, request: Request, battle_id: str, player: str, turn: int, plan: Plan
) -> Seen:
    """Set the player's plan without committing it (it replaces the one set before): it
    acts at the selection deadline unless they commit. Only their own seat is told."""

    def decide(state: BattleState, seat: int, roster: Roster) -> Decision:
        _playing(state, seat)
        return domain.set_plan(state, seat, turn, plan, roster, ctx.clock())

    return await _run(ctx, battle_id, player, request, decide)


async def commit_plan(
    ctx: Context, request: Request, battle_id: str, player: str, turn: int, plan: Plan
) -> Seen:
    """Commit the player's plan; the CPU seats commit theirs when the turn opens, so the
    second human commit (or the first, against the CPU) resolves the turn."""

    def decide(state: BattleState, seat: int, roster: Roster) -> Decision:
        _playing(state, seat)
        return domain.commit_plan(state, seat, turn, plan, roster, ctx.clock(), ctx.timing)

    return await _run(ctx, battle_id, player, request, decide)


async def give_up(ctx: Context, request: Request, battle_id: str, player: str) -> Seen:
    def decide(state: BattleState, seat: int, roster: Roster) -> Decision:
        _playing(state, seat)
        return domain.give_up(state, seat, ctx.clock())

    return await _run(ctx, battle_id, player, request, decide)


async def view(ctx: Context, battle_id: str, player: str) -> Seen:
    state = await ctx.store.load(battle_id)
    seat = None if state is None else state.seat_of(player)
    if state is None or seat is None:
        raise no_battle(battle_id)
    roster_of(ctx, state)  # its view names its own content's cards
    return Seen(state, seat)


@dataclass(frozen=True, slots=True)
class Playing:
    """A player's battle in progress, and whether the CPU has taken their seat over."""

    battle_id: str
    taken_over: bool


async def active_battle(ctx: Context, player: str) -> Playing | None:
    """The player's battle in progress. **Decision:** once the CPU has taken their seat
    over (BATTLE.md 5) they have lost and may only watch the rest: ``taken_over``, and
    they are free to start another match or battle (found from outside: they were
    refused every queue, told to finish a battle they could no longer play, for up to
    ten turns)."""
    active = await ctx.store.active_battle(player)
    if active is None:
        return None
    state = await ctx.store.load(active.battle_id)
    taken = state is not None and active.seat in state.taken_over
    return Playing(active.battle_id, taken)


async def battle_events(ctx: Context, battle_id: str, from_version: int, limit: int) -> EventsPage:
    """Up to ``limit`` stored events of a battle from ``from_version`` (1 = the start),
    for operators; NotFound for a battle with none."""
    return await events_page(ctx.store.records, battle_id, from_version, limit, "battle")


# ---------------------------------------------------------------------------- the CPU


async def cpu_moves(ctx: Context, roster: Roster, decision: Decision) -> Decision:
    """The CPU seats' formation and plans wherever the state waits for them: each plan
    chosen from the seat's own view with the battle's content (``roster``) and recorded
    in its event."""
    while not decision.state.over:
        state = decision.state
        waiting = [s for s in domain.SEATS if state.cpu[s]]
        if state.phase is Phase.FORMATION:
            todo = [s for s in waiting if state.formations[s] is None]
            if not todo:
                return decision
            seat = todo[0]
            squares = formation(roster, state.seats[seat].characters)
            step = domain.set_formation(
                state, seat, squares, roster, ctx.clock(), ctx.timing, by_cpu=True
            )
        else:
            todo = [s for s in waiting if state.plans[s] is None]
            if not todo or state.battle is None:
                return decision
            seat = todo[0]
            plan = await ctx.think(
                partial(
                    bot(state.cpu[seat]).choose,
                    roster,
                    view_for(state.battle, seat),
                    Random(ctx.rng.getrandbits(64)),
                )
            )
            step = domain.commit_plan(
                state,
                seat,
                state.battle.turn,
                plan,
                roster,
                ctx.clock(),
                ctx.timing,
                by_cpu=True,
            )
        decision = domain.decide.also(decision, step)
    return decision


async def after(ctx: Context, decision: Decision) -> None:
    ctx.observe(decision)
    _log_lifecycle(decision)
    if decision.state.deadline is not None:
        ctx.wake(decision.state.deadline)
    if decision.events:
        await ctx.announce(decision.state, decision.seen_by)


def _log_lifecycle(decision: Decision) -> None:
    """One line when a battle is created, a seat is taken over and a battle ends, with
    the players' ids: what an operator greps for when a player asks about a battle."""
    state = decision.state
    players = [seat.player_id or f"cpu:{seat.level}" for seat in state.seats]
    for event in decision.events:
        if isinstance(event, Created):
            log.info("battle.created", battle_id=state.battle_id, players=players)
        elif isinstance(event, SeatTakenOver):
            log.info(
                "battle.taken_over",
                battle_id=state.battle_id,
                player_id=state.seats[event.seat].player_id,
                level=event.level,
            )
        elif isinstance(event, Finished):
            turn = 0 if state.battle is None else state.battle.turn
            log.info(
                "battle.finished",
                battle_id=state.battle_id,
                reason=event.reason.value,
                winner_id=players[event.winner] if event.winner != NO_WINNER else "",
                players=players,
                turn=turn,
            )


async def announce_in_progress(ctx: Context, stop: asyncio.Event) -> int:
    """Announce the current version of every battle in progress to its players (once
    NATS is there: a push lost to a crash between a commit and its publication is sent
    now); how many were announced. A battle whose content is not loaded is logged
    (``roster_of``) and passed over. One battle at a time, until done or ``stop``."""
    announced = 0
    for battle_id in await ctx.store.in_progress():
        if stop.is_set():
            break
        state = await ctx.store.load(battle_id)
        if state is None:
            continue
        try:
            roster_of(ctx, state)
        except ContentNotDeployed:
            continue
        await ctx.announce(state, domain.SEATS)
        announced += 1
    log.info("battles in progress announced", battles=announced)
    return announced
