"""The match service as a separate process on real PostgreSQL, driven over gRPC.

Two players play whole matches in every visibility; every message each of them
receives is recorded and searched for the opponent's unrevealed cards. Bad requests get
clear statuses and change nothing; a practice bot seat plays to the end; every event of
a match reaches JetStream in order.
"""

from __future__ import annotations

import asyncio
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
from tests.integration.match_service.match_events import events_of

pytestmark = pytest.mark.integration


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
    # Found from outside: an operator gave the 8 characters the screens show.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await events_of(stub, match_id[:8])
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert "give the whole match id" in (caught.value.details() or "")


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
