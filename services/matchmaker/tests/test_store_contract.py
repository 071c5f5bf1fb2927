"""One contract, two adapters: the matchmaker's repository in memory and in PostgreSQL
answer alike, so the handler tests that run on the memory adapter say something about
production. Each test drives the ports the handlers use and reads back the state and
the events appended."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest

from services.matchmaker import codec
from services.matchmaker.domain import (
    MODE_RULES,
    BotLevel,
    CancelReason,
    DeckChoice,
    Mode,
    Seat,
    StartKind,
    StartPlan,
    TableFilter,
    Ticket,
    TicketState,
)
from services.matchmaker.store import (
    Engaged,
    Engagement,
    Hold,
    Lobby,
    LobbyStore,
    MatchmakerStore,
    Repository,
    Request,
    RequestReused,
    RequestSeen,
    StartRecord,
    StartState,
)
from services.matchmaker.store.memory import MemoryStore

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
DECK = DeckChoice(deck_id="main")
EVERY = TableFilter()


@dataclass
class Adapter:
    store: Repository
    lobby: Lobby

    async def kinds(self) -> list[tuple[str, str]]:
        return [
            (e.stream_id, e.type.removeprefix("triad.v1.")) for e in await self.store.appended()
        ]


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def adapter(request: pytest.FixtureRequest) -> Adapter:
    if request.param == "memory":
        memory = MemoryStore()
        return Adapter(memory, memory)
    pool: Any = request.getfixturevalue("pg_pool")
    schema: str = request.getfixturevalue("migrated")
    return Adapter(MatchmakerStore(pool, schema), LobbyStore(pool, schema))


def ticket(name: str, mode: Mode = Mode.UNRANKED, at: float = 0.0, rating: int = 1500) -> Ticket:
    return Ticket(
        ticket_id=f"t-{name}-{uuid4().hex[:6]}",
        player_id=f"id-{name}",
        player_name=name,
        mode=mode,
        rating=rating,
        enqueued_at=T0 + timedelta(seconds=at),
        deck=DECK,
    )


def key(name: str, request_id: str, *content: object) -> Request:
    return Request.of(f"id-{name}", request_id, *content)


def pairing(*tickets: Ticket) -> StartPlan:
    start_id = str(uuid4())
    seats = tuple(
        Seat(t.player_id, t.player_name, deck=t.deck, ticket_id=t.ticket_id, rating=t.rating)
        for t in tickets
    )
    return StartPlan(
        start_id=start_id,
        kind=StartKind.PAIRING,
        mode=tickets[0].mode,
        rules=MODE_RULES[Mode.UNRANKED],
        seats=(seats[0], seats[1]),
        match_id=f"m-{start_id}",
        origin_id=start_id,
    )


def pending(plan: StartPlan, token: UUID | None = None) -> StartRecord:
    """``plan`` as a start just recorded, under ``token``'s lease (a new one if None)."""
    return StartRecord(plan, StartState.PENDING, token or uuid4())


async def claimed(adapter: Adapter, *tickets: Ticket, lease: float = 10) -> StartRecord:
    plan = pairing(*tickets)
    token = uuid4()
    async with adapter.store.queue_round(tickets[0].mode, 100) as queue:
        assert queue is not None
        await queue.claim(plan, T0 + timedelta(seconds=lease), token)
    return pending(plan, token)


