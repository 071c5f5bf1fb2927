"""The match service pushes each player their own view of every committed version on
``triad.player.<player_id>.match_view`` (issue 18): the service as a separate process
on real PostgreSQL and a real NATS server, driven over gRPC, heard as a gateway hears
it (one subscription to ``triad.player.<player_id>.>`` per player)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import grpc
import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from devtools.match_client import create_request
from devtools.processes import Service, free_port
from services.platform.pushes import player_filter, subject

pytestmark = pytest.mark.integration
WAIT_SECONDS = 10.0


@pytest.fixture
def match_service(shared_database_url: str, nats_url: str, tmp_path: Path) -> Iterator[Service]:
    port = free_port()
    service = Service(
        "services.match.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_MATCH_SCHEMA": f"match_{uuid4().hex[:12]}",
            "TRIAD_MATCH_PORT": str(port),
            "TRIAD_MATCH_METRICS_PORT": "0",
            "TRIAD_TIMER_POLL_SECONDS": "0.02",
        },
        port,
        tmp_path / "match.log",
    )
    service.start()
    yield service
    assert service.stop() == 0, service.log.read_text()[-2000:]


@pytest.fixture
async def stub(match_service: Service) -> AsyncIterator[match_pb2_grpc.MatchServiceAsyncStub]:
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)


@pytest.fixture
async def client(nats_url: str) -> AsyncIterator[Client]:
    connection = await nats.connect(nats_url)
    yield connection
    await connection.close()


class Heard:
    """What one player's subscription receives, as a gateway session would."""

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.messages: list[Msg] = []
        self.arrived = asyncio.Event()

    async def hear(self, message: Msg) -> None:
        self.messages.append(message)
        self.arrived.set()

    def views(self) -> list[pb.MatchView]:
        return [pb.MatchView.FromString(msg.data) for msg in self.messages]

    async def view_at(self, version: int) -> pb.MatchView:
        """The first view pushed at ``version`` or later (waits for it)."""
        async with asyncio.timeout(WAIT_SECONDS):
            while True:
                found = [v for v in self.views() if v.version >= version]
                if found:
                    return found[0]
                self.arrived.clear()
                await self.arrived.wait()


async def listen(client: Client, *players: str) -> list[Heard]:
    heard = [Heard(p) for p in players]
    for h in heard:
        await client.subscribe(player_filter(h.player_id), cb=h.hear)
    await client.flush()  # subscribed before anything is published
    return heard


async def get_view(
    stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str, player: str
) -> pb.MatchView:
    request = m.MatchServiceGetViewRequest(match_id=match_id, player_id=player)
    return (await stub.GetView(request)).view


def without_server_time(view: pb.MatchView) -> pb.MatchView:
    copy = pb.MatchView()
    copy.CopyFrom(view)
    copy.ClearField("server_time")
    return copy


async def test_a_placement_pushes_both_players_their_own_view_of_the_new_version(
    stub: match_pb2_grpc.MatchServiceAsyncStub, client: Client
) -> None:
    match_id = str(uuid4())
    players = (f"ann-{uuid4().hex[:8]}", f"bea-{uuid4().hex[:8]}")
    ann, bea = await listen(client, *players)
    create = create_request(match_id, pb.VISIBILITY_CLOSED, players)
    await stub.CreateMatch(create)
    for heard in (ann, bea):
        created = await heard.view_at(1)
        assert created.match_id == match_id and created.version == 1
        assert [msg.subject for msg in heard.messages] == [subject(heard.player_id, "match_view")]

    first = await get_view(stub, match_id, players[0])
    mover, other = (ann, bea) if first.turn_seat == first.my_seat else (bea, ann)
    hand = (await get_view(stub, match_id, mover.player_id)).my_hand
    card = hand[0].card.card_id
    reply = await stub.PlaceCard(
        m.MatchServicePlaceCardRequest(
            request_id="r1", match_id=match_id, player_id=mover.player_id, card_id=card, cell=4
        )
    )
    assert reply.view.version == 2
    for heard in (mover, other):
        pushed = await heard.view_at(2)
        assert pushed.version == 2
        current = await get_view(stub, match_id, heard.player_id)
        assert without_server_time(pushed) == without_server_time(current)
    assert (await mover.view_at(2)) == reply.view  # the reply is the pushed view itself

    # Closed: the opponent sees the placed card on the board and four hidden slots;
    # no byte of their push names a card still in the mover's hand.
    seen_by_other = await other.view_at(2)
    assert [c.card.card.card_id for c in seen_by_other.board if c.HasField("card")] == [card]
    assert [s.WhichOneof("slot") for s in seen_by_other.opponent_hand] == ["hidden"] * 4
    still_hidden = {c.card.card_id for c in hand} - {card}
    raw = seen_by_other.SerializeToString()
    assert len(still_hidden) == 4 and not any(c.encode() in raw for c in still_hidden)
    assert len(mover.views()) == len(other.views()) == 2  # one push per seat per version


async def test_a_bot_seat_gets_no_push_and_its_moves_reach_the_human(
    stub: match_pb2_grpc.MatchServiceAsyncStub, client: Client
) -> None:
    match_id = str(uuid4())
    players = (f"cai-{uuid4().hex[:8]}", f"bot-{uuid4().hex[:8]}")
    human, bot = await listen(client, *players)
    await stub.CreateMatch(create_request(match_id, pb.VISIBILITY_ALL_OPEN, players, bot_b=True))
    view = await human.view_at(1)
    while view.turn_seat != view.my_seat:  # the bot moves first: its timer, then a push
        view = await human.view_at(view.version + 1)
    reply = await stub.PlaceCard(
        m.MatchServicePlaceCardRequest(
            request_id="h1",
            match_id=match_id,
            player_id=players[0],
            card_id=view.my_hand[0].card.card_id,
            cell=next(c.index for c in view.board if c.HasField("empty")),
        )
    )
    answered = await human.view_at(reply.view.version + 1)  # the bot's move, pushed
    assert answered.last_placement.seat != view.my_seat
    assert answered.turn_seat == view.my_seat
    await client.flush()
    assert bot.messages == []


async def test_a_restarted_service_pushes_the_current_view_of_each_match_in_progress(
    match_service: Service, client: Client
) -> None:
    games = [(str(uuid4()), (f"dov-{uuid4().hex[:8]}", f"eli-{uuid4().hex[:8]}")) for _ in "ab"]
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        for match_id, players in games:
            await stub.CreateMatch(create_request(match_id, pb.VISIBILITY_THREE_OPEN, players))
        over, players = games[1]
        await stub.Forfeit(
            m.MatchServiceForfeitRequest(request_id="f", match_id=over, player_id=players[0])
        )
    match_service.kill()  # as a crash between a commit and its push
    heard = await listen(client, *games[0][1], *games[1][1])
    match_service.start()
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        for player in heard[:2]:
            pushed = await player.view_at(1)
            current = await get_view(stub, games[0][0], player.player_id)
            assert without_server_time(pushed) == without_server_time(current)
    await client.flush()
    await asyncio.sleep(0.2)
    assert all(player.messages == [] for player in heard[2:])  # a finished match: nothing
