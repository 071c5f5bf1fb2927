"""A simulated player's Skirmish battles (issue 23): practice against the random CPU
through the gateway, the formation placed, each turn's plan committed from the player's
own view (the affordable cards that need no target), every acknowledged CommitPlan
reported to the run (the chaos run checks each is in the battle's log, and that no turn
resolved twice). Resilient as the rest of the client: the calls retry with the same
request, and a battle in progress is taken up again from the server's view."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from uuid import uuid4

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from bench.load_records import AckedPlan

BATTLE = "battle"
"""The mix's name for battles."""
FRONT = [pb.BattleSquare(row=r, col=0) for r in range(3)]


def simple_plan(view: pb.BattleView) -> list[pb.BattleAction]:
    """The affordable cards that need no target, in hand order: legal whatever the field."""
    energy, actions = view.you.energy, []
    for card in view.you.hand:
        untargeted = card.range in ("all", "allies", "self")
        if untargeted and not card.cooling and card.cost <= energy:
            energy -= card.cost
            actions.append(pb.BattleAction(character=card.owner, card=card.id))
    return actions


async def active_battle(client: Any) -> str:
    return str((await client.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id)


async def play_battle(client: Any, battle_id: str = "") -> None:
    """The battle in progress (``battle_id``), else a new practice battle, to its end."""
    if battle_id:
        view = (
            await client.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))
        ).view
    else:
        request = g.StartPracticeBattleRequest(
            request_id=uuid4().hex, bot_level=pb.BATTLE_BOT_LEVEL_RANDOM
        )
        view = (await client.call("StartPracticeBattle", request)).view
    while view.status != pb.BATTLE_STATUS_FINISHED:
        if view.you.cpu or view.you.committed:
            await asyncio.sleep(0.2)
            reply = await client.call(
                "GetBattleView", g.GetBattleViewRequest(battle_id=view.battle_id)
            )
            view = reply.view
        elif view.status == pb.BATTLE_STATUS_FORMATION:
            placing = g.SetFormationRequest(
                request_id=uuid4().hex, battle_id=view.battle_id, squares=FRONT
            )
            view = (await client.call("SetFormation", placing)).view
        else:
            view = await _commit(client, view)
    client.run.battle_finished(view.battle_id)


THINK = 0.3
"""Seconds a player looks at the screen before committing, at most (a real player
takes seconds; the CPU opponent answers at once, so without it a battle is a burst)."""


async def _commit(client: Any, view: pb.BattleView) -> pb.BattleView:
    await asyncio.sleep(THINK * client.rng.random())
    actions = simple_plan(view)
    request = g.CommitPlanRequest(
        request_id=uuid4().hex, battle_id=view.battle_id, turn=view.turn, actions=actions
    )
    reply = await client.call("CommitPlan", request)
    client.run.acked_plan(
        AckedPlan(
            view.battle_id,
            client.player_id,
            request.request_id,
            view.turn,
            tuple(a.card for a in actions),
            time.time(),
        )
    )
    return reply.view  # type: ignore[no-any-return]
