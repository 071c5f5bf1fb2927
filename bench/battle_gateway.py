"""What a CommitPlan through the gateway costs the backend against a PlaceCard, measured
in the same run (issue 23: "a battle command costs no more CPU per call than a
PlaceCard").

The backend runs on PostgreSQL and NATS of this run alone (bench/idle.py's
``own_backend``), every service a process. Players meet in the Battle queue (the
matchmaker pairs them and the battle service creates the battle), place their
formation, then play in waves: with the clock stopped each reads its view, then every
player commits its plan for the turn at once (the affordable cards that need no target),
the second commit of a battle resolving its turn. What every backend process spent
(bench/cpu.py) over the committing phases, per CommitPlan, is compared with what the
same processes spend per PlaceCard in bench/gateway.py's waves at the same concurrency,
in the same run. Both players' session streams stay open, as real clients keep them.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any
from uuid import uuid4

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from bench.gateway import OWN_SERVERS, SETTINGS_ENV, gateway_backend
from bench.gateway_cost import LevelCost, Spent, format_costs
from bench.gateway_players import Pair, Player, call, new_match, signed_in
from bench.gateway_waves import Read, placements, readings
from bench.load import LOAD_ENV
from bench.load_battles import simple_plan
from bench.report import Options, Report
from bench.service import LoadResult, measurement, target

NAME = "battle_gateway"
BATTLES = 8
"""Battles at once (16 players committing), and as many PlaceCard matches."""


async def into_battles(stub: Any, players: list[Player]) -> dict[str, str]:
    """Every player in a battle (the Battle queue pairs whoever waits), formations set:
    the battle id by player name."""
    found: dict[str, str] = {}
    for player in players:
        active = await call(stub.GetActiveBattle, g.GetActiveBattleRequest(), player)
        if active.battle_id:
            found[player.name] = active.battle_id
            continue
        request = g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_BATTLE)
        try:
            await call(stub.Enqueue, request, player)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.ALREADY_EXISTS:  # still queued: fine
                raise
    for _ in range(600):
        waiting = [p for p in players if p.name not in found]
        if not waiting:
            break
        for player in waiting:
            active = await call(stub.GetActiveBattle, g.GetActiveBattleRequest(), player)
            if active.battle_id:
                found[player.name] = active.battle_id
        await asyncio.sleep(0.05)
    else:
        raise RuntimeError(f"not paired: {[p.name for p in players if p.name not in found]}")
    for player in players:
        view = (await _view(stub, player, found[player.name])).view
        if view.status == pb.BATTLE_STATUS_FORMATION and not view.you.committed:
            squares = [pb.BattleSquare(row=r, col=0) for r in range(3)]
            placing = g.SetFormationRequest(
                request_id=uuid4().hex, battle_id=found[player.name], squares=squares
            )
            await call(stub.SetFormation, placing, player)
    return found


async def _view(stub: Any, player: Player, battle_id: str) -> Any:
    return await call(stub.GetBattleView, g.GetBattleViewRequest(battle_id=battle_id), player)


async def commit_one(
    stub: Any, player: Player, view: pb.BattleView, latencies: list[float]
) -> None:
    request = g.CommitPlanRequest(
        request_id=uuid4().hex, battle_id=view.battle_id, turn=view.turn, actions=simple_plan(view)
    )
    began = time.perf_counter()
    await call(stub.CommitPlan, request, player)
    latencies.append(time.perf_counter() - began)


async def commits(
    stub: Any, players: list[Player], seconds: float, warmup: float, read: Read
) -> tuple[LoadResult, LevelCost]:
    """Waves: views read and battles (re)made with the clock stopped, then every player
    commits at once with it running; only the waves after the warm-up count."""
    latencies: list[float] = []
    counted, committing, warm = 0, 0.0, 0.0
    spent = Spent()
    battles: dict[str, str] = {}
    while committing < seconds:
        if len(battles) < len(players):
            battles = await into_battles(stub, players)
        views = {p.name: (await _view(stub, p, battles[p.name])).view for p in players}
        ready = [p for p in players if views[p.name].status == pb.BATTLE_STATUS_SELECTION]
        before = await read()

        began = time.perf_counter()
        await asyncio.gather(*(commit_one(stub, p, views[p.name], latencies) for p in ready))
        took = time.perf_counter() - began
        after = await read()
        for player in players:  # the opponent's commit may have ended it
            if (await _view(stub, player, views[player.name].battle_id)).view.status == (
                pb.BATTLE_STATUS_FINISHED
            ):
                battles.pop(player.name, None)
        if warm < warmup:
            warm += took
            latencies.clear()
            continue
        spent += Spent.between(before, after)
        counted += len(ready)
        committing += took
    return LoadResult(counted, committing, tuple(latencies)), LevelCost(
        len(players) // 2, counted, 0, spent, Spent()
    )


async def measure_all(backend: Any, nats_pid: int, seconds: float, warmup: float) -> dict[str, Any]:
    credentials = grpc.ssl_channel_credentials(root_certificates=backend.root_cert)
    async with grpc.aio.secure_channel(backend.gateway, credentials) as channel:
        stub = gateway_pb2_grpc.TriadGatewayStub(channel)
        tag = uuid4().hex[:8]
        fighters = [Player(f"bf{tag}{i:03d}") for i in range(2 * BATTLES)]
        pairs = [Pair(Player(f"bh{tag}{i:03d}"), Player(f"bg{tag}{i:03d}")) for i in range(BATTLES)]
        everyone = [*fighters, *(p for pair in pairs for p in (pair.host, pair.guest))]
        async with signed_in(stub, everyone):
            await asyncio.gather(*(new_match(stub, pair) for pair in pairs))
            async with readings(backend, nats_pid, everyone) as (read, _):
                placed, _, place_cost = await placements(
                    stub, pairs, BATTLES, seconds, warmup, read
                )
                committed, commit_cost = await commits(stub, fighters, seconds, warmup, read)
    return {"placed": placed, "committed": committed, "place": place_cost, "commit": commit_cost}


def run(options: Options) -> Report:
    seconds, warmup = (2.0, 0.5) if options.quick else (10.0, 2.0)
    with gateway_backend("triad-battlebench-") as (cores, backend, nats_pid, _):
        found = asyncio.run(measure_all(backend, nats_pid, seconds, warmup))
    place: LevelCost = found["place"]
    commit: LevelCost = found["commit"]
    print("PlaceCard:\n" + format_costs([place]))
    print("CommitPlan:\n" + format_costs([commit]))
    ratio = commit.cpu_ms_per_placement_total / place.cpu_ms_per_placement_total
    return Report(
        benchmark=NAME,
        parameters={
            "battles": BATTLES,
            "matches": BATTLES,
            "seconds": seconds,
            "warmup_seconds": warmup,
            "database": OWN_SERVERS,
            "cores": cores,
            "settings": {**LOAD_ENV, **SETTINGS_ENV},
        },
        measurements={
            "placements": measurement(
                "placements", "calls/s", f"PlaceCard at {BATTLES} matches", found["placed"]
            ),
            "commit_plans": measurement(
                "commit_plans",
                "calls/s",
                f"CommitPlan at {BATTLES} battles (both players)",
                found["committed"],
            ),
        },
        baseline="placements",
        notes=[
            "cpu.commit_plans counts every backend process over the committing phases per "
            "CommitPlan: half of the commits resolve their battle's turn (the second of a "
            "battle), so the figure includes turn resolution, the event log, the views "
            "pushed to both players and the relay.",
            "Same run, same machine, same concurrency: the ratio is what the target reads.",
        ],
        extra={
            "cpu": {"placements": place.to_json(), "commit_plans": commit.to_json()},
            "latency": {
                "placements": found["placed"].summary(),
                "commit_plans": found["committed"].summary(),
            },
            "targets": {
                "commit_plan_cpu_over_place_card_cpu": target(ratio, 1.0, minimum=False),
            },
        },
    )
