"""The match service's use cases: load the match, decide, append with the expected
version, retry on conflict. No protobuf, SQL or NATS here (STYLE 7).

Every committed change of a match is announced (``Context.announce``) by the process
that committed it, after the commit: the edge tells each human seat its view of the new
version (issue 18, ``services/platform/pushes.py``). A refusal, a no-op or a retried
request commits nothing and announces nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from random import Random
from typing import Protocol

import structlog

from services.match import bots, domain
from services.match.domain.events import MatchCard, MatchRules, SeatPlayer
from services.match.store import MatchRepository, SessionReport
from services.platform.background import DueSoon
from services.platform.errors import Conflict, DomainError, InvalidArgument, short_id
from services.platform.eventstore import WrongExpectedVersion
from services.platform.requests import Request, RequestSeen
from services.rules import Geometry, Visibility
from services.rules.draws import (
    draw_blocked_cells,
    draw_cell_marks,
    draw_first_seat,
    draw_revealed,
)

log = structlog.get_logger()

Decide = Callable[[domain.Match | None], domain.Decision]


class Announce(Protocol):
    """Tells the match's players of a version just committed (the edge publishes each
    human seat's view); called after the commit, never inside its transaction. The
    ``quiet`` player's view is not published: it goes in the reply alone
    (``MatchServicePlaceCardRequest.placer_view_in_reply``)."""

    def __call__(self, match: domain.Match, quiet: str = "") -> Awaitable[None]: ...


async def _announce_nothing(match: domain.Match, quiet: str = "") -> None:
    return None


@dataclass(frozen=True, slots=True)
class Context:
    store: MatchRepository
    clock: Callable[[], datetime]
    rng: Random
    turn_seconds: float = 60.0
    disconnect_seconds: float = 120.0
    late_seconds: float = 10.0
    """A turn or disconnect timer found later than this after it came due means the
    server could not act meanwhile: the match's clocks restart (``restart_clocks``)."""
    attempts: int = 8
    bot_pool: bots.BotPool | None = None
    """Where bot seats think (worker processes). None: in this thread, which only suits
    tests and novice or easy bots; a hard bot would hold the event loop for its budget."""
    announce: Announce = _announce_nothing
    due: DueSoon | None = None
    """Wakes this process's timer loops when a command sets a timer due before they
    would look (a bot's move, a short turn)."""


async def _announce(ctx: Context, match: domain.Match, quiet: str = "") -> None:
    """Announce a committed version (but for ``quiet``'s view: ``Announce``). A push is
    a hint (the next one, or the session's own read when it reconnects, repairs a lost
    one): failing to announce never turns a committed change into an error for the
    caller."""
    try:
        await ctx.announce(match, quiet)
    except Exception as error:
        log.warning(
            "announce failed", match_id=match.match_id, version=match.version, error=repr(error)
        )


async def _execute(
    ctx: Context, match_id: str, decide: Decide, request: Request | None = None, quiet: str = ""
) -> domain.Match | None:
    """Decide on the match and append with the expected version; on a concurrent append,
    reload and decide again.

    Optimistic on both counts, because this is every move's hot path: it decides on the
    cached state (the append's expected version is the check that it was current) and
    does not look the request id up first (the key is inserted in the same transaction,
    so a request can never apply twice). Only a refusal or a no-op is double-checked on
    fresh state, and only then is a request seen before answered with its first result.
    """
    for _ in range(ctx.attempts):
        state = await ctx.store.current(match_id)
        try:
            decision = decide(state)
        except DomainError as refused:
            if request is not None and (seen := await ctx.store.answered(request)) is not None:
                return await ctx.store.load_at(seen.match_id, seen.version)
            if await _moved_on(ctx, match_id, state):
                continue
            if state is None and isinstance(refused, domain.MatchNotFound):
                raise domain.no_match(match_id) from None  # the domain had no id to name
            raise
        if not decision.events:
            if await _moved_on(ctx, match_id, state):
                continue
            return state
        try:
            saved = await ctx.store.save(
                state, decision, request, correlation_id=request.request_id if request else ""
            )
        except WrongExpectedVersion:
            ctx.store.forget(match_id)
        except RequestSeen:
            assert request is not None
            seen = await ctx.store.answered(request)
            if seen is not None:
                return await ctx.store.load_at(seen.match_id, seen.version)
        else:
            if ctx.due is not None and (timers := domain.deadlines(saved)):
                ctx.due.due_at(min(t.due for t in timers))
            if (done := saved.finished) is not None and (state is None or state.in_progress):
                winner = "" if done.winner is None else done.players[done.winner].player_id
                log.info("match finished", match_id=match_id, reason=done.reason.value,
                         winner_id=winner, scores=list(done.scores), rated=done.rated)  # fmt: skip
            await _announce(ctx, saved, quiet)
            return saved
    raise Conflict(f"match {short_id(match_id)} is changing too fast; try again")


