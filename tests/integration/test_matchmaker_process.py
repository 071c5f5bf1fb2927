"""The matchmaker as real processes beside the real match service, on PostgreSQL and NATS.

Two matchmaker replicas share one schema; two players queue Ranked, each through a
different replica, and are paired into one real match that the match service serves;
the pairing event reaches JetStream through the replicas' relay.
A third player practises against a bot. No collection or rating service runs: the
matchmaker's stand-ins (starter decks, rating 1500) take their place.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import nats
import nats.errors
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc, matchmaker_pb2_grpc
from triad.v1 import matchmaker_pb2 as mm

from devtools.processes import Service, free_port

pytestmark = pytest.mark.integration
Stubs = tuple[Any, Any, Any]  # match, matchmaker replica one, replica two


def service(module: str, env: dict[str, str], port_var: str, log: Path) -> Service:
    port = free_port()
    started = Service(module, {**env, port_var: str(port)}, port, log)
    return started.start()


@contextmanager
def match_and_two_matchmakers(
    database_url: str, nats_url: str, directory: Path, pair_interval: str
) -> Iterator[tuple[str, str, str]]:
    """The match service and two matchmaker replicas pairing every ``pair_interval``
    seconds, as processes; their addresses."""
    match = service(
        "services.match.main",
        {
            "TRIAD_DATABASE_URL": database_url,
            "TRIAD_MATCH_SCHEMA": f"match_{uuid4().hex[:12]}",
            "TRIAD_MATCH_METRICS_PORT": "0",
        },
        "TRIAD_MATCH_PORT",
        directory / "match.log",
    )
    shared = {
        "TRIAD_DATABASE_URL": database_url,
        "TRIAD_NATS_URL": nats_url,
        "TRIAD_MATCHMAKER_SCHEMA": f"mm_{uuid4().hex[:12]}",
        "TRIAD_MATCHMAKER_METRICS_PORT": "0",
        "TRIAD_MATCH_ADDR": match.address,
        "TRIAD_MATCHMAKER_PAIR_INTERVAL_SECONDS": pair_interval,
        "TRIAD_MATCHMAKER_WATCH_HEARTBEAT_SECONDS": "0.5",
    }
    mm_services = [
        service(
            "services.matchmaker.main", shared, "TRIAD_MATCHMAKER_PORT", directory / f"mm{i}.log"
        )
        for i in range(2)
    ]
    yield match.address, mm_services[0].address, mm_services[1].address
    for running in (*mm_services, match):
        assert running.stop() == 0, running.log.read_text()[-2000:]


@pytest.fixture(scope="module")
def replicas(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, str]]:
    """The match service and two matchmaker replicas; their addresses."""
    with match_and_two_matchmakers(
        shared_database_url, nats_url, tmp_path_factory.mktemp("matchmaker"), "0.05"
    ) as addresses:
        yield addresses


@pytest.fixture
async def stubs(
    replicas: tuple[str, str, str],
) -> AsyncIterator[Stubs]:
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


def enqueue(name: str, mode: int, attempt: int = 1) -> mm.MatchmakerServiceEnqueueRequest:
    return mm.MatchmakerServiceEnqueueRequest(
        request_id=f"q-{name}-{attempt}",
        player=pb.PlayerRef(player_id=f"id-{name}", player_name=name),
        mode=mode,  # type: ignore[arg-type]
        deck=pb.DeckChoice(deck_id="main"),
    )


async def watch(stub: Any, player_id: str) -> list[pb.QueueStatus]:
    call = stub.WatchQueue(mm.MatchmakerServiceWatchQueueRequest(player_id=player_id), timeout=20)
    return [reply.status async for reply in call]


async def published_pairing(nats_url: str, match_id: str) -> ev.TicketsPaired:
    """The TicketsPaired event of ``match_id`` as the replicas' relays published it."""
    client = await nats.connect(nats_url)
    try:
        sub = await client.jetstream().subscribe(
            "triad.events.pairing.TicketsPaired", ordered_consumer=True
        )
        deadline = asyncio.get_running_loop().time() + 15
        while asyncio.get_running_loop().time() < deadline:
            with contextlib.suppress(nats.errors.TimeoutError):
                msg = await sub.next_msg(timeout=0.5)
                paired = ev.TicketsPaired.FromString(ev.EventEnvelope.FromString(msg.data).payload)
                if paired.match_id == match_id:
                    return paired
        raise AssertionError(f"no TicketsPaired for {match_id} on JetStream")
    finally:
        await client.close()


