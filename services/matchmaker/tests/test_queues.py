"""Queues on real PostgreSQL with in-memory services: enqueue, cancel, pairing by rating,
bot fills, Roulette, practice, switching, failed and interrupted starts."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from triad.v1 import events_pb2 as ev

from services.matchmaker import codec, handlers_pairing, handlers_queues, handlers_starts
from services.matchmaker.domain import (
    COMPATIBLE_RULE_SETS,
    BotLevel,
    CancelReason,
    DeckChoice,
    Mode,
    Seat,
    TicketState,
    Visibility,
)
from services.matchmaker.handlers import Context
from services.matchmaker.metrics import MatchmakerMetrics
from services.matchmaker.store import RequestReused
from services.matchmaker.tests.conftest import DECK, Clock, Fakes, player
from services.platform.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)


async def events(ctx: Context) -> list[tuple[str, Any]]:
    """Every event the matchmaker appended, in order, as its stream and message."""
    return [
        (e.stream_id, codec.decode(e.type, e.schema_version, e.data))
        for e in await ctx.store.appended()
    ]


async def test_a_ticket_is_queued_once_and_a_retry_returns_it(ctx: Context) -> None:
    ann = player("ann")
    ticket = await handlers_queues.enqueue(ctx, "r1", ann, Mode.RANKED, DECK)
    assert ticket.state is TicketState.QUEUED and ticket.rating == 1500
    assert (await handlers_queues.enqueue(ctx, "r1", ann, Mode.RANKED, DECK)) == ticket
    with pytest.raises(AlreadyExists, match="already have queued ticket"):
        await handlers_queues.enqueue(ctx, "r2", ann, Mode.UNRANKED, DECK)
    with pytest.raises(RequestReused):
        await handlers_queues.enqueue(ctx, "r1", ann, Mode.UNRANKED, DECK)
    found = await handlers_queues.queue_status(ctx, ann.player_id)
    view = found.view
    assert view is not None and found.hosted is None
    assert view.ticket.ticket_id == ticket.ticket_id
    assert (view.queue_length, view.window, view.practice_available) == (1, 50, True)
    assert [type(m).__name__ for _, m in await events(ctx)] == ["TicketQueued"]


@pytest.mark.parametrize(
    ("mode", "deck", "message"),
    [
        (Mode.CUSTOM, DECK, "mode must be a queue"),
        (Mode.PRACTICE, DECK, "mode must be a queue"),
        (Mode.RANKED, None, "a deck is required"),
        (Mode.DRAFT, DECK, "send no deck"),
    ],
)
async def test_malformed_enqueues_are_refused(
    ctx: Context, mode: Mode, deck: DeckChoice | None, message: str
) -> None:
    with pytest.raises(InvalidArgument, match=message):
        await handlers_queues.enqueue(ctx, "r", player("bo"), mode, deck)


async def test_enqueue_is_refused_during_a_match_a_trade_or_a_draft(
    ctx: Context, fakes: Fakes
) -> None:
    fakes.matches.active["id-cy"] = "m-77"
    with pytest.raises(FailedPrecondition, match="playing match m-77"):
        await handlers_queues.enqueue(ctx, "r", player("cy"), Mode.UNRANKED, DECK)
    fakes.obligations.blocked["id-di"] = "trade t-1 is pending your choice"
    with pytest.raises(FailedPrecondition, match="trade t-1 is pending"):
        await handlers_queues.enqueue(ctx, "r", player("di"), Mode.RANKED, DECK)
    assert await ctx.store.latest_ticket("id-cy") is None


async def test_cancel_before_pairing_but_never_after(ctx: Context, fakes: Fakes) -> None:
    ann, bea, cid = player("ann"), player("bea"), player("cid")
    ticket = await handlers_queues.enqueue(ctx, "q", ann, Mode.UNRANKED, DECK)
    with pytest.raises(NotFound):
        await handlers_queues.cancel(ctx, "c", bea.player_id, ticket.ticket_id)
    cancelled = await handlers_queues.cancel(ctx, "c", ann.player_id, ticket.ticket_id)
    assert cancelled.state is TicketState.CANCELLED
    assert cancelled.cancel_reason is CancelReason.PLAYER
    assert (await handlers_queues.cancel(ctx, "c2", ann.player_id, ticket.ticket_id)) == cancelled
    again = await handlers_queues.enqueue(ctx, "q2", ann, Mode.UNRANKED, DECK)  # may queue again
    await handlers_queues.enqueue(ctx, "q", cid, Mode.UNRANKED, DECK)
    assert await handlers_pairing.pair_all(ctx)
    with pytest.raises(FailedPrecondition, match="already paired"):
        await handlers_queues.cancel(ctx, "c3", ann.player_id, again.ticket_id)
    paired = await ctx.store.ticket(again.ticket_id)
    assert paired is not None and paired.match_id in fakes.matches.created


async def test_ranked_pairs_within_a_window_that_widens_with_waiting(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    fakes.ratings.known.update({"id-ann": 1500, "id-bea": 1700, "id-cid": 2100})
    for name in ("ann", "bea", "cid"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.RANKED, DECK)
    assert not await handlers_pairing.pair_all(ctx)
    clock.advance(29)  # window 50 + 25 * 5 = 175 < 200
    assert not await handlers_pairing.pair_all(ctx)
    view = (await handlers_queues.queue_status(ctx, "id-ann")).view
    assert view is not None and view.window == 175
    assert handlers_queues.next_change(ctx, view) == pytest.approx(1.0)
    clock.advance(1)  # 200: Ann and Bea
    assert await handlers_pairing.pair_all(ctx)
    (spec,) = fakes.matches.created.values()
    assert {s.player_id for s in spec.seats} == {"id-ann", "id-bea"}
    assert spec.mode is Mode.RANKED and spec.ladder == "ranked"
    assert spec.rules.visibility is Visibility.CLOSED and spec.rules.trade_one
    clock.advance(3600)  # Cid is 400 from everyone, beyond the 300 cap, and no bot comes
    assert not await handlers_pairing.pair_all(ctx)
    cid = await ctx.store.latest_ticket("id-cid")
    assert cid is not None and cid.state is TicketState.QUEUED
    paired = [m for _, m in await events(ctx) if isinstance(m, ev.TicketsPaired)]
    assert len(paired) == 1 and paired[0].rating_gap == 200
    assert paired[0].match_id == spec.match_id


async def test_unranked_fills_with_a_populated_bot_after_the_wait(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    await handlers_queues.enqueue(ctx, "q", player("eve"), Mode.UNRANKED, DECK)
    clock.advance(19)
    assert not await handlers_pairing.pair_all(ctx)
    clock.advance(1)
    assert await handlers_pairing.pair_all(ctx)
    (spec,) = fakes.matches.created.values()
    human, bot = spec.seats
    assert human.player_id == "id-eve" and bot.bot_level is BotLevel.NORMAL
    assert bot.name.startswith("[BOT] ") and bot.player_id.startswith("bot-")
    assert all(c.origin == "bot" for c in bot.cards) and len(bot.cards) == 5
    assert spec.ladder == "" and not spec.rules.trade_one
    (paired,) = [m for _, m in await events(ctx) if isinstance(m, ev.TicketsPaired)]
    assert paired.bot.player.is_bot and len(paired.bot.deck) == 5
    assert [c.card_id for c in paired.bot.deck] == [c.card_id for c in bot.cards]


async def test_ranked_and_draft_never_fill_with_bots(ctx: Context, clock: Clock) -> None:
    await handlers_queues.enqueue(ctx, "q", player("fay"), Mode.RANKED, DECK)
    await handlers_queues.enqueue(ctx, "q", player("gus"), Mode.DRAFT, None)
    clock.advance(3600)
    assert not await handlers_pairing.pair_all(ctx)


async def test_roulette_draws_a_compatible_rule_set_recorded_in_the_pairing(
    ctx: Context, fakes: Fakes
) -> None:
    for round_ in range(6):
        for name in ("a", "b"):
            await handlers_queues.enqueue(
                ctx, f"q{round_}", player(f"{name}{round_}"), Mode.ROULETTE, DECK
            )
        await handlers_pairing.pair_all(ctx)
    specs = list(fakes.matches.created.values())
    assert len(specs) == 6
    assert all(s.rules in COMPATIBLE_RULE_SETS and s.mode is Mode.ROULETTE for s in specs)
    assert len({s.rules for s in specs}) > 1  # drawn, not fixed
    recorded = {
        m.match_id: m.rules for _, m in await events(ctx) if isinstance(m, ev.TicketsPaired)
    }
    for spec in specs:
        rules = recorded[spec.match_id]
        assert (rules.same, rules.plus, rules.combo, rules.elemental) == (
            spec.rules.same, spec.rules.plus, spec.rules.combo, spec.rules.elemental,
        )  # fmt: skip


async def test_draft_pairs_into_a_draft_then_the_drafted_match(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    for name in ("hal", "ivy"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.DRAFT, None)
    assert await handlers_pairing.pair_all(ctx)
    ((draft_id, (pairing_id, ladder, players)),) = fakes.drafts.created.items()
    assert ladder == "draft" and {p for p, _ in players} == {"id-hal", "id-ivy"}
    ticket = await ctx.store.latest_ticket("id-hal")
    assert ticket is not None and ticket.draft_id == draft_id and not ticket.match_id
    hands = [await ctx.ports.bot_decks.draw(f"draft-{n}") for n in ("hal", "ivy")]
    seats = [Seat(f"id-{n}", n, cards=tuple(h)) for n, h in zip(("hal", "ivy"), hands, strict=True)]
    await handlers_starts.start_drafted_match(ctx, "someone-elses", "m-other", seats, clock())
    assert "m-other" not in fakes.matches.created  # only drafts we paired
    await handlers_starts.start_drafted_match(ctx, draft_id, "m-draft", seats, clock())
    spec = fakes.matches.created["m-draft"]
    assert spec.mode is Mode.DRAFT and spec.ladder == "draft" and spec.origin_id == draft_id
    assert pairing_id


async def test_practice_from_any_mode_is_never_rated_or_traded(ctx: Context, fakes: Fakes) -> None:
    match_id = await handlers_queues.start_practice(
        ctx, "p", player("jo"), Mode.RANKED, BotLevel.HARD, DECK, None
    )
    spec = fakes.matches.created[match_id]
    assert spec.mode is Mode.PRACTICE and spec.origin_mode is Mode.RANKED
    assert spec.rules.visibility is Visibility.CLOSED and not spec.rules.trade_one
    assert spec.ladder == "" and spec.seats[1].bot_level is BotLevel.HARD
    assert match_id == await handlers_queues.start_practice(
        ctx, "p", player("jo"), Mode.RANKED, BotLevel.HARD, DECK, None
    )  # a retry answers with the same match
    with pytest.raises(FailedPrecondition, match="playing match"):
        await handlers_queues.start_practice(
            ctx, "p2", player("jo"), Mode.UNRANKED, None, DECK, None
        )
    with pytest.raises(InvalidArgument, match="practice starts from"):
        await handlers_queues.start_practice(
            ctx, "p", player("ka"), Mode.PRACTICE, None, DECK, None
        )
    (started,) = [m for _, m in await events(ctx) if isinstance(m, ev.PracticeStarted)]
    assert started.match_id == match_id and started.bot.player.player_name.startswith("[BOT] ")


async def test_switching_to_practice_cancels_the_ticket_only_when_the_match_starts(
    ctx: Context, fakes: Fakes
) -> None:
    lu = player("lu")
    ticket = await handlers_queues.enqueue(ctx, "q", lu, Mode.UNRANKED, DECK)
    fakes.obligations.blocked[lu.player_id] = "draft d-1 is open"
    with pytest.raises(FailedPrecondition, match="draft d-1"):
        await handlers_queues.switch_to_practice(ctx, "s", lu, ticket.ticket_id, None, None)
    still = await ctx.store.ticket(ticket.ticket_id)
    assert still is not None and still.state is TicketState.QUEUED  # nothing changed
    del fakes.obligations.blocked[lu.player_id]
    switched = await handlers_queues.switch_to_practice(
        ctx, "s2", lu, ticket.ticket_id, BotLevel.EASY, None
    )
    cancelled, match_id = switched.ticket, switched.match_id
    assert cancelled.state is TicketState.CANCELLED
    assert cancelled.cancel_reason is CancelReason.SWITCHED_TO_PRACTICE
    assert fakes.matches.created[match_id].origin_mode is Mode.UNRANKED
    kinds = [type(m).__name__ for _, m in await events(ctx)]
    assert kinds == ["TicketQueued", "TicketCancelled", "PracticeStarted"]


async def test_a_switch_losing_to_the_players_own_cancel_says_the_ticket_was_cancelled(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found from outside: CancelTicket and SwitchToPractice sent at once; the switch,
    having read the ticket queued, lost it to the cancel and said "it was just paired",
    though nothing was."""
    lu = player("lu")
    ticket = await handlers_queues.enqueue(ctx, "q", lu, Mode.UNRANKED, DECK)
    read = ctx.store.ticket
    reads = 0

    async def read_then_cancelled(ticket_id: str) -> Any:
        nonlocal reads
        found = await read(ticket_id)
        reads += 1
        if reads == 1:  # the player's cancel lands between the switch's read and start
            await handlers_queues.cancel(ctx, "c", lu.player_id, ticket_id)
        return found

    monkeypatch.setattr(ctx.store, "ticket", read_then_cancelled)
    with pytest.raises(FailedPrecondition, match=r"no longer queued \(cancelled\)"):
        await handlers_queues.switch_to_practice(ctx, "s", lu, ticket.ticket_id, None, None)


