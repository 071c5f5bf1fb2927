"""The match service as a separate process on real PostgreSQL, driven over gRPC.

Two players play whole matches in every visibility; every message each of them
receives is recorded and searched for the opponent's unrevealed cards. The service is
SIGKILLed between moves and in the middle of a burst of moves, restarted, and every
acknowledged move is still there, none applied twice.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import grpc
import nats
import nats.errors
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from devtools.match_client import Recorder, create_request, play_to_the_end, stream_into
from devtools.processes import Service, free_port

pytestmark = pytest.mark.integration
ADMIN = "test-operator-token"


@pytest.fixture
def match_service(shared_database_url: str, nats_url: str, tmp_path: Path) -> Iterator[Service]:
    service = Service(
        "services.match.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_MATCH_SCHEMA": f"match_{uuid4().hex[:12]}",
            "TRIAD_MATCH_PORT": str(free_port()),
            "TRIAD_MATCH_METRICS_PORT": "0",
            "TRIAD_ADMIN_TOKEN": ADMIN,
            "TRIAD_TIMER_POLL_SECONDS": "0.02",
        },
        free_port(),
        tmp_path / "match.log",
    )
    service.port = int(service.env["TRIAD_MATCH_PORT"])
    service.address = f"127.0.0.1:{service.port}"
    service.start()
    yield service
    assert service.stop() == 0, service.log.read_text()[-2000:]


@pytest.fixture
async def stub(match_service: Service) -> AsyncIterator[match_pb2_grpc.MatchServiceAsyncStub]:
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        yield match_pb2_grpc.MatchServiceStub(channel)


async def events_of(
    stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str
) -> list[ev.EventEnvelope]:
    reply = await stub.GetMatchEvents(
        m.MatchServiceGetMatchEventsRequest(match_id=match_id),
        metadata=(("authorization", f"Bearer {ADMIN}"),),
    )
    return list(reply.events)


def card_ids(view: pb.MatchView) -> set[str]:
    ids = {c.card.card.card_id for c in view.board if c.WhichOneof("content") == "card"}
    ids |= {c.card.card_id for c in view.my_hand}
    ids |= {s.revealed.card_id for s in view.opponent_hand if s.WhichOneof("slot") == "revealed"}
    if view.HasField("last_placement"):
        ids.add(view.last_placement.card.card_id)
    return ids


def assert_no_hidden_card(
    view: pb.MatchView, own: set[str], theirs: set[str], revealed: set[str]
) -> None:
    on_board = {c.card.card.card_id for c in view.board if c.WhichOneof("content") == "card"}
    allowed = own | revealed | on_board
    assert card_ids(view) <= allowed
    raw = view.SerializeToString()
    for secret in theirs - allowed:
        assert secret.encode() not in raw, f"hidden card {secret} leaked"
    hidden_slots = sum(1 for s in view.opponent_hand if s.WhichOneof("slot") == "hidden")
    assert hidden_slots == len((theirs - on_board) - revealed)


@pytest.mark.parametrize(
    "visibility", [pb.VISIBILITY_ALL_OPEN, pb.VISIBILITY_CLOSED, pb.VISIBILITY_THREE_OPEN]
)
async def test_two_players_play_a_whole_match_and_never_see_a_hidden_card(
    stub: match_pb2_grpc.MatchServiceAsyncStub, visibility: int
) -> None:
    match_id = str(uuid4())
    names = (f"ann-{match_id[:6]}", f"bea-{match_id[:6]}")
    create = create_request(match_id, visibility, names)
    created = await stub.CreateMatch(create)
    assert created.created and created.version == 1
    recorders = {name: Recorder(name) for name in names}
    streamed = {name: Recorder(name) for name in names}
    streams = [asyncio.create_task(stream_into(stub, match_id, r)) for r in streamed.values()]
    while not all(r.views for r in streamed.values()):  # each stream's first snapshot
        await asyncio.sleep(0.005)
    final = await play_to_the_end(stub, match_id, recorders)
    await asyncio.wait_for(asyncio.gather(*streams), 10)  # streams end with the final view

    assert final.outcome.final_scores.seat_a + final.outcome.final_scores.seat_b == 10
    created_event = ev.MatchCreated.FromString((await events_of(stub, match_id))[0].payload)
    decks = [{c.card_id for c in seat.deck} for seat in create.seats]
    revealed = [set(seat.revealed_card_ids) for seat in created_event.seats]
    for index, name in enumerate(names):
        views = recorders[name].views + streamed[name].views
        assert streamed[name].views[0].version == 1  # the first snapshot is checked too
        for view in views:
            assert_no_hidden_card(view, decks[index], decks[1 - index], revealed[1 - index])
        versions = [v.version for v in streamed[name].views]
        assert versions == sorted(set(versions))  # a stream's views only grow in version
        assert streamed[name].views[-1].status == pb.MATCH_STATUS_FINISHED


async def test_bad_requests_get_clear_statuses_and_change_nothing(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
) -> None:
    match_id = str(uuid4())
    names = (f"cai-{match_id[:6]}", f"dov-{match_id[:6]}")
    await stub.CreateMatch(create_request(match_id, pb.VISIBILITY_CLOSED, names))
    view = (
        await stub.GetView(m.MatchServiceGetViewRequest(match_id=match_id, player_id=names[0]))
    ).view
    mover = names[0] if view.turn_seat == view.my_seat else names[1]
    other = names[1] if mover == names[0] else names[0]
    mine = (
        await stub.GetView(m.MatchServiceGetViewRequest(match_id=match_id, player_id=mover))
    ).view
    theirs = (
        await stub.GetView(m.MatchServiceGetViewRequest(match_id=match_id, player_id=other))
    ).view
    cases = [
        (
            other,
            theirs.my_hand[0].card.card_id,
            0,
            grpc.StatusCode.FAILED_PRECONDITION,
            "not your turn",
        ),
        (
            mover,
            theirs.my_hand[0].card.card_id,
            0,
            grpc.StatusCode.FAILED_PRECONDITION,
            "not in your hand",
        ),
        (
            mover,
            mine.my_hand[0].card.card_id,
            9,
            grpc.StatusCode.INVALID_ARGUMENT,
            "not on the 3x3 board",
        ),
        (
            mover,
            mine.my_hand[0].card.card_id,
            -1,
            grpc.StatusCode.INVALID_ARGUMENT,
            "not on the board",
        ),
        ("stranger", mine.my_hand[0].card.card_id, 0, grpc.StatusCode.NOT_FOUND, "no match"),
        (mover, "", 0, grpc.StatusCode.INVALID_ARGUMENT, "card_id is required"),
    ]
    for player, card, cell, code, words in cases:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.PlaceCard(
                m.MatchServicePlaceCardRequest(
                    request_id=str(uuid4()),
                    match_id=match_id,
                    player_id=player,
                    card_id=card,
                    cell=cell,
                )
            )
        assert caught.value.code() == code and words in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.GetView(m.MatchServiceGetViewRequest(match_id=str(uuid4()), player_id=mover))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.GetMatchEvents(m.MatchServiceGetMatchEventsRequest(match_id=match_id))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert len(await events_of(stub, match_id)) == 1  # nothing was appended


async def test_practice_against_a_bot_seat_plays_to_the_end(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
) -> None:
    match_id = str(uuid4())
    human = f"eve-{match_id[:6]}"
    await stub.CreateMatch(
        create_request(match_id, pb.VISIBILITY_THREE_OPEN, (human, "bot-1"), bot_b=True)
    )
    final = await play_to_the_end(stub, match_id, {human: Recorder(human)})
    names = [p.player_name for p in final.players]
    assert names[1].startswith("[BOT] ") and final.players[1].is_bot
    assert len([c for c in final.board if c.WhichOneof("content") == "card"]) == 9


async def drive(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
    match_id: str,
    players: tuple[str, str],
    acknowledged: list[tuple[str, str, int]],
    pending: dict[str, m.MatchServicePlaceCardRequest],
) -> bool:
    """Play a match; True when it finished, False when the service went away."""
    while True:
        try:
            views = [
                (
                    await stub.GetView(m.MatchServiceGetViewRequest(match_id=match_id, player_id=p))
                ).view
                for p in players
            ]
            if views[0].status == pb.MATCH_STATUS_FINISHED:
                return True
            mover = next(i for i, v in enumerate(views) if v.turn_seat == v.my_seat)
            view = views[mover]
            empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
            request = m.MatchServicePlaceCardRequest(
                request_id=f"{players[mover]}-{view.version}",
                match_id=match_id,
                player_id=players[mover],
                card_id=view.my_hand[0].card.card_id,
                cell=empty[0],
            )
            pending[match_id] = request
            await stub.PlaceCard(request, timeout=5)
            del pending[match_id]
            acknowledged.append((match_id, request.card_id, request.cell))
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                return False
            raise


async def test_a_sigkilled_match_service_loses_no_acknowledged_move_and_applies_none_twice(
    match_service: Service,
) -> None:
    matches = [
        (str(uuid4()), (f"p{i}a-{uuid4().hex[:4]}", f"p{i}b-{uuid4().hex[:4]}")) for i in range(6)
    ]
    acknowledged: list[tuple[str, str, int]] = []
    pending: dict[str, m.MatchServicePlaceCardRequest] = {}
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        for match_id, players in matches:
            await stub.CreateMatch(create_request(match_id, pb.VISIBILITY_THREE_OPEN, players))
        # Between moves: one whole move acknowledged, then the crash.
        await drive_one_move(stub, matches[0], acknowledged)
    match_service.kill()
    match_service.start()
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        # In the middle of a burst: six matches moving concurrently.
        burst = [
            asyncio.create_task(drive(stub, mid, ps, acknowledged, pending)) for mid, ps in matches
        ]
        while len(acknowledged) < 20:
            await asyncio.sleep(0.005)
        match_service.kill()
        await asyncio.gather(*burst)
    match_service.start()
    async with grpc.aio.insecure_channel(match_service.address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        for request in list(pending.values()):  # retry what was never acknowledged, same id
            try:
                await stub.PlaceCard(request, timeout=5)
                acknowledged.append((request.match_id, request.card_id, request.cell))
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
        pending.clear()
        finished = await asyncio.gather(
            *(drive(stub, mid, ps, acknowledged, pending) for mid, ps in matches)
        )
        assert all(finished)
        for match_id, _ in matches:
            placed = [
                ev.CardPlaced.FromString(e.payload)
                for e in await events_of(stub, match_id)
                if e.event_type == "triad.v1.CardPlaced"
            ]
            assert len(placed) == 9
            assert len({p.card.card_id for p in placed}) == 9  # no card applied twice
            log = {(p.card.card_id, p.cell) for p in placed}
            mine = {(card, cell) for mid, card, cell in acknowledged if mid == match_id}
            assert mine <= log  # every acknowledged move is in the log


async def drive_one_move(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
    match: tuple[str, tuple[str, str]],
    acknowledged: list[tuple[str, str, int]],
) -> None:
    match_id, players = match
    for player in players:
        view = (
            await stub.GetView(m.MatchServiceGetViewRequest(match_id=match_id, player_id=player))
        ).view
        if view.turn_seat == view.my_seat:
            request = m.MatchServicePlaceCardRequest(
                request_id=f"{player}-{view.version}",
                match_id=match_id,
                player_id=player,
                card_id=view.my_hand[0].card.card_id,
                cell=4,
            )
            await stub.PlaceCard(request)
            acknowledged.append((match_id, request.card_id, 4))
            return


async def test_every_event_of_a_match_reaches_jetstream_in_order(
    stub: match_pb2_grpc.MatchServiceAsyncStub, nats_url: str
) -> None:
    match_id = str(uuid4())
    names = (f"fay-{match_id[:6]}", f"gus-{match_id[:6]}")
    await stub.CreateMatch(create_request(match_id, pb.VISIBILITY_ALL_OPEN, names))
    await play_to_the_end(stub, match_id, {n: Recorder(n) for n in names})
    stored = await events_of(stub, match_id)

    client = await nats.connect(nats_url)
    try:
        js = client.jetstream()
        got: list[ev.EventEnvelope] = []
        deadline = asyncio.get_running_loop().time() + 15
        while len(got) < len(stored) and asyncio.get_running_loop().time() < deadline:
            got = []
            sub = await js.subscribe("triad.events.match.>", ordered_consumer=True)
            try:
                while True:
                    try:
                        msg = await sub.next_msg(timeout=0.5)
                    except nats.errors.TimeoutError:
                        break
                    if (msg.headers or {}).get("Triad-Stream-Id") == f"match-{match_id}":
                        got.append(ev.EventEnvelope.FromString(msg.data))
            finally:
                await sub.unsubscribe()
    finally:
        await client.close()
    assert [e.event_id for e in got] == [e.event_id for e in stored]
    assert [e.version for e in got] == list(range(1, len(stored) + 1))
    assert got[-1].event_type == "triad.v1.MatchFinished"


async def test_triad_admin_shows_a_match_from_its_log(
    stub: match_pb2_grpc.MatchServiceAsyncStub, match_service: Service
) -> None:
    match_id = str(uuid4())
    names = (f"hal-{match_id[:6]}", f"ivy-{match_id[:6]}")
    await stub.CreateMatch(create_request(match_id, pb.VISIBILITY_CLOSED, names))
    final = await play_to_the_end(stub, match_id, {n: Recorder(n) for n in names})
    env = {**os.environ, "TRIAD_ADMIN_TOKEN": ADMIN}
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.match.admin",
            "--match-addr",
            match_service.address,
            "match",
            "show",
            match_id,
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert sum("CardPlaced" in line for line in lines) == 9
    assert any("MatchFinished" in line for line in lines)
    scores = final.outcome.final_scores
    assert f"scores {scores.seat_a}-{scores.seat_b}" in shown.stdout
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "services.match.admin",
            "--match-addr",
            match_service.address,
            "match",
            "show",
            match_id,
        ],
        env={**env, "TRIAD_ADMIN_TOKEN": "wrong"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 1 and "PERMISSION_DENIED" in refused.stderr
