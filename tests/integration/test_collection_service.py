"""The collection service as a separate process on real PostgreSQL and NATS, over gRPC.

A player's first steps (starter collection, a deck, refusals that name their rule), and
Trade One from MatchFinished events published to JetStream ten times each, out of order:
one trade per match, the chosen copy moves once, every bad choice refused.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import NAMESPACE_URL, uuid4, uuid5

import asyncpg
import grpc
import nats
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from devtools.processes import Service
from services.collection.tests.process import ADMIN, collection_service
from services.platform import bus

pytestmark = pytest.mark.integration
if TYPE_CHECKING:
    Stub = collection_pb2_grpc.CollectionServiceAsyncStub


@pytest.fixture
def service(shared_database_url: str, nats_url: str, tmp_path: Path) -> Iterator[Service]:
    with collection_service(shared_database_url, nats_url, tmp_path / "collection.log") as s:
        yield s


@pytest.fixture
async def stub(service: Service) -> AsyncIterator[Stub]:
    async with grpc.aio.insecure_channel(service.address) as channel:
        yield collection_pb2_grpc.CollectionServiceStub(channel)


def rid() -> str:
    return uuid4().hex


async def starter(stub: Stub, player: str) -> list[pb.OwnedCopy]:
    reply = await stub.GrantStarterCollection(
        c.CollectionServiceGrantStarterCollectionRequest(
            request_id=rid(), player=pb.PlayerRef(player_id=player, player_name=player.title())
        )
    )
    return list(reply.copies)


async def status_of(call: Awaitable[object]) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    return error.value.code()


async def test_catalog_starter_deck_and_refusals_over_grpc(stub: Stub) -> None:
    catalog = await stub.ListCatalog(c.CollectionServiceListCatalogRequest(page_size=500))
    assert catalog.total_size >= 110 and not catalog.next_page_token
    fives = await stub.ListCatalog(
        c.CollectionServiceListCatalogRequest(filter=pb.CatalogFilter(stars=[5]))
    )
    assert fives.total_size and all(x.stars == 5 for x in fives.characters)
    bad = stub.ListCatalog(
        c.CollectionServiceListCatalogRequest(filter=pb.CatalogFilter(stars=[9]))
    )
    assert await status_of(bad) == grpc.StatusCode.INVALID_ARGUMENT

    player = f"ann-{rid()[:8]}"
    pushes: list[c.CollectionServiceWatchPlayerResponse] = []

    async def watch() -> None:
        async for update in stub.WatchPlayer(
            c.CollectionServiceWatchPlayerRequest(player_id=player)
        ):
            pushes.append(update)

    watcher = asyncio.create_task(watch())
    copies = await starter(stub, player)
    ids = [x.copy_id for x in copies]
    saved = await stub.SaveDeck(
        c.CollectionServiceSaveDeckRequest(
            request_id=rid(), player_id=player, name="Main", copy_ids=ids[:5]
        )
    )
    assert saved.deck.violations == [] and list(saved.deck.copy_ids) == ids[:5]
    checked = await stub.ValidateDeck(
        c.CollectionServiceValidateDeckRequest(
            player_id=player, copies=pb.CopySelection(copy_ids=[*ids[:4], ids[0]])
        )
    )
    assert not checked.valid
    # One copy twice is one fact, said once (not also as two of one character).
    assert [v.rule for v in checked.violations] == [pb.DECK_RULE_DISTINCT_COPIES]
    assert all(ids[0] in v.card_ids for v in checked.violations)
    repeated = stub.SaveDeck(
        c.CollectionServiceSaveDeckRequest(
            request_id=rid(), player_id=player, name="Bad", copy_ids=[*ids[:4], ids[0]]
        )
    )
    assert await status_of(repeated) == grpc.StatusCode.INVALID_ARGUMENT
    overspend = stub.SpendCurrency(
        c.CollectionServiceSpendCurrencyRequest(
            request_id=rid(),
            player_id=player,
            amount=10_000,
            reason=pb.CURRENCY_REASON_BOOSTER_PURCHASE,
        )
    )
    assert await status_of(overspend) == grpc.StatusCode.FAILED_PRECONDITION
    balance = await stub.GetBalance(c.CollectionServiceGetBalanceRequest(player_id=player))
    assert balance.balance.coins == 300
    for _ in range(100):  # the push of the starting coins
        if any(p.balance.coins == 300 for p in pushes):
            break
        await asyncio.sleep(0.02)
    watcher.cancel()
    assert any(p.balance.coins == 300 for p in pushes)

    grant = c.CollectionServiceGrantCopiesRequest(
        request_id=rid(), player_id=player, character_ids=["chr-112"], reason="compensation"
    )
    assert await status_of(stub.GrantCopies(grant)) == grpc.StatusCode.PERMISSION_DENIED
    granted = await stub.GrantCopies(grant, metadata=(("authorization", f"Bearer {ADMIN}"),))
    assert [x.character.character_id for x in granted.copies] == ["chr-112"]
    assert granted.copies[0].source == pb.COPY_SOURCE_GRANT


def finished(match_id: str, winner: str, loser: str, decks: dict[str, list[str]]) -> bytes:
    stamp = Timestamp()
    stamp.GetCurrentTime()
    seats = [
        ev.FinishedSeat(
            player=pb.SeatPlayer(seat=seat, player_id=p, player_name=p.title()),
            score=score,
            original_card_ids=decks[p],
        )
        for seat, p, score in ((pb.SEAT_A, winner, 6), (pb.SEAT_B, loser, 4))
    ]
    return ev.MatchFinished(
        match_id=match_id,
        mode=pb.MODE_RANKED,
        rated=True,
        seats=seats,
        outcome=pb.MatchOutcome(
            winner_seat=pb.SEAT_A, reason=pb.FINISH_REASON_BOARD_FULL, finish_time=stamp
        ),
        trade_rule=pb.TRADE_RULE_ONE,
        placement_count=9,
    ).SerializeToString()


async def publish(nats_url: str, deliveries: list[tuple[str, str, bytes]]) -> None:
    """Publish MatchFinished envelopes as the match service's relay would."""
    client = await nats.connect(nats_url)
    try:
        js = client.jetstream()
        stream = bus.EventStream()
        await bus.ensure_stream(js, stream)
        for event_id, match_id, payload in deliveries:
            envelope = ev.EventEnvelope(
                event_id=event_id,
                stream_id=f"match-{match_id}",
                version=10,
                event_type="triad.v1.MatchFinished",
                schema_version=1,
                payload=payload,
            )
            await js.publish(
                stream.subject(envelope.stream_id, envelope.event_type),
                envelope.SerializeToString(),
                headers={bus.MSG_ID: event_id},
            )
    finally:
        await client.drain()


