"""The collection service publishes a player's balance, Trade One and draft on the
player's NATS subjects (``triad.player.<id>.<field>``, services/platform/pushes.py) when
they change: the service as a separate process on real PostgreSQL and NATS, driven
over gRPC and JetStream, heard by a plain NATS subscriber as a gateway would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from uuid import uuid4

import grpc
import nats
import pytest
from google.protobuf.message import Message
from nats.aio.client import Client
from nats.aio.msg import Msg
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb

from devtools.processes import Service
from services.collection.tests.process import collection_service
from services.platform.pushes import player_filter, push_field
from tests.integration.test_collection_service import finished, publish, rid, starter

pytestmark = pytest.mark.integration
if TYPE_CHECKING:
    Stub = collection_pb2_grpc.CollectionServiceAsyncStub

M = TypeVar("M", bound=Message)
MESSAGES: dict[str, type[Message]] = {
    "balance": pb.Balance,
    "trade_prompt": pb.Trade,
    "trade_result": pb.Trade,
    "draft": pb.DraftView,
}


@pytest.fixture
def service(shared_database_url: str, nats_url: str, tmp_path: Path) -> Iterator[Service]:
    with collection_service(shared_database_url, nats_url, tmp_path / "collection.log") as s:
        yield s


@pytest.fixture
async def stub(service: Service) -> AsyncIterator[Stub]:
    async with grpc.aio.insecure_channel(service.address) as channel:
        yield collection_pb2_grpc.CollectionServiceStub(channel)


@pytest.fixture
async def listener(nats_url: str) -> AsyncIterator[Client]:
    client = await nats.connect(nats_url)
    try:
        yield client
    finally:
        await client.close()


class Heard:
    """What one player's subjects carried, parsed, in the order it came."""

    def __init__(self) -> None:
        self.pushes: list[tuple[str, Message]] = []

    async def on(self, msg: Msg) -> None:
        field = push_field(msg.subject)
        self.pushes.append((field, MESSAGES[field].FromString(msg.data)))

    def of(self, field: str, kind: type[M]) -> list[M]:
        return [m for f, m in self.pushes if f == field and isinstance(m, kind)]

    async def first(
        self, field: str, kind: type[M], where: Callable[[M], bool], seconds: float = 5.0
    ) -> M:
        for _ in range(int(seconds / 0.02)):
            found = [m for m in self.of(field, kind) if where(m)]
            if found:
                return found[0]
            await asyncio.sleep(0.02)
        raise AssertionError(f"no {field} push as expected; heard {self.pushes}")


async def hear(client: Client, player: str) -> Heard:
    heard = Heard()
    await client.subscribe(player_filter(player), cb=heard.on)
    await client.flush()
    return heard


def player() -> str:
    return str(uuid4())


async def test_a_players_balance_is_pushed_when_coins_are_granted_and_spent(
    stub: Stub, listener: Client
) -> None:
    ann = player()
    heard = await hear(listener, ann)
    await starter(stub, ann)
    granted = await heard.first("balance", pb.Balance, lambda m: m.coins == 300)
    assert granted.update_time.seconds > 0
    await stub.SpendCurrency(
        c.CollectionServiceSpendCurrencyRequest(
            request_id=rid(),
            player_id=ann,
            amount=100,
            reason=pb.CURRENCY_REASON_BOOSTER_PURCHASE,
        )
    )
    await heard.first("balance", pb.Balance, lambda m: m.coins == 200)
    assert heard.of("trade_prompt", pb.Trade) == [] and heard.of("draft", pb.DraftView) == []


