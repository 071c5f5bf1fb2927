"""The rating service tells each player of their rating change on their NATS subject.

The service runs as its own process on real PostgreSQL and NATS. The test subscribes to
``triad.player.<id>.>`` as a gateway holding the player's session would, publishes the
results the service consumes (MatchFinished as the match service's relay publishes it,
DraftForfeited as the collection service's) and reads what the players are told: one
``rating_change`` per change, the very RatingChange the service's reads show.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import grpc
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import rating_pb2 as r
from triad.v1 import rating_pb2_grpc

from devtools.processes import Service, free_port
from services.platform import bus, pushes
from services.platform.bus import EventStream
from services.platform.settings import Settings
from services.rating.domain import WIN, FinishedGame
from services.rating.tests.builders import bot, envelope, event_id, game

pytestmark = pytest.mark.integration
RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)
DRAFT = pb.LadderKey(ladder=pb.LADDER_DRAFT, season=0)


@pytest.fixture
def stream() -> EventStream:
    """A namespace of this test's (TRIAD_NATS_NAMESPACE): its own stream and subjects."""
    return EventStream.of(Settings(namespace=f"test{uuid4().hex[:12]}"))


@pytest.fixture
def rating_service(
    shared_database_url: str, nats_url: str, tmp_path: Path, stream: EventStream
) -> Iterator[Service]:
    port = free_port()
    service = Service(
        "services.rating.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_RATING_SCHEMA": f"rating_{uuid4().hex[:12]}",
            "TRIAD_RATING_PORT": str(port),
            "TRIAD_RATING_METRICS_PORT": str(free_port()),
            "TRIAD_RATING_CONSUMER": f"rating_{uuid4().hex[:8]}",
            "TRIAD_NATS_NAMESPACE": stream.namespace,
        },
        port,
        tmp_path / "rating.log",
    )
    service.start()
    yield service
    assert service.stop() == 0, service.log.read_text()[-2000:]


@pytest.fixture
async def nc(nats_url: str, stream: EventStream) -> AsyncIterator[Client]:
    client = await bus.connect(nats_url, name="test-rating-pushes")
    await bus.ensure_stream(client.jetstream(), stream)
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            await client.jetstream().delete_stream(stream.name)
        await client.close()


@pytest.fixture
async def stub(rating_service: Service) -> AsyncIterator[rating_pb2_grpc.RatingServiceAsyncStub]:
    async with grpc.aio.insecure_channel(rating_service.address) as channel:
        yield rating_pb2_grpc.RatingServiceStub(channel)


class Heard:
    """What one player's session would hear: every push on ``triad.player.<id>.>``."""

    def __init__(self) -> None:
        self.messages: asyncio.Queue[Msg] = asyncio.Queue()

    @classmethod
    async def on(cls, nc: Client, player_id: str, stream: EventStream) -> Heard:
        heard = cls()
        prefix = pushes.player_prefix(Settings(namespace=stream.namespace))  # the test's
        await nc.subscribe(pushes.player_filter(player_id, prefix), cb=heard.messages.put)
        await nc.flush()
        return heard

    async def change(self) -> pb.RatingChange:
        msg = await asyncio.wait_for(self.messages.get(), 15)
        assert msg.subject.endswith(".rating_change"), msg.subject
        return pb.RatingChange.FromString(msg.data)

    async def nothing_more(self, seconds: float = 1.0) -> None:
        await asyncio.sleep(seconds)
        assert self.messages.empty(), f"{self.messages.qsize()} more pushes"


async def publish(nc: Client, stream: EventStream, g: FinishedGame, msg_id: str = "") -> None:
    await nc.jetstream().publish(
        stream.subject(f"match-{g.match_id}", "triad.v1.MatchFinished"),
        envelope(g).SerializeToString(),
        stream=stream.name,
        headers={bus.MSG_ID: msg_id or str(event_id(g.match_id))},
    )


async def newest_change(
    stub: rating_pb2_grpc.RatingServiceAsyncStub, player: str, ladder: pb.LadderKey
) -> pb.RatingChange:
    page = await stub.ListRatingHistory(
        r.RatingServiceListRatingHistoryRequest(player_id=player, ladder=ladder, page_size=1),
        timeout=5,
    )
    return page.changes[0]


async def test_each_player_of_a_rated_match_hears_their_change_once(
    stub: rating_pb2_grpc.RatingServiceAsyncStub, nc: Client, stream: EventStream
) -> None:
    tag = uuid4().hex[:6]
    ann, bea = f"ann-{tag}", f"bea-{tag}"
    heard = {p: await Heard.on(nc, p, stream) for p in (ann, bea)}
    first = game(f"m1-{tag}", ann, bea, WIN)
    # The same event three times past JetStream's duplicate window, and a game with a
    # bot that never counts: one change each, told once.
    for _ in range(3):
        await publish(nc, stream, first, msg_id=str(uuid4()))
    await publish(nc, stream, game(f"m2-{tag}", ann, bot(f"bot-{tag}"), WIN))

    to_ann, to_bea = await heard[ann].change(), await heard[bea].change()
    assert (to_ann.match_id, to_ann.rating_before, to_ann.rating_after, to_ann.delta) == (
        f"m1-{tag}",
        1500,
        1520,
        20,
    )
    assert (to_ann.opponent_name, to_ann.games_after, to_ann.k_factor) == (f"name-{bea}", 1, 40)
    assert (to_ann.ladder, to_ann.actual_score) == (RANKED, 1.0)
    assert (to_bea.match_id, to_bea.delta, to_bea.opponent_name) == (
        f"m1-{tag}",
        -20,
        f"name-{ann}",
    )
    # What a player is told is what the service's reads show, byte for byte.
    assert to_ann == await newest_change(stub, ann, RANKED)
    assert to_bea == await newest_change(stub, bea, RANKED)
    await heard[ann].nothing_more()
    await heard[bea].nothing_more(0)


async def test_a_draft_forfeited_before_its_match_tells_both_players_and_names_the_draft(
    stub: rating_pb2_grpc.RatingServiceAsyncStub, nc: Client, stream: EventStream
) -> None:
    tag = uuid4().hex[:6]
    ann, bea, draft = f"ann-{tag}", f"bea-{tag}", f"draft-{tag}"
    heard = {p: await Heard.on(nc, p, stream) for p in (ann, bea)}
    forfeited = ev.DraftForfeited(
        draft_id=draft,
        ladder=DRAFT,
        forfeiting_player_ids=[ann],
        winner_player_id=bea,
        players=[pb.PlayerRef(player_id=p, player_name=f"name-{p}") for p in (ann, bea)],
    )
    await nc.jetstream().publish(
        stream.subject(f"draft-{draft}", "triad.v1.DraftForfeited"),
        ev.EventEnvelope(
            event_id=str(uuid4()),
            stream_id=f"draft-{draft}",
            version=3,
            event_type="triad.v1.DraftForfeited",
            schema_version=1,
            payload=forfeited.SerializeToString(),
        ).SerializeToString(),
        stream=stream.name,
    )
    to_ann, to_bea = await heard[ann].change(), await heard[bea].change()
    assert (to_ann.draft_id, to_ann.match_id, to_ann.delta, to_ann.actual_score) == (
        draft,
        "",
        -20,
        0.0,
    )
    assert (to_bea.draft_id, to_bea.delta, to_bea.ladder) == (draft, 20, DRAFT)
    assert to_ann == await newest_change(stub, ann, DRAFT)