async def test_a_ticket_is_queued_once_per_player_and_request(adapter: Adapter) -> None:
    store = adapter.store
    ann = ticket("ann", Mode.RANKED, rating=1520)
    request = key("ann", "r1", "enqueue", Mode.RANKED)
    assert await store.answered(request) is None
    await store.enqueue(ann, request)
    assert await store.ticket(ann.ticket_id) == ann
    assert await store.latest_ticket("id-ann") == ann
    assert await store.answered(request) == ann.ticket_id
    assert await store.engagement("id-ann") == Engagement(Hold.TICKET, ann.ticket_id)
    assert (await store.queue_length(Mode.RANKED), await store.queue_lengths()) == (
        1,
        {Mode.RANKED: 1},
    )
    with pytest.raises(RequestReused):
        await store.answered(key("ann", "r1", "enqueue", Mode.UNRANKED))
    with pytest.raises(RequestSeen):
        await store.enqueue(ticket("ann"), request)
    with pytest.raises(Engaged) as engaged:
        await store.enqueue(ticket("ann"), key("ann", "r2"))
    assert engaged.value.held == Engagement(Hold.TICKET, ann.ticket_id)
    # Nothing of the refused ones was kept: not their tickets, not their request ids.
    assert await store.queue_length(Mode.RANKED) == 1
    assert await store.answered(key("ann", "r2")) is None
    assert await adapter.kinds() == [(f"ticket-{ann.ticket_id}", "TicketQueued")]
    (event,) = await store.appended()
    queued = codec.decode(event.type, event.schema_version, event.data)
    assert (event.version, queued.rating, queued.ticket_id) == (1, 1520, ann.ticket_id)  # type: ignore[attr-defined]


async def test_only_its_player_cancels_a_queued_ticket_once(adapter: Adapter) -> None:
    store = adapter.store
    ann = ticket("ann")
    await store.enqueue(ann, key("ann", "q"))
    found, done = await store.cancel(ann.ticket_id, "id-bea", key("bea", "c"), T0)
    assert (found, done) == (ann, False)
    with pytest.raises(RequestSeen):  # its id was recorded meanwhile: nothing changes
        await store.cancel(ann.ticket_id, "id-ann", key("ann", "q"), T0)
    assert await store.ticket(ann.ticket_id) == ann
    assert await store.answered(key("bea", "c")) is None
    moment = T0 + timedelta(seconds=3)
    cancelled, done = await store.cancel(ann.ticket_id, "id-ann", key("ann", "c"), moment)
    assert done and cancelled is not None
    assert (cancelled.state, cancelled.cancel_reason, cancelled.ended_at) == (
        TicketState.CANCELLED,
        CancelReason.PLAYER,
        moment,
    )
    assert await store.ticket(ann.ticket_id) == cancelled
    assert await store.engagement("id-ann") is None
    assert await store.queue_lengths() == {}
    assert await store.cancel(ann.ticket_id, "id-ann", key("ann", "c2"), moment) == (
        cancelled,
        False,
    )
    assert await store.cancel("nope", "id-ann", key("ann", "c3"), moment) == (None, False)
    assert [k for _, k in await adapter.kinds()] == ["TicketQueued", "TicketCancelled"]


async def test_a_round_holds_its_queue_and_claims_the_oldest_tickets(adapter: Adapter) -> None:
    store = adapter.store
    queued = [ticket(n, at=i) for i, n in enumerate(("cid", "ann", "bea"))]
    for t in reversed(queued):
        await store.enqueue(t, key(t.player_name, "q"))
    assert await store.overdue(Mode.UNRANKED, T0 + timedelta(seconds=1), 10) == [
        queued[0].ticket_id,
        queued[1].ticket_id,
    ]
    plan = pairing(queued[0], queued[1])
    async with store.queue_round(Mode.UNRANKED, 2) as queue:
        assert queue is not None
        assert [t.ticket_id for t in queue.tickets] == [t.ticket_id for t in queued[:2]]
        async with store.queue_round(Mode.UNRANKED, 2) as other:
            assert other is None  # one round per queue at a time
        await queue.claim(plan, T0 + timedelta(seconds=10), uuid4())
    first = await store.ticket(queued[0].ticket_id)
    assert first is not None and first.state is TicketState.CLAIMED and first.waiting
    assert await store.queue_length(Mode.UNRANKED) == 1
    cancelled, done = await store.cancel(queued[0].ticket_id, "id-cid", key("cid", "c"), T0)
    assert not done and cancelled == first  # a claimed ticket is no longer cancellable
    start = await store.start(plan.start_id)
    assert start is not None and start.state is StartState.PENDING and start.plan == plan