async def test_trade_one_prompts_both_players_and_pushes_its_result_once(
    stub: Stub, listener: Client, nats_url: str
) -> None:
    winner, loser, match_id = player(), player(), str(uuid4())
    heard = {p: await hear(listener, p) for p in (winner, loser)}
    decks: dict[str, list[str]] = {}
    for p in (winner, loser):
        decks[p] = [x.copy_id for x in await starter(stub, p)][:5]
        await stub.LockCopies(
            c.CollectionServiceLockCopiesRequest(
                request_id=rid(),
                player_id=p,
                copy_ids=decks[p],
                holder=pb.LockHolder(match_id=match_id),
            )
        )
    await publish(nats_url, [(str(uuid4()), match_id, finished(match_id, winner, loser, decks))])

    # The consumer may read the stream's earlier MatchFinished events first.
    prompt = await heard[winner].first(
        "trade_prompt", pb.Trade, lambda m: m.match_id == match_id, seconds=30
    )
    notice = await heard[loser].first("trade_prompt", pb.Trade, lambda m: m.match_id == match_id)
    assert prompt.my_role == pb.TRADE_ROLE_CHOOSER
    assert prompt.status == pb.TRADE_STATUS_AWAITING_CHOICE
    assert [x.copy_id for x in prompt.offered_copies] == decks[loser]
    assert notice.my_role == pb.TRADE_ROLE_GIVER and notice.trade_id == prompt.trade_id
    pending = await stub.GetPendingTrade(
        c.CollectionServiceGetPendingTradeRequest(player_id=winner)
    )
    assert pending.trade == prompt  # the push is what the service answers

    wanted = decks[loser][2]
    await stub.ChooseTradeCard(
        c.CollectionServiceChooseTradeCardRequest(
            request_id=rid(), trade_id=prompt.trade_id, player_id=winner, copy_id=wanted
        )
    )
    for p, role in ((winner, pb.TRADE_ROLE_CHOOSER), (loser, pb.TRADE_ROLE_GIVER)):
        result = await heard[p].first(
            "trade_result", pb.Trade, lambda m: m.trade_id == prompt.trade_id
        )
        assert result.status == pb.TRADE_STATUS_COMPLETED and result.my_role == role
        assert result.chosen_copy_id == wanted
    await asyncio.sleep(0.3)  # anything more would have come by now
    for p in (winner, loser):
        assert len(heard[p].of("trade_result", pb.Trade)) == 1  # once per completion
        assert all(
            m.status != pb.TRADE_STATUS_COMPLETED for m in heard[p].of("trade_prompt", pb.Trade)
        )


async def test_a_draft_is_pushed_to_both_seats_and_each_sees_only_their_own_cards(
    stub: Stub, listener: Client
) -> None:
    ann, bob, draft_id = player(), player(), str(uuid4())
    heard = {p: await hear(listener, p) for p in (ann, bob)}
    await stub.CreateDraft(
        c.CollectionServiceCreateDraftRequest(
            request_id=rid(),
            draft_id=draft_id,
            pairing_id=str(uuid4()),
            participants=[
                pb.PlayerRef(player_id=p, player_name=n) for p, n in ((ann, "Ann"), (bob, "Bob"))
            ],
        )
    )
    opened = await heard[ann].first("draft", pb.DraftView, lambda m: m.draft_id == draft_id)
    assert opened.status == pb.DRAFT_STATUS_PICKING and opened.opponent_name == "Bob"
    seen = await heard[bob].first("draft", pb.DraftView, lambda m: m.draft_id == draft_id)
    assert seen.opponent_name == "Ann"

    await stub.RevealDraftCards(
        c.CollectionServiceRevealDraftCardsRequest(
            request_id=rid(), draft_id=draft_id, player_id=ann, booster_index=0
        )
    )
    mine = await heard[ann].first("draft", pb.DraftView, lambda m: m.version > opened.version)
    assert all(s.HasField("revealed") for s in mine.boosters[0].slots)
    theirs = await heard[bob].first("draft", pb.DraftView, lambda m: m.version == mine.version)
    assert not any(s.HasField("revealed") for b in theirs.boosters for s in b.slots)
    current = await stub.GetDraft(
        c.CollectionServiceGetDraftRequest(draft_id=draft_id, player_id=ann)
    )
    assert current.draft == mine
