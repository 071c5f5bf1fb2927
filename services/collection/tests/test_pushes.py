"""A player's pushes (server/pushes.py), on both repository adapters: what each notice
line publishes, and how the publisher works through the notices it heard. The notices
themselves come from PostgreSQL triggers (schema.py): the process test
tests/integration/test_collection_pushes.py follows them end to end over NATS."""

from __future__ import annotations

import asyncio

from triad.v1 import common_pb2 as pb

from services.collection import handlers_drafts, handlers_trades
from services.collection.domain import trade
from services.collection.handlers import Context
from services.collection.server.pushes import Change, Changed, Publisher
from services.collection.tests.helpers import key, starter
from services.collection.tests.test_drafts import start as start_draft
from services.collection.tests.test_trades import ranked_match, settle
from services.platform.pushes import RecordedPushes


def test_a_notice_line_names_the_player_and_what_changed() -> None:
    assert Change.of("p1", "") == Change("p1", Changed.PLAYER)
    assert Change.of("p1", "trade:t1") == Change("p1", Changed.TRADE, "t1")
    assert Change.of("p1", "trade:t1:completed") == Change("p1", Changed.TRADE_COMPLETED, "t1")
    assert Change.of("p1", "draft:d1") == Change("p1", Changed.DRAFT, "d1")
    assert Change.of("p1", "7") is None  # a version, as other services' notices carry
    assert Change.of("p1", "trade:") is None
    assert Change.of("", "") is None


async def heard(ctx: Context, *lines: str) -> RecordedPushes:
    """What the publisher sends for ``lines`` (``<key>[:<rest>]``), heard at once."""
    sent = RecordedPushes()
    publisher = Publisher(ctx, sent)
    for line in lines:
        publisher.hear(*line.partition(":")[::2])
    stop = asyncio.Event()
    running = asyncio.create_task(publisher.run(stop))
    for _ in range(200):
        await asyncio.sleep(0.005)
        if not publisher._waiting:
            break
    stop.set()
    await asyncio.wait_for(running, 1)
    return sent


async def test_a_players_notice_publishes_their_balance(ctx: Context) -> None:
    await starter(ctx, "ann")
    sent = await heard(ctx, "ann")
    assert [(p, f) for p, f, _ in sent.sent] == [("ann", "balance")]
    balance = sent.of("ann", "balance")[0]
    assert isinstance(balance, pb.Balance) and balance.coins == 300


async def test_trade_one_prompts_both_parties_and_its_completion_publishes_the_result(
    ctx: Context,
) -> None:
    await settle(ctx, await ranked_match(ctx, "m1", "win", "lose"))
    trade_id = trade.trade_id_for("m1")
    opened = await heard(ctx, f"win:trade:{trade_id}", f"lose:trade:{trade_id}")
    prompt, notice = opened.of("win", "trade_prompt")[0], opened.of("lose", "trade_prompt")[0]
    assert isinstance(prompt, pb.Trade) and isinstance(notice, pb.Trade)
    assert prompt.my_role == pb.TRADE_ROLE_CHOOSER and notice.my_role == pb.TRADE_ROLE_GIVER
    assert prompt.status == pb.TRADE_STATUS_AWAITING_CHOICE and prompt.trade_id == trade_id

    wanted = prompt.offered_copies[0].copy_id
    await handlers_trades.choose_card(ctx, key("win", "pick"), trade_id, "win", wanted)
    # The choice's transaction announces the trade twice: the change that completed it,
    # and another; only the completion publishes, the result, once.
    done = await heard(ctx, f"win:trade:{trade_id}", f"win:trade:{trade_id}:completed")
    assert [f for _, f, _ in done.sent] == ["trade_result"]
    result = done.of("win", "trade_result")[0]
    assert isinstance(result, pb.Trade)
    assert result.status == pb.TRADE_STATUS_COMPLETED and result.chosen_copy_id == wanted


async def test_a_draft_notice_publishes_that_draft_as_the_player_sees_it(ctx: Context) -> None:
    await start_draft(ctx)
    await handlers_drafts.reveal(ctx, key("ann", "r0"), "d1", "ann", 0, [])
    sent = await heard(ctx, "ann:draft:d1", "bea:draft:d1")
    mine, theirs = sent.of("ann", "draft")[0], sent.of("bea", "draft")[0]
    assert isinstance(mine, pb.DraftView) and isinstance(theirs, pb.DraftView)
    assert mine.opponent_name == "Bea" and theirs.opponent_name == "Ann"
    assert all(s.HasField("revealed") for s in mine.boosters[0].slots)
    assert not any(s.HasField("revealed") for b in theirs.boosters for s in b.slots)


async def test_notices_are_published_in_the_order_heard_a_repeated_one_once(
    ctx: Context,
) -> None:
    for player in ("ann", "bea"):
        await starter(ctx, player)
    sent = await heard(ctx, "ann", "bea", "ann", "bea:trade:nowhere", "ann")
    assert [(p, f) for p, f, _ in sent.sent] == [("ann", "balance"), ("bea", "balance")]


async def test_a_notice_that_cannot_be_read_is_skipped_and_the_next_ones_published(
    ctx: Context,
) -> None:
    await starter(ctx, "ann")
    sent = await heard(ctx, "ann:draft:nowhere", "ann:trade:nowhere:completed", "ann")
    assert [(p, f) for p, f, _ in sent.sent] == [("ann", "balance")]


async def test_the_publisher_stops_when_asked_while_nothing_is_heard(ctx: Context) -> None:
    stop = asyncio.Event()
    running = asyncio.create_task(Publisher(ctx, RecordedPushes()).run(stop))
    await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(running, 1)