async def _moved_on(ctx: Context, match_id: str, state: domain.Match | None) -> bool:
    """Whether the stream is ahead of the state a decision was made on."""
    fresh = await ctx.store.load(match_id)
    seen = state.version if state is not None else 0
    return (fresh.version if fresh is not None else 0) != seen


@dataclass(frozen=True, slots=True)
class Started:
    """A CreateMatch answered: the match, and whether this request created it (False:
    a retry of the request that did)."""

    match: domain.Match
    created: bool


async def start_match(
    ctx: Context,
    request: Request,
    match_id: str,
    setup: MatchRules,
    players: tuple[SeatPlayer, SeatPlayer],
    hands: tuple[tuple[MatchCard, ...], tuple[MatchCard, ...]],
    origin_id: str = "",
    blocked_count: int = 0,
    draw_pile: tuple[MatchCard, ...] = (),
) -> Started:
    """Create a match, saying whether the request is a retry. ``blocked_count``: how
    many cells the table blocks, drawn here uniformly (RULES.md 11) and recorded with
    the match's rules (a retry finds the match and its first draw; replay reads it)."""
    seen = await ctx.store.answered(request)
    if blocked_count:
        blocked = draw_blocked_cells(setup.rows, setup.cols, blocked_count, ctx.rng)
        setup = replace(setup, blocked=blocked)
    geometry = Geometry.of(setup.rows, setup.cols, setup.blocked)
    draws = domain.StartDraws(
        first=draw_first_seat(ctx.rng),
        marks=draw_cell_marks(geometry, ctx.rng),
        revealed=(_reveal(setup, hands[0], ctx.rng), _reveal(setup, hands[1], ctx.rng)),
    )
    humans = [p.player_id for p in players if not p.is_bot]
    present = await ctx.store.open_sessions(humans)

    def decide(state: domain.Match | None) -> domain.Decision:
        return domain.create(
            state,
            match_id,
            setup,
            players,
            hands,
            draws,
            ctx.clock(),
            ctx.turn_seconds,
            ctx.disconnect_seconds,
            origin_id,
            (present.get(players[0].player_id, ""), present.get(players[1].player_id, "")),
            draw_pile,
        )

    match = await _execute(ctx, match_id, decide, request)
    assert match is not None
    log.info("match created", match_id=match_id, mode=setup.mode.value)
    # A session that opened or ended while the match was being created reported to no
    # active match yet: the presence read now (after the commit) catches it, as a
    # report recorded after that read finds the match.
    now_present = await ctx.store.open_sessions(humans)
    if now_present != present and match.in_progress:
        for player_id in humans:
            match = await _settle_presence(ctx, match_id, player_id, now_present.get(player_id))
    return Started(match, created=seen is None)


async def _settle_presence(
    ctx: Context, match_id: str, player_id: str, session_id: str | None
) -> domain.Match:
    """Bring a seat's connection in line with the player's open session (None: none)."""

    def decide(state: domain.Match | None) -> domain.Decision:
        if session_id is not None:
            return domain.presence(state, player_id, True, session_id, ctx.clock())
        attached = state.sessions[state.seat_of(player_id)] if state is not None else ""
        return domain.presence(state, player_id, False, attached, ctx.clock())

    match = await _execute(ctx, match_id, decide)
    assert match is not None
    return match