async def test_finishing_a_pairing_needs_the_current_lease(adapter: Adapter) -> None:
    store = adapter.store
    ann, bea = ticket("ann"), ticket("bea", at=1)
    for t in (ann, bea):
        await store.enqueue(t, key(t.player_name, "q"))
    start = await claimed(adapter, ann, bea)
    stale = replace(start, token=uuid4())
    moment = T0 + timedelta(seconds=5)
    assert not await store.finish_start(stale, [], moment)
    assert await store.finish_start(start, [], moment)
    assert not await store.finish_start(start, [], moment)  # recorded once
    for t in (ann, bea):
        now = await store.ticket(t.ticket_id)
        assert now is not None
        assert (now.state, now.match_id, now.ended_at) == (
            TicketState.PAIRED,
            start.plan.match_id,
            moment,
        )
        assert await store.engagement(t.player_id) is None
    record = await store.start(start.plan.start_id)
    assert record is not None and record.state is StartState.STARTED
    assert (f"pairing-{start.plan.start_id}", "TicketsPaired") in await adapter.kinds()


async def test_a_failed_pairing_drops_the_culprit_and_requeues_the_other(
    adapter: Adapter,
) -> None:
    store = adapter.store
    ann, bea = ticket("ann"), ticket("bea", at=1)
    for t in (ann, bea):
        await store.enqueue(t, key(t.player_name, "q"))
    start = await claimed(adapter, ann, bea)
    assert await store.fail_start(start, {"id-ann": "ann's deck is broken"}, "no", T0)
    dropped, back = await store.ticket(ann.ticket_id), await store.ticket(bea.ticket_id)
    assert dropped is not None and back is not None
    assert (dropped.state, dropped.cancel_reason) == (
        TicketState.CANCELLED,
        CancelReason.PAIRING_FAILED,
    )
    assert dropped.cancel_message == "your match could not start: ann's deck is broken"
    assert back.state is TicketState.QUEUED and back.enqueued_at == bea.enqueued_at
    assert await store.engagement("id-ann") is None
    assert await store.engagement("id-bea") == Engagement(Hold.TICKET, bea.ticket_id)
    record = await store.start(start.plan.start_id)
    assert record is not None and (record.state, record.error) == (StartState.FAILED, "no")
    assert not await store.fail_start(start, {}, "again", T0)
    assert [k for _, k in await adapter.kinds()].count("TicketCancelled") == 1


async def test_a_start_whose_lease_ran_out_is_taken_over_with_a_new_token(
    adapter: Adapter,
) -> None:
    store = adapter.store
    ann, bea = ticket("ann"), ticket("bea", at=1)
    for t in (ann, bea):
        await store.enqueue(t, key(t.player_name, "q"))
    start = await claimed(adapter, ann, bea, lease=10)
    early = T0 + timedelta(seconds=9)
    assert await store.claim_due_start(early, early + timedelta(seconds=10)) is None
    assert await store.take_over(start.plan.start_id, early, early) is None
    late = T0 + timedelta(seconds=11)
    taken = await store.claim_due_start(late, late + timedelta(seconds=10))
    assert taken is not None and taken.plan == start.plan and taken.token != start.token
    assert await store.claim_due_start(late, late) is None  # its new lease holds
    again = await store.take_over(start.plan.start_id, late + timedelta(seconds=10), late)
    assert again is not None and again.token not in (start.token, taken.token)
    assert not await store.finish_start(start, [], late)
    assert not await store.finish_start(taken, [], late)
    assert await store.finish_start(again, [], late)


async def test_a_forgotten_request_key_frees_its_id_and_only_for_its_own_content(
    adapter: Adapter,
) -> None:
    store = adapter.store
    ann = ticket("ann")
    request = key("ann", "r1", "enqueue", Mode.UNRANKED)
    await store.enqueue(ann, request)
    await store.forget(key("ann", "r1", "enqueue", Mode.RANKED))  # other content: kept
    assert await store.answered(request) == ann.ticket_id
    await store.forget(request)
    assert await store.answered(request) is None
    assert await store.answered(key("ann", "r1", "enqueue", Mode.RANKED)) is None
    assert await store.ticket(ann.ticket_id) == ann  # nothing else is undone