async def test_a_cancel_while_the_ticket_is_switched_to_practice_does_not_say_paired(
    ctx: Context, fakes: Fakes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found from outside: CancelTicket sent with SwitchToPractice said the ticket "was
    just paired and its match is starting", though it was the switch that held it."""
    lu = player("lu")
    ticket = await handlers_queues.enqueue(ctx, "q", lu, Mode.UNRANKED, DECK)
    create = fakes.matches.create
    told: list[str] = []

    async def cancelled_meanwhile(spec: Any) -> None:
        with pytest.raises(FailedPrecondition) as refused:
            await handlers_queues.cancel(ctx, "c", lu.player_id, ticket.ticket_id)
        told.append(str(refused.value))
        await create(spec)

    monkeypatch.setattr(fakes.matches, "create", cancelled_meanwhile)
    await handlers_queues.switch_to_practice(ctx, "s", lu, ticket.ticket_id, None, None)
    (said,) = told
    assert "paired" not in said and "switched to a practice match" in said, said
    again = await handlers_queues.cancel(ctx, "c2", lu.player_id, ticket.ticket_id)
    assert again.state is TicketState.CANCELLED  # once switched: returned unchanged


async def test_a_player_who_cannot_play_is_dropped_and_the_opponent_requeued(
    ctx: Context, fakes: Fakes
) -> None:
    for name in ("mo", "ned"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.UNRANKED, DECK)
    fakes.matches.active["id-mo"] = "m-elsewhere"  # Mo started a match meanwhile
    await handlers_pairing.pair_all(ctx)
    mo, ned = [await ctx.store.latest_ticket(f"id-{n}") for n in ("mo", "ned")]
    assert mo is not None and mo.state is TicketState.CANCELLED
    assert mo.cancel_reason is CancelReason.PAIRING_FAILED
    assert ned is not None and ned.state is TicketState.QUEUED
    await handlers_queues.enqueue(ctx, "q", player("ola"), Mode.UNRANKED, DECK)
    await handlers_pairing.pair_all(ctx)
    ned = await ctx.store.latest_ticket("id-ned")
    assert ned is not None and ned.state is TicketState.PAIRED
    assert {s.player_id for s in fakes.matches.created[ned.match_id].seats} == {
        "id-ned",
        "id-ola",
    }


async def test_a_start_left_by_a_dead_replica_is_finished_by_another(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    for name in ("pia", "quin"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.UNRANKED, DECK)
    (claimed,) = await handlers_pairing.pair_queue(ctx, Mode.UNRANKED)  # ... and the replica dies
    assert not fakes.matches.created
    assert not await handlers_starts.recover_due_start(ctx)  # its lease still holds
    clock.advance(10)
    assert await handlers_starts.recover_due_start(ctx)
    assert list(fakes.matches.created) == [claimed.plan.match_id]
    # The old holder wakes up: its lease token no longer records anything.
    assert not await ctx.store.finish_start(claimed, [], clock())
    for name in ("pia", "quin"):
        ticket = await ctx.store.latest_ticket(f"id-{name}")
        assert ticket is not None and ticket.state is TicketState.PAIRED


async def test_metrics_count_waits_gaps_bot_fills_and_cancels(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    registry = CollectorRegistry()
    ctx = replace(ctx, metrics=MatchmakerMetrics.register(registry))
    fakes.ratings.known.update({"id-ria": 1450, "id-sol": 1510})
    for name in ("ria", "sol"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.RANKED, DECK)
    gone = await handlers_queues.enqueue(ctx, "q", player("tam"), Mode.UNRANKED, DECK)
    await handlers_queues.cancel(ctx, "c", "id-tam", gone.ticket_id)
    await handlers_queues.enqueue(ctx, "q", player("uma"), Mode.UNRANKED, DECK)
    clock.advance(25)
    await handlers_pairing.pair_all(ctx)

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, labels)

    assert value("triad_matchmaker_tickets_total", mode="ranked") == 2
    assert value("triad_matchmaker_cancels_total", mode="unranked", reason="player") == 1
    assert value("triad_matchmaker_bot_fills_total", mode="unranked") == 1
    assert value("triad_matchmaker_pairings_total", mode="ranked", outcome="started") == 1
    assert value("triad_matchmaker_pair_rating_gap_sum", mode="ranked") == 60
    waits = value("triad_matchmaker_wait_seconds_count", mode="ranked", band="1400-1599")
    assert waits == 2
    assert value("triad_matchmaker_wait_seconds_sum", mode="unranked", band="1400-1599") == 25


async def test_the_pairing_loop_rounds_every_interval_while_tickets_wait_else_sleeps(
    ctx: Context, clock: Clock
) -> None:
    loop = handlers_pairing.PairingLoop(ctx)
    assert not await loop.step() and await loop.next_due() is None  # nobody queues
    await handlers_queues.enqueue(ctx, "q", player("ann"), Mode.UNRANKED, DECK)
    assert not await loop.step()  # Ann waits for someone: the next round is an interval on
    assert await loop.next_due() == clock.now + timedelta(seconds=0.5)
    await handlers_queues.enqueue(ctx, "q", player("bea"), Mode.UNRANKED, DECK)
    assert await loop.step()  # paired
    assert not await loop.step() and await loop.next_due() is None
    # a ticket that wakes nobody here (another replica's, or put back by a failed start)
    # is due at the next look at the queues
    await handlers_queues.enqueue(ctx, "q2", player("cai"), Mode.UNRANKED, DECK)
    assert await loop.next_due() == clock.now


async def test_an_enqueue_wakes_an_idle_pairing_loop_but_not_one_rounding_every_interval(
    ctx: Context, clock: Clock
) -> None:
    loop = ctx.wakes.pairing
    loop.sleeping_until(clock.now + timedelta(seconds=0.5))  # tickets wait: rounds go on
    await handlers_queues.enqueue(ctx, "q", player("ann"), Mode.UNRANKED, DECK)
    assert not loop.woken.is_set()
    loop.sleeping_until(clock.now + timedelta(seconds=1))  # nobody waited: a long sleep
    await handlers_queues.enqueue(ctx, "q", player("bea"), Mode.UNRANKED, DECK)
    assert loop.woken.is_set()


async def test_a_start_claimed_here_wakes_the_take_over_loop_if_its_lease_ends_first(
    ctx: Context, clock: Clock
) -> None:
    loop = ctx.wakes.starts
    loop.sleeping_until(clock.now + timedelta(seconds=60))  # beyond the 10-s lease
    for name in ("ann", "bea"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.UNRANKED, DECK)
    assert await handlers_pairing.pair_all(ctx)
    assert loop.woken.is_set()