async def test_two_players_on_two_replicas_are_paired_into_one_real_match(
    stubs: Stubs, nats_url: str
) -> None:
    match, one, two = stubs
    await one.Enqueue(enqueue("ann", pb.MODE_RANKED))
    queued = await two.Enqueue(enqueue("bea", pb.MODE_RANKED))
    assert queued.status.rating_window == 50 and queued.status.practice_available
    # The stream sends the status now, then each change; it ends once paired.
    updates = await asyncio.wait_for(watch(two, "id-bea"), 20)
    assert all(u.ticket.ticket_id == queued.ticket.ticket_id for u in updates)
    final = updates[-1].ticket
    assert final.status == pb.TICKET_STATUS_PAIRED and final.match_id
    ann = (await one.GetQueueStatus(
        mm.MatchmakerServiceGetQueueStatusRequest(player_id="id-ann")
    )).status.ticket  # fmt: skip
    assert ann.match_id == final.match_id
    published = await published_pairing(nats_url, final.match_id)
    assert {t.player.player_name for t in published.tickets} == {"ann", "bea"}

    view = (await match.GetView(
        m.MatchServiceGetViewRequest(match_id=final.match_id, player_id="id-ann")
    )).view  # fmt: skip
    assert view.mode == pb.MODE_RANKED and view.rules.visibility == pb.VISIBILITY_CLOSED
    assert view.rules.trade_rule == pb.TRADE_RULE_ONE
    assert sorted(p.player_name for p in view.players) == ["ann", "bea"]
    assert len(view.my_hand) == 5

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await two.Enqueue(enqueue("ann", pb.MODE_UNRANKED, 2))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"match {final.match_id[:8]}" in (refused.value.details() or "")

    practice = await two.StartPractice(
        mm.MatchmakerServiceStartPracticeRequest(
            request_id="p-cid",
            player=pb.PlayerRef(player_id="id-cid", player_name="cid"),
            origin_mode=pb.MODE_UNRANKED,
            bot_level=pb.BOT_LEVEL_EASY,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        )
    )
    bot_view = (await match.GetView(
        m.MatchServiceGetViewRequest(match_id=practice.match_id, player_id="id-cid")
    )).view  # fmt: skip
    assert bot_view.mode == pb.MODE_PRACTICE and bot_view.origin_mode == pb.MODE_UNRANKED
    bot = next(p for p in bot_view.players if p.seat != bot_view.my_seat)
    assert bot.is_bot and bot.player_name.startswith("[BOT] ")
    assert bot.bot_level == pb.BOT_LEVEL_EASY


def ref(name: str) -> pb.PlayerRef:
    return pb.PlayerRef(player_id=f"id-{name}", player_name=name)


async def code_of(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    raise AssertionError("the call succeeded")


async def test_a_custom_table_over_grpc_and_clear_statuses_for_bad_requests(
    stubs: Stubs,
) -> None:
    match, one, two = stubs
    trading = pb.Rules(
        visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True,
        trade_rule=pb.TRADE_RULE_ONE,
    )  # fmt: skip
    created = await one.CreateTable(
        mm.MatchmakerServiceCreateTableRequest(
            request_id="t1", host=ref("hana"), settings=pb.TableSettings(rules=trading),
            deck=pb.DeckChoice(deck_id="main"), challenged_player_name="ivo",
        )
    )  # fmt: skip
    listed = await two.ListTables(
        mm.MatchmakerServiceListTablesRequest(
            player=ref("ivo"), filter=pb.TableFilter(trade_rules=[pb.TRADE_RULE_ONE])
        )
    )
    assert [t.table_id for t in listed.tables] == [created.table.table_id]
    joined = await two.JoinTable(
        mm.MatchmakerServiceJoinTableRequest(
            request_id="j1", player=ref("ivo"), table_id=created.table.table_id,
            deck=pb.DeckChoice(deck_id="main"),
        )
    )  # fmt: skip
    assert joined.table.status == pb.TABLE_STATUS_STARTED
    view = (await match.GetView(
        m.MatchServiceGetViewRequest(match_id=joined.match_id, player_id="id-ivo")
    )).view  # fmt: skip
    assert view.mode == pb.MODE_CUSTOM and view.rules.trade_rule == pb.TRADE_RULE_ONE

    bad = [
        (
            one.Enqueue(
                mm.MatchmakerServiceEnqueueRequest(
                    request_id="x",
                    player=ref("jin"),
                    mode=pb.MODE_CUSTOM,
                    deck=pb.DeckChoice(deck_id="main"),
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "use one of UNRANKED, RANKED, DRAFT, ROULETTE",
        ),
        (
            one.CreateTable(
                mm.MatchmakerServiceCreateTableRequest(
                    request_id="x",
                    host=ref("jin"),
                    settings=pb.TableSettings(
                        rules=pb.Rules(
                            visibility=pb.VISIBILITY_ALL_OPEN,
                            same=True,
                            plus=True,
                            combo=True,
                            trade_rule=pb.TRADE_RULE_ONE,
                        )
                    ),
                    deck=pb.DeckChoice(deck_id="main"),
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "Trade One needs Closed visibility",
        ),
        (
            two.CancelTicket(
                mm.MatchmakerServiceCancelTicketRequest(
                    request_id="x", player_id="id-jin", ticket_id="nope"
                )
            ),
            grpc.StatusCode.NOT_FOUND,
            "no ticket",
        ),
        (
            two.ListTables(
                mm.MatchmakerServiceListTablesRequest(player=ref("jin"), page_token="%%%")
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "page_token",
        ),
        (
            two.GetTable(
                mm.MatchmakerServiceGetTableRequest(
                    player=ref("jin"), table_id=created.table.table_id
                )
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "private challenge",
        ),
        (
            two.WatchQueue(mm.MatchmakerServiceWatchQueueRequest(player_id="id-jin")).read(),
            grpc.StatusCode.NOT_FOUND,
            "no ticket",
        ),
    ]
    for call, code, words in bad:
        found, details = await code_of(call)
        assert (found, words in details) == (code, True), details
