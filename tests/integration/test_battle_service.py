"""The battle service as a separate process on real PostgreSQL and NATS, over gRPC:
health and reflection, its events relayed to JetStream with their ids, a committed plan
surviving a SIGKILL, the turn resolved once after the restart, and the selection
deadline fired by the restarted process; a plan set (SetPlan, not committed) surviving
a SIGKILL too and acting at that deadline; triad-admin shows a battle from its log."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import grpc
import nats
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from triad.v1 import battle_pb2 as b
from triad.v1 import battle_pb2_grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from devtools.processes import Service, free_port

pytestmark = pytest.mark.integration
SERVICE = "triad.v1.BattleService"
ADMIN = "test-operator-token"


@pytest.fixture
def battle_service(
    shared_database_url: str, nats_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Service]:
    """The service as a process; a test's indirect parameter adds to its settings."""
    port = free_port()
    service = Service(
        "services.battle.main",
        {
            "TRIAD_DATABASE_URL": shared_database_url,
            "TRIAD_NATS_URL": nats_url,
            "TRIAD_BATTLE_SCHEMA": f"battle_{uuid4().hex[:12]}",
            "TRIAD_BATTLE_PORT": str(port),
            "TRIAD_BATTLE_METRICS_PORT": str(free_port()),
            "TRIAD_BATTLE_SELECTION_SECONDS": "8",  # more than a restart takes on a busy machine
            "TRIAD_TIMER_POLL_SECONDS": "0.2",
            "TRIAD_ADMIN_TOKEN": ADMIN,
            **getattr(request, "param", {}),
        },
        port,
        tmp_path / "battle.log",
    )
    service.start()
    yield service
    assert service.stop() == 0, service.log.read_text()[-2000:]


@pytest.fixture
async def channel(battle_service: Service) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(battle_service.address) as chan:
        yield chan


async def view(
    stub: battle_pb2_grpc.BattleServiceAsyncStub, battle: str, player: str
) -> pb.BattleView:
    reply = await stub.GetBattleView(
        b.BattleServiceGetBattleViewRequest(battle_id=battle, player_id=player), timeout=5
    )
    return reply.view


async def create(
    stub: battle_pb2_grpc.BattleServiceAsyncStub, battle: str, *seats: pb.BattleSeat
) -> None:
    await stub.CreateBattle(
        b.BattleServiceCreateBattleRequest(battle_id=battle, request_id=battle, seats=seats),
        timeout=5,
    )


async def ready(
    stub: battle_pb2_grpc.BattleServiceAsyncStub, battle: str, player: str
) -> pb.BattleView:
    """The view once the (restarted) service answers."""
    deadline = time.monotonic() + 15
    while True:
        try:
            return await view(stub, battle, player)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def test_health_and_reflection_name_the_battle_service(channel: grpc.aio.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    status = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=5)
    assert status.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    responses = [r async for r in stub.ServerReflectionInfo(iter([request]), timeout=5)]
    assert SERVICE in {s.name for s in responses[0].list_services_response.service}


async def test_a_committed_plan_survives_a_sigkill_and_the_turn_resolves_once(
    channel: grpc.aio.Channel, battle_service: Service, nats_url: str
) -> None:
    stub = battle_pb2_grpc.BattleServiceStub(channel)
    battle, ann, bea = str(uuid4()), f"ann-{uuid4().hex[:6]}", f"bea-{uuid4().hex[:6]}"
    await create(
        stub,
        battle,
        pb.BattleSeat(player_id=ann, name="ann"),
        pb.BattleSeat(player_id=bea, name="bea"),
    )
    for player in (ann, bea):
        await stub.SetFormation(
            b.BattleServiceSetFormationRequest(
                request_id=uuid4().hex,
                battle_id=battle,
                player_id=player,
                squares=[pb.BattleSquare(row=r, col=0) for r in range(3)],
            ),
            timeout=5,
        )
    commit = b.BattleServiceCommitPlanRequest(
        request_id="ann-turn-1", battle_id=battle, player_id=ann, turn=1
    )
    first = (await stub.CommitPlan(commit, timeout=5)).view
    assert first.you.committed and first.turn == 1

    battle_service.kill()
    battle_service.start()
    again = await ready(stub, battle, ann)
    assert again.you.committed and again.version == first.version, "the plan was kept"
    retried = (await stub.CommitPlan(commit, timeout=5)).view
    assert retried.version == first.version, "a retry answers from the first result"
    resolved = (
        await stub.CommitPlan(
            b.BattleServiceCommitPlanRequest(
                request_id="bea-turn-1", battle_id=battle, player_id=bea, turn=1
            ),
            timeout=5,
        )
    ).view
    assert resolved.turn == 2 and not resolved.you.committed

    # Nobody commits turn 2: its 8 s deadline is fired by the restarted process.
    deadline = time.monotonic() + 30
    while (now := await view(stub, battle, ann)).turn == 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert now.turn == 3

    got = await relayed(nats_url, f"battle-{battle}", now.version)
    types = [e.event_type for e in got]
    assert types.count("triad.v1.BattleTurnResolved") == 2, types
    assert [e.version for e in got] == list(range(1, now.version + 1))
    assert types[0] == "triad.v1.BattleCreated"


