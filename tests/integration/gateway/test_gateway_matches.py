"""The gateway as a player meets it: a whole match through the public API with views pushed
on each player's session stream, a new session replacing the old one, leaving the
session, and the terminal client playing through its subcommands.

The match service and the gateway run as separate processes on real PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2_grpc

from devtools.match_client import create_request
from devtools.players import PASSWORD, bearer, collect, expect
from tests.integration.gateway.gateway_process import last_view, register

pytestmark = pytest.mark.integration


async def test_two_players_play_a_whole_match_through_the_gateway(
    api: Any, internal: match_pb2_grpc.MatchServiceAsyncStub
) -> None:
    ann, bea = await register(api), await register(api)
    players = {ann.player.player_id: ann, bea.player.player_id: bea}
    pushes: dict[str, list[g.OpenSessionResponse]] = {pid: [] for pid in players}
    sessions = [
        asyncio.create_task(collect(api, players[pid].tokens, pushes[pid])) for pid in players
    ]
    while not all(pushes.values()):  # both sessions open before the match is found
        await asyncio.sleep(0.01)
    match_id = str(uuid4())
    create = create_request(
        match_id, pb.VISIBILITY_CLOSED, (ann.player.player_id, bea.player.player_id)
    )
    await internal.CreateMatch(create)
    decks = {s.player.player_id: {c.card_id for c in s.deck} for s in create.seats}

    for _ in range(200):
        views = {pid: last_view(pushes[pid], match_id) for pid in players}
        if all(v is not None and v.status == pb.MATCH_STATUS_FINISHED for v in views.values()):
            break
        for pid, view in views.items():
            if view is None or view.status == pb.MATCH_STATUS_FINISHED:
                continue
            if view.turn_seat != view.my_seat:
                continue
            empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
            await api.PlaceCard(
                g.PlaceCardRequest(
                    request_id=f"{pid}-{view.version}",
                    match_id=match_id,
                    card_id=view.my_hand[0].card.card_id,
                    cell=empty[0],
                ),
                metadata=bearer(players[pid].tokens),
            )
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the match did not finish through the session streams")

    for pid in players:
        other = next(p for p in players if p != pid)
        seen = [p.match_view for p in pushes[pid] if p.HasField("match_view")]
        assert seen, "views are pushed on the session stream"
        assert any(p.HasField("match_found") for p in pushes[pid])
        for view in seen:
            on_board = {
                c.card.card.card_id for c in view.board if c.WhichOneof("content") == "card"
            }
            raw = view.SerializeToString()
            for secret in decks[other] - on_board:
                assert secret.encode() not in raw  # Closed: never an unplayed opposing card
    # a stranger sees nothing of it
    cai = await register(api)
    await expect(
        grpc.StatusCode.NOT_FOUND,
        api.GetMatchView(g.GetMatchViewRequest(match_id=match_id), metadata=bearer(cai.tokens)),
    )
    for task in sessions:
        task.cancel()


async def test_a_new_session_replaces_the_old_one(api: Any) -> None:
    ann = await register(api)
    first: list[g.OpenSessionResponse] = []
    old = asyncio.create_task(collect(api, ann.tokens, first))
    while not first:
        await asyncio.sleep(0.01)
    second: list[g.OpenSessionResponse] = []
    new = asyncio.create_task(collect(api, ann.tokens, second))
    await asyncio.wait_for(old, 5)
    assert first[-1].session_closed.reason == g.SESSION_CLOSE_REASON_REPLACED
    assert [p.sequence for p in first] == list(range(1, len(first) + 1))
    new.cancel()


async def test_leaving_the_session_forfeits_after_the_grace(
    api: Any, internal: match_pb2_grpc.MatchServiceAsyncStub
) -> None:
    ann, bea = await register(api), await register(api)
    pushes: list[g.OpenSessionResponse] = []
    session = asyncio.create_task(collect(api, ann.tokens, pushes))
    while not pushes:
        await asyncio.sleep(0.01)
    match_id = str(uuid4())
    await internal.CreateMatch(
        create_request(
            match_id, pb.VISIBILITY_THREE_OPEN, (ann.player.player_id, bea.player.player_id)
        )
    )
    while last_view(pushes, match_id) is None:
        await asyncio.sleep(0.02)
    session.cancel()  # Ann's connection goes away
    for _ in range(100):
        view = (
            await api.GetMatchView(
                g.GetMatchViewRequest(match_id=match_id), metadata=bearer(bea.tokens)
            )
        ).view
        if view.status == pb.MATCH_STATUS_FINISHED:
            break
        await asyncio.sleep(0.1)
    assert view.outcome.reason == pb.FINISH_REASON_DISCONNECT


async def test_the_terminal_client_plays_through_its_subcommands(
    backend: dict[str, Any], internal: match_pb2_grpc.MatchServiceAsyncStub, tmp_path: Path
) -> None:
    import subprocess
    import sys

    base = [
        sys.executable,
        "-m",
        "client.main",
        "--addr",
        backend["gateway"].address,
        "--ca",
        str(backend["cert"]),
        "--state",
        str(tmp_path / "state.json"),
        "--json",
    ]

    def client(profile: str, *args: str) -> dict[str, Any]:
        run = subprocess.run(
            [*base, "--profile", profile, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env={**__import__("os").environ, "TRIAD_PASSWORD": PASSWORD},
        )
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout) if run.stdout.strip() else {}

    names = [f"cli{uuid4().hex[:8]}", f"cli{uuid4().hex[:8]}"]
    ids = [client(f"p{i}", "register", name)["playerId"] for i, name in enumerate(names)]
    assert client("p0", "status")["player"]["playerName"] == names[0]
    # Both watch their session (without one a player counts as disconnected from the
    # match, and this backend's grace is short)
    watching = [
        subprocess.Popen(
            [*base, "--profile", f"p{i}", "watch"],
            stdout=subprocess.PIPE,
            text=True,
            env={**__import__("os").environ, "TRIAD_PASSWORD": PASSWORD},
        )
        for i in range(2)
    ]
    try:
        for watcher in watching:
            assert watcher.stdout is not None and "sessionOpened" in watcher.stdout.readline()
        match_id = str(uuid4())
        await internal.CreateMatch(
            create_request(match_id, pb.VISIBILITY_THREE_OPEN, (ids[0], ids[1]))
        )
        view = client("p0", "active")
        assert view["matchId"] == match_id
        mover = 0 if view["turnSeat"] == view["mySeat"] else 1
        placed = client(f"p{mover}", "place", match_id, "0", "4")
        assert placed["lastPlacement"]["cell"] == 4
        assert int(placed["version"]) == 2
        refused = subprocess.run(
            [*base, "--profile", f"p{mover}", "place", match_id, "0", "4"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert (
            refused.returncode == 1 and "failed precondition: it is not your turn" in refused.stderr
        )
    finally:
        for watcher in watching:
            watcher.terminate()
            watcher.wait(10)
