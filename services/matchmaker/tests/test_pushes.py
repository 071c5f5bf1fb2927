"""What players are told of their tickets, tables and challenges, in memory: each change
once, after it committed, as the QueueStatus and Table messages their session shows; a
waiting ticket only when a pairing round sees what its status shows change."""

from __future__ import annotations

from dataclasses import replace

import pytest
from triad.v1 import common_pb2 as pb

from services.matchmaker import (
    handlers_find,
    handlers_lobby,
    handlers_pairing,
    handlers_queues,
    handlers_status,
)
from services.matchmaker.domain import (
    Mode,
    RuleSet,
    TableFilter,
    TableSettings,
    TableState,
    TradeRule,
    Visibility,
)
from services.matchmaker.handlers import Context
from services.matchmaker.pushes import PlayerUpdates
from services.matchmaker.tests.conftest import DECK, Clock, Fakes, player
from services.platform.pushes import RecordedPushes

TRADING = TableSettings(RuleSet(Visibility.CLOSED, True, True, True, trade=TradeRule.ONE))


@pytest.fixture
def told() -> RecordedPushes:
    return RecordedPushes()


@pytest.fixture
def tctx(ctx: Context, told: RecordedPushes) -> Context:
    """The in-memory handlers, telling ``told``."""
    return replace(ctx, pushes=PlayerUpdates(told))


def statuses(told: RecordedPushes, name: str) -> list[pb.QueueStatus]:
    found = told.of(f"id-{name}", "queue_status")
    assert all(isinstance(m, pb.QueueStatus) for m in found)
    return [m for m in found if isinstance(m, pb.QueueStatus)]


def tables(told: RecordedPushes, name: str) -> list[pb.Table]:
    found = told.of(f"id-{name}", "table")
    return [m for m in found if isinstance(m, pb.Table)]


def shown(status: pb.QueueStatus) -> tuple[int, int, int]:
    return (status.ticket.status, status.rating_window, status.queue_length)


async def test_a_ticket_created_and_cancelled_is_told_each_once(
    tctx: Context, told: RecordedPushes
) -> None:
    ann = player("ann")
    ticket = await handlers_queues.enqueue(tctx, "q", ann, Mode.RANKED, DECK)
    await handlers_queues.enqueue(tctx, "q", ann, Mode.RANKED, DECK)  # a retry: no change
    (queued,) = statuses(told, "ann")
    assert queued.ticket.ticket_id == ticket.ticket_id
    assert shown(queued) == (pb.TICKET_STATUS_QUEUED, 50, 1) and queued.practice_available
    await handlers_queues.cancel(tctx, "c", ann.player_id, ticket.ticket_id)
    await handlers_queues.cancel(tctx, "c2", ann.player_id, ticket.ticket_id)  # no change
    _, cancelled = statuses(told, "ann")
    assert cancelled.ticket.status == pb.TICKET_STATUS_CANCELLED
    assert not cancelled.practice_available and not cancelled.ticket.cancel_message
    assert [p for p, _, _ in told.sent] == ["id-ann", "id-ann"]


async def test_both_players_of_a_pairing_are_told_their_match(
    tctx: Context, told: RecordedPushes
) -> None:
    for name in ("ann", "bea"):
        await handlers_queues.enqueue(tctx, "q", player(name), Mode.UNRANKED, DECK)
    assert await handlers_pairing.pair_all(tctx)
    ann, bea = statuses(told, "ann")[-1], statuses(told, "bea")[-1]
    assert ann.ticket.status == bea.ticket.status == pb.TICKET_STATUS_PAIRED
    assert ann.ticket.match_id and ann.ticket.match_id == bea.ticket.match_id
    assert not ann.practice_available


async def test_a_draft_pairing_tells_each_player_the_draft(
    tctx: Context, told: RecordedPushes, fakes: Fakes
) -> None:
    for name in ("hal", "ivy"):
        await handlers_queues.enqueue(tctx, "q", player(name), Mode.DRAFT, None)
    assert await handlers_pairing.pair_all(tctx)
    ((draft_id, _),) = fakes.drafts.created.items()
    for name in ("hal", "ivy"):
        paired = statuses(told, name)[-1]
        assert paired.ticket.status == pb.TICKET_STATUS_PAIRED
        assert (paired.ticket.draft_id, paired.ticket.match_id) == (draft_id, "")


