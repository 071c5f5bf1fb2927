"""The matchmaker tells players of their tickets and tables on their NATS subjects.

Two matchmaker replicas share one schema beside the real match service, on PostgreSQL
and NATS (no collection or rating service: starter decks, everyone at 1500). The test
subscribes to ``triad.player.<id>.>`` as a gateway holding the player's session would,
acts through the replicas' gRPC API, and reads what the players are told: their
ticket's QueueStatus when it is queued, cancelled and paired, and while it waits when
its window widens; a host's Table when it opens and when a guest starts its match.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any
from uuid import uuid4

import grpc
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc, matchmaker_pb2_grpc
from triad.v1 import matchmaker_pb2 as mm

from services.platform import bus, pushes
from tests.integration.test_matchmaker_process import match_and_two_matchmakers

pytestmark = pytest.mark.integration
Stubs = tuple[Any, Any, Any]  # match, matchmaker replica one, replica two
QUEUED, PAIRED, CANCELLED = (
    pb.TICKET_STATUS_QUEUED,
    pb.TICKET_STATUS_PAIRED,
    pb.TICKET_STATUS_CANCELLED,
)


@pytest.fixture(scope="module")
def replicas(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, str]]:
    """The match service and two matchmaker replicas; their addresses."""
    with match_and_two_matchmakers(
        shared_database_url, nats_url, tmp_path_factory.mktemp("matchmaker-pushes"), "0.1"
    ) as addresses:
        yield addresses


@pytest.fixture
async def stubs(replicas: tuple[str, str, str]) -> AsyncIterator[Stubs]:
    async with (
        grpc.aio.insecure_channel(replicas[0]) as match,
        grpc.aio.insecure_channel(replicas[1]) as one,
        grpc.aio.insecure_channel(replicas[2]) as two,
    ):
        yield (
            match_pb2_grpc.MatchServiceStub(match),
            matchmaker_pb2_grpc.MatchmakerServiceStub(one),
            matchmaker_pb2_grpc.MatchmakerServiceStub(two),
        )


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    client = await bus.connect(nats_url, name="test-matchmaker-pushes")
    try:
        yield client
    finally:
        await client.close()


class Heard:
    """What one player's session would hear of the matchmaker: the pushes on
    ``triad.player.<id>.>`` it sends (the match service's views of the match that
    starts travel there too, and are not this test's)."""

    FIELDS = ("queue_status", "table")

    def __init__(self) -> None:
        self.messages: asyncio.Queue[Msg] = asyncio.Queue()

    @classmethod
    async def on(cls, nc: Client, player_id: str) -> Heard:
        heard = cls()
        await nc.subscribe(pushes.player_filter(player_id), cb=heard._heard)
        await nc.flush()
        return heard

    async def _heard(self, msg: Msg) -> None:
        if pushes.push_field(msg.subject) in self.FIELDS:
            await self.messages.put(msg)

    async def next(self, field: str, timeout: float = 15) -> bytes:
        msg = await asyncio.wait_for(self.messages.get(), timeout)
        assert pushes.push_field(msg.subject) == field, msg.subject
        return msg.data

    async def status(self, timeout: float = 15) -> pb.QueueStatus:
        return pb.QueueStatus.FromString(await self.next("queue_status", timeout))

    async def status_until(self, done: Any, timeout: float = 15) -> list[pb.QueueStatus]:
        """Statuses heard up to the first that ``done`` accepts (included)."""
        heard = [await self.status(timeout)]
        while not done(heard[-1]):
            heard.append(await self.status(timeout))
        return heard

    async def table(self) -> pb.Table:
        return pb.Table.FromString(await self.next("table"))

    async def nothing_more(self, seconds: float = 0.5) -> None:
        await asyncio.sleep(seconds)
        assert self.messages.empty(), f"{self.messages.qsize()} more pushes"


def ref(name: str) -> pb.PlayerRef:
    return pb.PlayerRef(player_id=f"id-{name}", player_name=name)


def enqueue(name: str, mode: int) -> mm.MatchmakerServiceEnqueueRequest:
    return mm.MatchmakerServiceEnqueueRequest(
        request_id=f"q-{name}",
        player=ref(name),
        mode=mode,  # type: ignore[arg-type]
        deck=pb.DeckChoice(deck_id="main"),
    )


async def test_a_queued_ticket_is_told_queued_then_cancelled(stubs: Stubs, nc: Client) -> None:
    _, one, two = stubs
    ann = f"ann-{uuid4().hex[:6]}"
    heard = await Heard.on(nc, f"id-{ann}")
    queued = await one.Enqueue(enqueue(ann, pb.MODE_UNRANKED))
    first = await heard.status()
    assert first.ticket.ticket_id == queued.ticket.ticket_id
    assert (first.ticket.status, first.queue_length, first.practice_available) == (QUEUED, 1, True)
    assert first.bot_fill_delay.seconds == 20 and first.rating_window == 0
    # The other replica's rounds have not told this ticket yet: they may, once.
    await asyncio.sleep(0.5)
    await two.CancelTicket(
        mm.MatchmakerServiceCancelTicketRequest(
            request_id=f"c-{ann}", player_id=f"id-{ann}", ticket_id=queued.ticket.ticket_id
        )
    )
    heard_after = await heard.status_until(lambda s: s.ticket.status != QUEUED)
    assert all(s.ticket.status == QUEUED for s in heard_after[:-1])
    cancelled = heard_after[-1]
    assert cancelled.ticket.status == CANCELLED and not cancelled.practice_available
    assert cancelled.ticket.ticket_id == queued.ticket.ticket_id
    await heard.nothing_more()


async def test_two_players_paired_are_both_told_their_match(stubs: Stubs, nc: Client) -> None:
    match, one, two = stubs
    tag = uuid4().hex[:6]
    ann, bea = f"ann-{tag}", f"bea-{tag}"
    heard = {p: await Heard.on(nc, f"id-{p}") for p in (ann, bea)}
    await one.Enqueue(enqueue(ann, pb.MODE_RANKED))
    await two.Enqueue(enqueue(bea, pb.MODE_RANKED))
    paired = {}
    for p in (ann, bea):
        statuses = await heard[p].status_until(lambda s: s.ticket.status != QUEUED)
        paired[p] = statuses[-1]
        assert paired[p].ticket.status == PAIRED, paired[p]
    match_id = paired[ann].ticket.match_id
    assert match_id and paired[bea].ticket.match_id == match_id
    view = (
        await match.GetView(m.MatchServiceGetViewRequest(match_id=match_id, player_id=f"id-{ann}"))
    ).view
    assert sorted(p.player_name for p in view.players) == [ann, bea]
    for p in (ann, bea):
        await heard[p].nothing_more(0.3)


async def test_a_waiting_ticket_is_told_when_its_window_widens(stubs: Stubs, nc: Client) -> None:
    _, one, _ = stubs
    dan = f"dan-{uuid4().hex[:6]}"
    heard = await Heard.on(nc, f"id-{dan}")
    waiting = await one.Enqueue(enqueue(dan, pb.MODE_RANKED))
    windows = [s.rating_window for s in await heard.status_until(lambda s: s.rating_window > 50)]
    # Told at 0 s (50), then by a round once 5 s have passed (75); not at every round
    # (each replica runs ten a second): once more at most by each replica's first round
    # that sees the ticket.
    assert windows[0] == 50 and windows[-1] == 75 and len(windows) <= 4
    await one.CancelTicket(
        mm.MatchmakerServiceCancelTicketRequest(
            request_id=f"c-{dan}", player_id=f"id-{dan}", ticket_id=waiting.ticket.ticket_id
        )
    )
    # The other replica's round may still tell the waiting ticket once (a session drops
    # a "queued" after an end); the cancellation comes all the same.
    after = await heard.status_until(lambda s: s.ticket.status == CANCELLED)
    assert all(s.rating_window == 75 for s in after[:-1]) and len(after) <= 3


async def test_a_host_is_told_their_table_opened_and_then_started(stubs: Stubs, nc: Client) -> None:
    _, one, two = stubs
    tag = uuid4().hex[:6]
    host, guest = f"hana-{tag}", f"ivo-{tag}"
    heard = await Heard.on(nc, f"id-{host}")
    guest_heard = await Heard.on(nc, f"id-{guest}")
    created = await one.CreateTable(
        mm.MatchmakerServiceCreateTableRequest(
            request_id=f"t-{tag}",
            host=ref(host),
            settings=pb.TableSettings(rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN)),
            deck=pb.DeckChoice(deck_id="main"),
        )
    )
    opened = await heard.table()
    assert (opened.table_id, opened.status) == (created.table.table_id, pb.TABLE_STATUS_OPEN)
    joined = await two.JoinTable(
        mm.MatchmakerServiceJoinTableRequest(
            request_id=f"j-{tag}",
            player=ref(guest),
            table_id=created.table.table_id,
            deck=pb.DeckChoice(deck_id="main"),
        )
    )
    started = await heard.table()
    assert (started.status, started.match_id) == (pb.TABLE_STATUS_STARTED, joined.match_id)
    assert started == joined.table
    await heard.nothing_more(0.3)
    await guest_heard.nothing_more(0)
