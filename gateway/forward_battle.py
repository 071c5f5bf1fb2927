"""The public Skirmish RPCs (BATTLE.md), which the battle service runs. Each names the
token's player; a battle the caller does not play is NOT_FOUND, and the opponent's hand
and plan never come back, because the service is asked as the caller.

A practice battle's id is derived from the caller and their request id, so a retried
StartPracticeBattle finds the battle its first try created instead of making another.
"""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, uuid5

from triad.v1 import battle_pb2 as b
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway.auth import caller
from gateway.forwarding import ask, forwarded, request_id
from gateway.status import PlayerStatusReads
from services.platform.downstream import INTERNAL_DEADLINE, call
from services.platform.errors import FailedPrecondition, short_id

WHAT = "battle"


class BattleRpcs(PlayerStatusReads):
    GetActiveBattle = forwarded(WHAT, "GetActiveBattle", g.GetActiveBattleResponse)
    SetFormation = forwarded(WHAT, "SetFormation", g.SetFormationResponse)
    SetPlan = forwarded(WHAT, "SetPlan", g.SetPlanResponse)
    CommitPlan = forwarded(WHAT, "CommitPlan", g.CommitPlanResponse)
    GiveUp = forwarded(WHAT, "GiveUp", g.GiveUpResponse)

    async def StartPracticeBattle(
        self, request: g.StartPracticeBattleRequest, context: Any
    ) -> g.StartPracticeBattleResponse:
        me = caller()
        key = request_id(request.request_id)
        await self._check_free(me.player_id, me.name)
        battle_id = str(uuid5(NAMESPACE_URL, f"triad:practice-battle:{me.player_id}:{key}"))
        level = request.bot_level or pb.BATTLE_BOT_LEVEL_GREEDY
        stub = self._battle_stub()
        await call(
            WHAT,
            stub.CreateBattle(
                b.BattleServiceCreateBattleRequest(
                    battle_id=battle_id,
                    request_id=key,
                    seats=[
                        pb.BattleSeat(
                            player_id=me.player_id,
                            name=me.name,
                            characters=request.characters,
                        ),
                        pb.BattleSeat(bot_level=level, name="CPU"),
                    ],
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.StartPracticeBattleResponse(view=await self._battle_view(battle_id))

    async def _check_free(self, player_id: str, name: str) -> None:
        """One game at a time (RULES.md 5; the matchmaker counts a battle as a match for
        everything it starts): no practice battle beside a Triad match, an open table,
        a queued ticket or an obligation (a trade, a draft). A part whose service does
        not answer is not checked."""
        status = await self._status(g.Player(player_id=player_id, player_name=name), partial=True)
        if status.active_match_id:
            raise FailedPrecondition(
                f"you are playing match {short_id(status.active_match_id)}; finish it first "
                "(triad-client play resumes it)"
            )
        if status.HasField("hosted_table"):
            raise FailedPrecondition(
                f"you host open table {status.hosted_table.table_id}: close it first"
            )
        if status.HasField("ticket"):
            raise FailedPrecondition(
                f"you have queued ticket {status.ticket.ticket_id}: cancel it first"
            )
        if status.obligations:
            raise FailedPrecondition(status.obligations[0].message)

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