async def test_a_server_cancel_says_why_and_the_innocent_opponent_hears_it_waits_again(
    tctx: Context, told: RecordedPushes, fakes: Fakes
) -> None:
    for name in ("mo", "ned"):
        await handlers_queues.enqueue(tctx, "q", player(name), Mode.UNRANKED, DECK)
    fakes.matches.active["id-mo"] = "m-elsewhere"  # Mo started a match meanwhile
    await handlers_pairing.pair_all(tctx)
    mo, ned = statuses(told, "mo")[-1], statuses(told, "ned")[-1]
    assert mo.ticket.status == pb.TICKET_STATUS_CANCELLED
    assert "your match could not start" in mo.ticket.cancel_message
    assert ned.ticket.status == pb.TICKET_STATUS_QUEUED and ned.practice_available


async def test_switching_to_practice_tells_the_ticket_cancelled(
    tctx: Context, told: RecordedPushes
) -> None:
    lu = player("lu")
    ticket = await handlers_queues.enqueue(tctx, "q", lu, Mode.UNRANKED, DECK)
    await handlers_queues.switch_to_practice(tctx, "s", lu, ticket.ticket_id, None, None)
    assert statuses(told, "lu")[-1].ticket.status == pb.TICKET_STATUS_CANCELLED


async def test_a_round_that_read_a_ticket_waiting_does_not_tell_it_queued_after_it_ended(
    tctx: Context, told: RecordedPushes, fakes: Fakes, clock: Clock
) -> None:
    """A pairing round reads the queue, the player switches to practice, then the round
    tells the tickets it left waiting: the ended ticket must not hear "queued" last (the
    browser showed the queue again after the practice match)."""
    fakes.ratings.known.update({"id-ann": 1500, "id-cid": 2100})
    ann = player("ann")
    ticket = await handlers_queues.enqueue(tctx, "q", ann, Mode.RANKED, DECK)
    await handlers_queues.enqueue(tctx, "q", player("cid"), Mode.RANKED, DECK)
    async with tctx.store.queue_round(Mode.RANKED, 10) as queue:  # the round reads
        assert queue is not None
        read = list(queue.tickets)
    clock.advance(5)  # what Ann's status shows has changed (a wider window)
    await handlers_queues.switch_to_practice(tctx, "s", ann, ticket.ticket_id, None, None)
    await handlers_status.tell_waiting(tctx, Mode.RANKED, read)  # the round, late
    assert statuses(told, "ann")[-1].ticket.status == pb.TICKET_STATUS_CANCELLED
    assert statuses(told, "cid")[-1].rating_window == 75  # the others are still told
    assert not tctx.shown.ended.get(Mode.RANKED)  # forgotten once the round has passed


async def test_a_waiting_ticket_is_told_by_the_rounds_only_when_what_it_shows_changes(
    tctx: Context, told: RecordedPushes, fakes: Fakes, clock: Clock
) -> None:
    fakes.ratings.known.update({"id-ann": 1500, "id-cid": 2100})
    await handlers_queues.enqueue(tctx, "q", player("ann"), Mode.RANKED, DECK)
    assert [shown(s) for s in statuses(told, "ann")] == [(pb.TICKET_STATUS_QUEUED, 50, 1)]
    await handlers_pairing.pair_all(tctx)
    clock.advance(1)
    await handlers_pairing.pair_all(tctx)
    assert len(statuses(told, "ann")) == 1  # nothing it shows changed: told nothing
    await handlers_queues.enqueue(tctx, "q", player("cid"), Mode.RANKED, DECK)
    await handlers_pairing.pair_all(tctx)
    # The queue grew: Ann hears it at the next round; Cid was told it with his ticket.
    assert [shown(s) for s in statuses(told, "ann")][1:] == [(pb.TICKET_STATUS_QUEUED, 50, 2)]
    assert len(statuses(told, "cid")) == 1
    clock.advance(4)  # Ann waited 5 s: her window widens to 75; Cid's (4 s) does not yet
    await handlers_pairing.pair_all(tctx)
    await handlers_pairing.pair_all(tctx)  # a second round at the same moment: nothing
    assert [shown(s) for s in statuses(told, "ann")][2:] == [(pb.TICKET_STATUS_QUEUED, 75, 2)]
    assert len(statuses(told, "cid")) == 1
    clock.advance(1)
    await handlers_pairing.pair_all(tctx)
    assert [shown(s) for s in statuses(told, "cid")][1:] == [(pb.TICKET_STATUS_QUEUED, 75, 2)]
    assert len(statuses(told, "ann")) == 3
    # A cancelled ticket is told it once, and the rounds forget it.
    (cid,) = {s.ticket.ticket_id for s in statuses(told, "cid")}
    await handlers_queues.cancel(tctx, "c", "id-cid", cid)
    clock.advance(3600)
    await handlers_pairing.pair_all(tctx)
    assert [s.ticket.status for s in statuses(told, "cid")][2:] == [pb.TICKET_STATUS_CANCELLED]
    assert shown(statuses(told, "ann")[-1]) == (pb.TICKET_STATUS_QUEUED, 300, 1)


