"""Draft sessions through the handlers, on both repository adapters: obligations,
refusals, deadlines."""

from __future__ import annotations

from datetime import timedelta

from services.collection import handlers_drafts, metrics
from services.collection.domain.draft import legal_completions
from services.collection.domain.draft_session import DraftOver, PickRefused, Status
from services.collection.domain.events import PlayerRef
from services.collection.handlers import Context, PendingObligation
from services.collection.tests.builders import Clock
from services.collection.tests.helpers import key, refused

ANN = PlayerRef("ann", "Ann")
BEA = PlayerRef("bea", "Bea")


async def start(ctx: Context, draft_id: str = "d1") -> None:
    created = await handlers_drafts.create_draft(
        ctx, key("draft", draft_id), draft_id, "pair", "draft", 0, (ANN, BEA)
    )
    assert created


async def test_a_draft_blocks_its_players_until_it_ends_and_a_retry_creates_nothing(
    ctx: Context,
) -> None:
    await start(ctx)
    again = await handlers_drafts.create_draft(
        ctx, key("draft", "d1-retry"), "d1", "pair", "draft", 0, (ANN, BEA)
    )
    assert again is False
    assert await ctx.store.open_draft_of("ann") == "d1"
    await refused(
        ctx.store,
        handlers_drafts.create_draft(
            ctx, key("draft", "d2"), "d2", "pair2", "draft", 0, (ANN, PlayerRef("cy", "Cy"))
        ),
        PendingObligation,
        "in draft d1",
    )


async def test_picking_twice_or_after_the_deadline_is_refused_and_changes_nothing(
    ctx: Context, clock: Clock
) -> None:
    await start(ctx)
    state = await handlers_drafts.view(ctx, "d1", "ann")
    seat = state.seats[state.seat_index("ann")]
    chosen = [c.id for c in legal_completions((), seat.pool)[0]]
    for booster in range(3):
        await handlers_drafts.reveal(ctx, key("ann", f"r{booster}"), "d1", "ann", booster, [])
    await handlers_drafts.pick(ctx, key("ann", "p0"), "d1", "ann", chosen[0])
    await refused(
        ctx.store,
        handlers_drafts.pick(ctx, key("ann", "p0-again"), "d1", "ann", chosen[0]),
        PickRefused,
        "already",
    )
    clock.advance(181)
    await refused(
        ctx.store,
        handlers_drafts.pick(ctx, key("ann", "p1"), "d1", "ann", chosen[1]),
        DraftOver,
        "you forfeit",  # idle for 181 s too: the inactivity forfeit is due first
    )


async def test_the_deadline_completes_both_decks_when_both_keep_acting(
    ctx: Context, clock: Clock
) -> None:
    await start(ctx)
    for step in range(3):  # both act every 59 s, so nobody is idle for 120 s
        clock.advance(59)
        for who in ("ann", "bea"):
            await handlers_drafts.reveal(ctx, key(who, f"r{step}"), "d1", who, step, [])
    assert not await handlers_drafts.fire_due_draft(ctx)  # 177 s: nothing due yet
    clock.advance(3)
    auto_picks = metrics.DRAFT_AUTO_PICKS._value.get()
    assert await handlers_drafts.fire_due_draft(ctx)
    state = await handlers_drafts.view(ctx, "d1", "bea")
    assert state.status is Status.COMPLETED and state.match_id
    assert all(len(s.picks) == 5 and s.auto_completed for s in state.seats)
    # The Economy dashboard's "Automatic picks per minute" counts the ten.
    assert metrics.DRAFT_AUTO_PICKS._value.get() == auto_picks + 10
    assert await ctx.store.open_draft_of("ann") is None
    # Drafted cards never become copies.
    assert await ctx.store.copies("ann") == {} and await ctx.store.copies("bea") == {}


async def test_a_player_idle_for_120_seconds_forfeits(ctx: Context, clock: Clock) -> None:
    await start(ctx)
    clock.advance(60)
    await handlers_drafts.reveal(ctx, key("bea", "r"), "d1", "bea", 0, [0])
    clock.advance(60)
    assert await handlers_drafts.fire_due_draft(ctx)
    state = await handlers_drafts.view(ctx, "d1", "ann")
    assert state.status is Status.FORFEITED
    assert state.forfeiting == ("ann",) and state.winner == "bea"


async def test_a_deadline_written_here_wakes_the_draft_loop_only_if_due_before_it_looks(
    ctx: Context, clock: Clock
) -> None:
    loop = ctx.wakes.drafts
    loop.sleeping_until(clock.now + timedelta(seconds=60))  # before the 120-s inactivity
    await start(ctx)
    assert not loop.woken.is_set()
    loop.sleeping_until(clock.now + timedelta(seconds=300))
    clock.advance(30)
    await handlers_drafts.reveal(ctx, key("bea", "r"), "d1", "bea", 0, [0])
    assert loop.woken.is_set()  # Ann's inactivity is due 90 s from now