async def test_a_plan_set_survives_a_sigkill_and_acts_at_the_deadline(
    channel: grpc.aio.Channel, battle_service: Service
) -> None:
    stub = battle_pb2_grpc.BattleServiceStub(channel)
    battle, ann, bea = str(uuid4()), f"ann-{uuid4().hex[:6]}", f"bea-{uuid4().hex[:6]}"
    await create(
        stub,
        battle,
        pb.BattleSeat(player_id=ann, name="ann", characters=["ember", "bastion", "wisp"]),
        pb.BattleSeat(player_id=bea, name="bea"),
    )
    for player in (ann, bea):
        await stub.SetFormation(
            b.BattleServiceSetFormationRequest(
                request_id=uuid4().hex,
                battle_id=battle,
                player_id=player,
                squares=[pb.BattleSquare(row=r, col=0) for r in range(3)],
            ),
            timeout=5,
        )
    mine = await view(stub, battle, ann)
    card = min(mine.you.hand, key=lambda c: c.cost)
    # Both fields hold their front column, rows 0..2: any square there is a legal aim.
    aims = {"single": (1, 0), "cross": (1, 0), "ally": (1, 0), "row": (1, None)}
    row, col = aims.get(card.range, (None, 0) if card.range == "column" else (None, None))
    if card.range == "square":  # a summon: a square of ann's own field
        row, col = 2, 2
    request = b.BattleServiceSetPlanRequest(
        request_id="ann-set-1",
        battle_id=battle,
        player_id=ann,
        turn=1,
        actions=[
            pb.BattleAction(
                character=card.owner, card=card.id, target=pb.BattleTarget(row=row, col=col)
            )
        ],
    )
    set_view = (await stub.SetPlan(request, timeout=5)).view
    assert [a.card for a in set_view.set_actions] == [card.id]

    battle_service.kill()
    battle_service.start()
    again = await ready(stub, battle, ann)
    assert [a.card for a in again.set_actions] == [card.id], "the plan set was kept"
    retried = (await stub.SetPlan(request, timeout=5)).view
    assert retried.version == set_view.version, "a retry records nothing new"
    assert not (await view(stub, battle, bea)).set_actions

    deadline = time.monotonic() + 30
    while (now := await view(stub, battle, ann)).turn == 1 and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert now.turn == 2
    assert [e.card for e in now.log if e.step == "card" and e.seat == 0] == [card.id]


def triad_admin(
    service: Service, battle: str, token: str | None
) -> subprocess.CompletedProcess[str]:
    """``triad-admin battle show`` against the service, with this operator token."""
    env = {k: v for k, v in os.environ.items() if k != "TRIAD_ADMIN_TOKEN"}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "services.admin",
            "--battle-addr",
            service.address,
            "battle",
            "show",
            battle,
        ],
        env=env | ({"TRIAD_ADMIN_TOKEN": token} if token is not None else {}),
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )


@pytest.mark.parametrize(
    "battle_service", [{"TRIAD_BATTLE_DISCONNECT_SECONDS": "0.5"}], indirect=True
)
async def test_triad_admin_shows_a_battle_from_its_log(
    channel: grpc.aio.Channel, battle_service: Service
) -> None:
    stub = battle_pb2_grpc.BattleServiceStub(channel)
    battle, ann = str(uuid4()), f"ann-{uuid4().hex[:6]}"
    await create(
        stub,
        battle,
        pb.BattleSeat(player_id=ann, name="ann"),
        pb.BattleSeat(bot_level=pb.BATTLE_BOT_LEVEL_GREEDY),
    )
    # ann opens no session: 0.5 s on, the CPU takes her seat and plays the battle out
    deadline = time.monotonic() + 30
    while (now := await view(stub, battle, ann)).status != pb.BATTLE_STATUS_FINISHED:
        assert time.monotonic() < deadline, "the battle did not end"
        await asyncio.sleep(0.2)

    shown = triad_admin(battle_service, battle, ADMIN)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert sum(line[:4].strip().isdigit() for line in lines) == now.version, "a line an event"
    assert "BattleCreated" in lines[0] and "seat 1 (CPU greedy)" in lines[0]
    assert any("BattleSeatTakenOver" in line and "seat 0 (ann)" in line for line in lines)
    assert any("BattlePlanCommitted" in line and " plays " in line for line in lines)
    assert sum("BattleTurnResolved" in line for line in lines) == now.turn
    assert any("BattleFinished" in line for line in lines)
    assert f"turn {now.turn}" in lines
    winner = "seat 0 (ann)" if now.outcome.winner_seat == 0 else "seat 1 (CPU greedy)"
    assert lines[-1] == f"outcome: {winner} wins ({now.outcome.reason})"
    assert now.outcome.reason == "disconnect"

    wrong = triad_admin(battle_service, battle, "wrong")
    assert wrong.returncode == 1 and not wrong.stdout
    assert "refused the operator token: set TRIAD_ADMIN_TOKEN" in wrong.stderr
    assert "the battle service at" in wrong.stderr and "refused the operator token" in wrong.stderr
    missing = triad_admin(battle_service, battle, None)
    assert missing.returncode == 2 and not missing.stdout
    assert "set TRIAD_ADMIN_TOKEN to the operator token the battle service was given" in (
        missing.stderr
    )
    unknown = triad_admin(battle_service, str(uuid4()), ADMIN)
    assert unknown.returncode == 1 and "NOT_FOUND: no battle" in unknown.stderr


async def relayed(nats_url: str, stream_id: str, count: int) -> list[ev.EventEnvelope]:
    """The battle's events as the relay published them to JetStream."""
    client = await nats.connect(nats_url)
    got: list[ev.EventEnvelope] = []
    try:
        js = client.jetstream()
        deadline = time.monotonic() + 15
        while len(got) < count and time.monotonic() < deadline:
            got = []
            sub = await js.subscribe("triad.events.battle.>", ordered_consumer=True)
            try:
                while True:
                    try:
                        msg = await sub.next_msg(timeout=0.5)
                    except nats.errors.TimeoutError:
                        break
                    if (msg.headers or {}).get("Triad-Stream-Id") == stream_id:
                        got.append(ev.EventEnvelope.FromString(msg.data))
            finally:
                await sub.unsubscribe()
    finally:
        await client.close()
    return got