def _reveal(setup: MatchRules, hand: tuple[MatchCard, ...], rng: Random) -> frozenset[str]:
    ids = frozenset(c.card_id for c in hand)
    if setup.visibility is Visibility.ALL_OPEN:
        return ids
    if setup.visibility is Visibility.CLOSED:
        return frozenset()
    if len(ids) != len(hand) or "" in ids:
        raise InvalidArgument("every card of a hand needs its own card id")
    return draw_revealed([c.rules_card() for c in hand], rng)


async def place_card(
    ctx: Context,
    request: Request,
    match_id: str,
    player_id: str,
    card_id: str,
    cell: int,
    expected_version: int | None = None,
    lair: bool = False,
    in_reply: bool = False,
) -> domain.Match:
    """The placement; with ``in_reply``, the placer's view of it is not published (the
    caller passes it on: ``Announce``)."""

    def decide(state: domain.Match | None) -> domain.Decision:
        if expected_version is not None and state is not None and state.version != expected_version:
            raise Conflict(
                f"the match is at version {state.version}, not {expected_version}: "
                "refresh the view and decide again"
            )
        seed = _round_seed(ctx, state)
        return domain.place(state, player_id, card_id, cell, ctx.clock(), seed, lair)

    match = await _execute(ctx, match_id, decide, request, player_id if in_reply else "")
    assert match is not None
    return match


def _round_seed(ctx: Context, match: domain.Match | None) -> int:
    """The seed of a Sudden Death round's draws, should the decision start one (drawn
    only for such matches, so no other match takes anything from ``ctx.rng``)."""
    if match is None or not match.setup.sudden_death:
        return 0
    return ctx.rng.randrange(1 << 30)


async def forfeit(ctx: Context, request: Request, match_id: str, player_id: str) -> domain.Match:
    match = await _execute(
        ctx, match_id, lambda state: domain.forfeit(state, player_id, ctx.clock()), request
    )
    assert match is not None
    return match


async def report_presence(
    ctx: Context,
    player_id: str,
    session_id: str,
    connected: bool,
    opened_at: datetime | None = None,
    applied: bool = True,
) -> str | None:
    """Records the player's presence, then applies it to their active match, if any
    (not ``applied``: recorded only, a session ending whose client reopens at once);
    returns its id. A report about a session older than the latest known one (by
    ``opened_at``, the session's open time; the clock when not given), or an ended
    session reporting itself open, changes nothing. A session ended for good records
    since when its player is away (``away_since``)."""
    opened = opened_at if opened_at is not None else ctx.clock()
    away = None if connected or not applied else ctx.clock()
    report = SessionReport(player_id, session_id, opened, connected, away)
    if not await ctx.store.record_presence(report):
        return None
    match_id = await ctx.store.active_match(player_id) if applied else None
    if match_id is None:
        return None
    await _execute(
        ctx,
        match_id,
        lambda state: domain.presence(state, player_id, connected, session_id, ctx.clock()),
    )
    return match_id


async def missed_match(ctx: Context, player_id: str) -> str | None:
    """The match that finished while the player's session was closed, told once."""
    return await ctx.store.missed_match(player_id)


async def announce_in_progress(ctx: Context, stop: asyncio.Event) -> int:
    """Announce the current version of every match in progress that seats a human (at a
    start: a push lost to a crash between a commit and its publication is sent now);
    how many were announced. One match at a time, until done or ``stop``."""
    announced = 0
    for match_id in await ctx.store.in_progress():
        if stop.is_set():
            break
        match = await ctx.store.load(match_id)
        if match is not None and match.in_progress:
            await _announce(ctx, match)
            announced += 1
    log.info("matches in progress announced", matches=announced)
    return announced
