"""Draft sessions (RULES.md 8): create, reveal, pick, and the deadlines that complete or
forfeit them. The draft's row (open, next due time) is written with its events."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import structlog

from services.collection import metrics
from services.collection.domain import draft_session as session
from services.collection.domain.draft import draw_pool
from services.collection.domain.draft_session import Draft, DraftNotFound, Status
from services.collection.domain.events import DraftCardPicked, DraftEvent, PlayerRef
from services.collection.handlers import Context, PendingObligation, fire_due
from services.collection.results import DraftChanged, DraftStarted
from services.collection.store import Request, Unit, draft_stream

log = structlog.get_logger()


async def load_draft(unit: Unit, draft_id: str) -> Draft | None:
    events = [e for e, _ in await unit.stream(draft_stream(draft_id)) if isinstance(e, DraftEvent)]
    return session.fold(events)


class _Deadline:
    """The deadline a draft command wrote: its loop is woken with it once the command
    committed (``Context.wakes``); a retried run of the work writes it again."""

    def __init__(self) -> None:
        self.due: datetime | None = None

    def wake(self, ctx: Context) -> None:
        if self.due is not None:
            ctx.wakes.drafts.due_at(self.due)


async def _save(
    unit: Unit,
    before: Draft | None,
    decision: session.Decision,
    written: _Deadline | None = None,
) -> Draft | None:
    """``decision``'s events appended and the draft's row written as its state leaves it
    (the state the decision folded, not folded again here)."""
    events = decision.events
    if not events:
        return before
    after = decision.state
    await unit.append(draft_stream(after.draft_id), before.version if before else 0, events)
    due = await _save_row(unit, after)
    if written is not None:
        written.due = due
    metrics.DRAFT_AUTO_PICKS.inc(
        sum(1 for e in events if isinstance(e, DraftCardPicked) and e.auto_picked)
    )
    if after.status is not Status.PICKING and (before is None or before.status is Status.PICKING):
        metrics.DRAFTS.labels(outcome=after.status.value).inc()
        log.info("draft ended", draft_id=after.draft_id, status=after.status.value)
    return after


async def _save_row(unit: Unit, draft: Draft) -> datetime | None:
    """The draft's row as ``draft`` leaves it: its players, open or not, when next due."""
    players = (draft.seats[0].player.player_id, draft.seats[1].player.player_id)
    due = session.due(draft)
    await unit.save_draft(draft.draft_id, players, draft.status is Status.PICKING, due)
    return due


async def _command(
    ctx: Context,
    request: Request,
    draft_id: str,
    decide: Callable[[Draft | None], session.Decision],
) -> DraftChanged:
    """A seat's command on a draft: its row locked, its state loaded, ``decide``'s
    decision saved, and the deadline it writes woken once committed."""
    written = _Deadline()

    async def work(unit: Unit) -> DraftChanged:
        await unit.claim_draft(draft_id)
        state = await load_draft(unit, draft_id)
        await _save(unit, state, decide(state), written)
        return DraftChanged(draft_id)

    changed = await ctx.store.run(work, request)
    written.wake(ctx)
    return changed


async def create_draft(
    ctx: Context,
    request: Request,
    draft_id: str,
    pairing_id: str,
    ladder: str,
    season: int,
    players: tuple[PlayerRef, PlayerRef],
) -> bool:
    """Start the draft; False if it existed already (a retry)."""
    pools = (draw_pool(list(ctx.catalog), ctx.rng), draw_pool(list(ctx.catalog), ctx.rng))
    written = _Deadline()

    async def work(unit: Unit) -> DraftStarted:
        existing = await load_draft(unit, draft_id)
        if existing is None:
            for player in players:
                busy = await unit.open_draft_of(player.player_id)
                if busy is not None:
                    raise PendingObligation(f"{player.name} is in draft {busy} already")
        decision = session.create(
            existing,
            draft_id,
            ladder,
            season,
            pairing_id,
            players,
            pools,
            ctx.clock(),
            ctx.pick_seconds,
            ctx.inactivity_seconds,
        )
        await _save(unit, existing, decision, written)
        return DraftStarted(bool(decision.events))

    started = await ctx.store.run(work, request)
    written.wake(ctx)
    return started.created


async def reveal(
    ctx: Context,
    request: Request,
    draft_id: str,
    player_id: str,
    booster: int,
    slots: Sequence[int],
) -> DraftChanged:
    return await _command(
        ctx,
        request,
        draft_id,
        lambda state: session.reveal(
            state, draft_id, player_id, booster, slots, ctx.clock(), ctx.inactivity_seconds
        ),
    )


async def pick(
    ctx: Context, request: Request, draft_id: str, player_id: str, card_id: str
) -> DraftChanged:
    return await _command(
        ctx,
        request,
        draft_id,
        lambda state: session.pick(
            state, draft_id, player_id, card_id, ctx.clock(), ctx.inactivity_seconds
        ),
    )


async def fire_due_draft(ctx: Context) -> bool:
    """Apply the deadline of the most overdue draft, if any; True if one was claimed."""

    async def expire(unit: Unit, draft_id: str, now: datetime) -> None:
        state = await load_draft(unit, draft_id)
        if state is not None:
            after = await _save(unit, state, session.expire(state, now, ctx.rng))
            if after is state:  # nothing was due after all: move the row to the real time
                await _save_row(unit, state)

    return await fire_due(ctx, lambda unit, now: unit.due_draft(now), expire)


async def view(ctx: Context, draft_id: str, player_id: str) -> Draft:
    """The draft, if the player sits in it (DraftNotFound otherwise)."""

    async def work(unit: Unit) -> Draft:
        state = await load_draft(unit, draft_id)
        if state is None:
            raise DraftNotFound(f"you are not in draft {draft_id}")
        state.seat_index(player_id)
        return state

    return await ctx.store.read(work)


async def open_draft_id(ctx: Context, player_id: str) -> str | None:
    return await ctx.store.open_draft_of(player_id)