async def test_a_match_finished_ten_times_out_of_order_opens_one_trade_and_moves_one_copy(
    stub: Stub, service: Service, nats_url: str, shared_database_url: str
) -> None:
    tag = rid()[:8]
    matches = {}
    decks: dict[str, list[str]] = {}
    for n in range(3):
        match_id = str(uuid4())
        winner, loser = f"w{n}-{tag}", f"l{n}-{tag}"
        for player in (winner, loser):
            decks[player] = [x.copy_id for x in await starter(stub, player)][:5]
            await stub.LockCopies(
                c.CollectionServiceLockCopiesRequest(
                    request_id=rid(),
                    player_id=player,
                    copy_ids=decks[player],
                    holder=pb.LockHolder(match_id=match_id),
                )
            )
        matches[match_id] = (winner, loser)
    deliveries = []
    for match_id, (winner, loser) in matches.items():
        payload = finished(match_id, winner, loser, decks)
        same = str(uuid5(NAMESPACE_URL, f"{match_id}:finished"))
        # Five redeliveries of the same event, and five copies under fresh event ids
        # (as a relay replaying history past JetStream's duplicate window would send).
        deliveries += [(same, match_id, payload)] * 5
        deliveries += [(str(uuid4()), match_id, payload) for _ in range(5)]
    random.Random(11).shuffle(deliveries)
    await publish(nats_url, deliveries)

    trades = {}
    for _ in range(400):
        for match_id, (winner, _) in matches.items():
            reply = await stub.GetPendingTrade(
                c.CollectionServiceGetPendingTradeRequest(player_id=winner)
            )
            if reply.HasField("trade"):
                trades[match_id] = reply.trade
        if len(trades) == len(matches):
            break
        await asyncio.sleep(0.025)
    assert len(trades) == len(matches)
    await asyncio.sleep(0.5)  # let every delivery land
    conn = await asyncpg.connect(shared_database_url)
    try:
        opened = await conn.fetchval(
            f'SELECT count(*) FROM "{service.env["schema"]}".events '
            "WHERE type = 'triad.v1.TradeOpened'"
        )
    finally:
        await conn.close()
    assert opened == len(matches)

    match_id, (winner, loser) = next(iter(matches.items()))
    trade = trades[match_id]
    assert trade.my_role == pb.TRADE_ROLE_CHOOSER
    assert [x.copy_id for x in trade.offered_copies] == decks[loser]
    blocked = await stub.HasPendingObligations(
        c.CollectionServiceHasPendingObligationsRequest(player_id=loser)
    )
    assert blocked.blocked and blocked.obligations[0].kind == pb.OBLIGATION_KIND_PENDING_TRADE
    wanted = decks[loser][3]

    def choose(player: str, copy_id: str) -> Awaitable[c.CollectionServiceChooseTradeCardResponse]:
        return stub.ChooseTradeCard(
            c.CollectionServiceChooseTradeCardRequest(
                request_id=rid(), trade_id=trade.trade_id, player_id=player, copy_id=copy_id
            )
        )

    assert await status_of(choose(loser, wanted)) == grpc.StatusCode.PERMISSION_DENIED
    assert await status_of(choose("stranger", wanted)) == grpc.StatusCode.NOT_FOUND
    assert await status_of(choose(winner, decks[winner][0])) == grpc.StatusCode.INVALID_ARGUMENT
    done = await choose(winner, wanted)
    assert done.trade.status == pb.TRADE_STATUS_COMPLETED
    assert await status_of(choose(winner, decks[loser][0])) == grpc.StatusCode.FAILED_PRECONDITION

    mine = await stub.GetCopy(c.CollectionServiceGetCopyRequest(player_id=winner, copy_id=wanted))
    assert mine.entry.copy.source == pb.COPY_SOURCE_TRADE and not mine.entry.HasField("lock")
    gone = stub.GetCopy(c.CollectionServiceGetCopyRequest(player_id=loser, copy_id=wanted))
    assert await status_of(gone) == grpc.StatusCode.NOT_FOUND
    free = await stub.HasPendingObligations(
        c.CollectionServiceHasPendingObligationsRequest(player_id=loser)
    )
    assert not free.blocked