async def test_the_host_hears_of_each_change_of_their_table(
    tctx: Context, told: RecordedPushes, clock: Clock
) -> None:
    host = player("host")
    table = await handlers_lobby.create_table(tctx, "t", host, TRADING, DECK)
    joined = await handlers_lobby.join_table(tctx, "j", player("guest"), table.table_id, DECK)
    closing = await handlers_lobby.create_table(tctx, "t2", player("kim"), TRADING, DECK)
    await handlers_lobby.close_table(tctx, "c", "id-kim", closing.table_id)
    idle = await handlers_lobby.create_table(tctx, "t3", player("lee"), TRADING, DECK)
    clock.advance(tctx.config.table_ttl_seconds)
    assert await handlers_lobby.expire_tables(tctx)
    opened, started = tables(told, "host")
    assert (opened.table_id, opened.status) == (table.table_id, pb.TABLE_STATUS_OPEN)
    assert (started.status, started.match_id) == (pb.TABLE_STATUS_STARTED, joined.match_id)
    assert [t.status for t in tables(told, "kim")] == [pb.TABLE_STATUS_OPEN, pb.TABLE_STATUS_CLOSED]
    assert [(t.table_id, t.status) for t in tables(told, "lee")] == [
        (idle.table_id, pb.TABLE_STATUS_OPEN),
        (idle.table_id, pb.TABLE_STATUS_EXPIRED),
    ]
    assert tables(told, "guest") == [] and joined.table.state is TableState.STARTED


def challenges(told: RecordedPushes, name: str) -> list[pb.Table]:
    found = told.of(f"id-{name}", "challenge")
    return [m for m in found if isinstance(m, pb.Table)]


async def test_the_challenged_player_hears_of_a_challenge_at_once_and_of_its_end(
    tctx: Context, told: RecordedPushes, clock: Clock, fakes: Fakes
) -> None:
    rival = player("rival")
    accepted = await handlers_lobby.create_table(tctx, "t", player("ann"), TRADING, DECK, rival)
    (made,) = challenges(told, "rival")
    assert (made.table_id, made.status, made.host_name) == (
        accepted.table_id, pb.TABLE_STATUS_OPEN, "ann",
    )  # fmt: skip
    assert made.challenged_player_name == "rival"
    joined = await handlers_lobby.join_table(tctx, "j", rival, accepted.table_id, DECK)
    assert (challenges(told, "rival")[-1].status, challenges(told, "rival")[-1].match_id) == (
        pb.TABLE_STATUS_STARTED, joined.match_id,
    )  # fmt: skip
    del fakes.matches.active[rival.player_id]  # that match ended

    declined = await handlers_lobby.create_table(tctx, "t", player("bea"), TRADING, DECK, rival)
    await handlers_lobby.decline_challenge(tctx, "d", rival, declined.table_id)
    withdrawn = await handlers_lobby.create_table(tctx, "t", player("cid"), TRADING, DECK, rival)
    await handlers_lobby.close_table(tctx, "c", "id-cid", withdrawn.table_id)
    lapsed = await handlers_lobby.create_table(tctx, "t", player("dan"), TRADING, DECK, rival)
    clock.advance(tctx.config.table_ttl_seconds)
    await handlers_lobby.expire_tables(tctx)
    assert [(t.table_id, t.status) for t in challenges(told, "rival")][2:] == [
        (declined.table_id, pb.TABLE_STATUS_OPEN),
        (declined.table_id, pb.TABLE_STATUS_DECLINED),
        (withdrawn.table_id, pb.TABLE_STATUS_OPEN),
        (withdrawn.table_id, pb.TABLE_STATUS_CLOSED),
        (lapsed.table_id, pb.TABLE_STATUS_OPEN),
        (lapsed.table_id, pb.TABLE_STATUS_EXPIRED),
    ]
    # The host of the declined one hears it on their table; nobody else hears a challenge.
    assert [t.status for t in tables(told, "bea")] == [
        pb.TABLE_STATUS_OPEN, pb.TABLE_STATUS_DECLINED,
    ]  # fmt: skip
    assert {p for p, f, _ in told.sent if f == "challenge"} == {"id-rival"}
    public = await handlers_lobby.create_table(tctx, "t", player("eve"), TRADING, DECK)
    await handlers_find.find_game(tctx, "f", player("fay"), TableFilter(), DECK)
    assert [t.status for t in tables(told, "eve")] == [
        pb.TABLE_STATUS_OPEN, pb.TABLE_STATUS_STARTED,
    ]  # fmt: skip
    assert public.challenged_id == "" and challenges(told, "fay") == []
