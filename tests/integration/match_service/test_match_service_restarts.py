"""The match service as a separate process on real PostgreSQL, driven over gRPC, killed
and read back: SIGKILLed between moves and in the middle of a burst of moves,
restarted, and every acknowledged move is still there, none applied twice; triad-admin
shows a match from its log.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from devtools.match_client import Recorder, create_request, play_to_the_end
from devtools.processes import Service
from tests.integration.match_service.match_events import ADMIN, events_of

pytestmark = pytest.mark.integration


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
            "services.admin",
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
            "services.admin",
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
    assert refused.returncode == 1
    assert refused.stderr.endswith(
        "refused the operator token: set TRIAD_ADMIN_TOKEN to the one it was given\n"
    )
