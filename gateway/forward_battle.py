"""The public Skirmish RPCs (BATTLE.md), which the battle service runs. Each names the
token's player; a battle the caller does not play is NOT_FOUND, and the opponent's hand
and plan never come back, because the service is asked as the caller.

A practice battle is started by the matchmaker, as every match is (one game at a time,
RULES.md 5); a retried StartPracticeBattle finds the battle its first try created.
"""

from __future__ import annotations

from typing import Any

from triad.v1 import battle_pb2 as b
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import matchmaker_pb2 as mm

from gateway.forwarding import Downstreams, ask, forwarded

WHAT = "battle"


class BattleRpcs(Downstreams):
    GetActiveBattle = forwarded(WHAT, "GetActiveBattle", g.GetActiveBattleResponse)
    SetFormation = forwarded(WHAT, "SetFormation", g.SetFormationResponse)
    SetPlan = forwarded(WHAT, "SetPlan", g.SetPlanResponse)
    CommitPlan = forwarded(WHAT, "CommitPlan", g.CommitPlanResponse)
    GiveUp = forwarded(WHAT, "GiveUp", g.GiveUpResponse)

    async def StartPracticeBattle(
        self, request: g.StartPracticeBattleRequest, context: Any
    ) -> g.StartPracticeBattleResponse:
        # The matchmaker starts it, under the hold on the player that every start takes,
        # so no Triad match, ticket or table begins beside it (RULES.md 5).
        reply = await ask(
            "matchmaker",
            self._matchmaker_stub().StartPracticeBattle,
            mm.MatchmakerServiceStartPracticeBattleRequest,
            request,
        )
        return g.StartPracticeBattleResponse(view=await self._battle_view(reply.battle_id))

    async def _battle_view(self, battle_id: str) -> pb.BattleView:
        reply = await ask(
            WHAT,
            self._battle_stub().GetBattleView,
            b.BattleServiceGetBattleViewRequest,
            g.GetBattleViewRequest(),
            battle_id=battle_id,
        )
        return reply.view

    async def GetBattleView(
        self, request: g.GetBattleViewRequest, context: Any
    ) -> g.GetBattleViewResponse:
        return g.GetBattleViewResponse(view=await self._battle_view(request.battle_id))