async def test_a_practice_or_a_switch_holds_the_player_or_the_ticket(adapter: Adapter) -> None:
    store = adapter.store
    lease = T0 + timedelta(seconds=10)
    human = Seat("id-ann", "ann", deck=DECK)
    bot = Seat("bot-1", "[BOT] Echo Lark", bot_level=BotLevel.EASY)
    practice = StartPlan(
        str(uuid4()), StartKind.PRACTICE, Mode.PRACTICE, MODE_RULES[Mode.UNRANKED],
        (human, bot),
        match_id="m-p", origin_mode=Mode.UNRANKED,
    )  # fmt: skip
    assert await store.open_start(pending(practice), lease, key("ann", "p"), T0)
    assert await store.engagement("id-ann") == Engagement(Hold.PRACTICE, practice.start_id)
    assert await store.answered(key("ann", "p")) == practice.start_id
    with pytest.raises(Engaged):
        await store.enqueue(ticket("ann"), key("ann", "q"))
    bea = ticket("bea")
    await store.enqueue(bea, key("bea", "q"))
    switch = replace(
        practice,
        start_id=str(uuid4()),
        kind=StartKind.SWITCH,
        seats=(Seat("id-bea", "bea", deck=DECK, ticket_id=bea.ticket_id), practice.seats[1]),
    )
    token = uuid4()
    assert await store.open_start(pending(switch, token), lease, key("bea", "s"), T0)
    held = await store.ticket(bea.ticket_id)
    assert held is not None and held.state is TicketState.CLAIMED
    other = replace(switch, start_id=str(uuid4()))
    assert not await store.open_start(pending(other), lease, key("bea", "s2"), T0)
    assert await store.answered(key("bea", "s2")) is None  # refused: nothing written
    record = pending(switch, token)
    assert await store.finish_start(record, [], T0)
    done = await store.ticket(bea.ticket_id)
    assert done is not None and done.cancel_reason is CancelReason.SWITCHED_TO_PRACTICE
    assert await store.engagement("id-bea") is None
    assert [k for s, k in await adapter.kinds() if s.startswith(("practice-", "ticket-t-bea"))] == [
        "TicketQueued",
        "TicketCancelled",
        "PracticeStarted",
    ]


async def test_a_draft_is_ours_once_a_pairing_asked_for_it(adapter: Adapter) -> None:
    store = adapter.store
    ann, bea = ticket("ann", Mode.DRAFT), ticket("bea", Mode.DRAFT, at=1)
    for t in (ann, bea):
        await store.enqueue(t, key(t.player_name, "q"))
    plan = replace(pairing(ann, bea), match_id="", draft_id="dr-1", mode=Mode.DRAFT)
    async with store.queue_round(Mode.DRAFT, 10) as queue:
        assert queue is not None
        await queue.claim(plan, T0, uuid4())
    assert await store.paired_draft("dr-1")
    assert not await store.paired_draft("dr-2")


async def test_the_next_start_due_is_the_earliest_pending_lease_whoever_holds_it(
    adapter: Adapter,
) -> None:
    store = adapter.store
    assert await store.next_due_start() is None
    tickets = [ticket(name, at=i) for i, name in enumerate(("ann", "bea", "cy", "dee"))]
    for t in tickets:
        await store.enqueue(t, key(t.player_name, "q"))
    first = await claimed(adapter, *tickets[:2], lease=10)
    second = await claimed(adapter, *tickets[2:], lease=5)
    assert await store.next_due_start() == T0 + timedelta(seconds=5)
    assert await store.finish_start(second, [], T0)
    assert await store.next_due_start() == T0 + timedelta(seconds=10)
    assert await store.finish_start(first, [], T0)
    assert await store.next_due_start() is None
