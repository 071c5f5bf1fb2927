"""``triad-client battle``'s screen against a stand-in for the gateway whose turn resolves
(its deadline passed) while the player types a plan: the battle is at turn 2 until the
file ``LOG.turned`` exists, then at turn 3, whose view the session pushes. Each
CommitPlan is written to LOG, a line ``<turn> <card ids>``. With ``committed``, the
player's plan for turn 2 is in already.

    python -m client.tests.battle_turned LOG [committed]
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle import play_battle
from services.battle.presenter import battle_view
from services.battle.tests.builders import ANN, BEA, ROSTER, commit, context, start


async def turns() -> tuple[pb.BattleView, pb.BattleView]:
    """Ann's views of turns 2 and 3, her plan still to commit (both passed turn 1 and 2:
    the same hand)."""
    ctx, _, _ = context()
    await start(ctx)
    await commit(ctx, "b1", ANN)
    second = battle_view(await commit(ctx, "b1", BEA), 0, ROSTER)
    await commit(ctx, "b1", ANN)
    return second, battle_view(await commit(ctx, "b1", BEA), 0, ROSTER)


class Gateway:
    def __init__(self, second: pb.BattleView, third: pb.BattleView, log: Path) -> None:
        self.view, self.third, self.log = second, third, log

    async def GetBattleView(self, request: Message) -> g.GetBattleViewResponse:
        return g.GetBattleViewResponse(view=self.view)

    async def turned(self) -> pb.BattleView:
        """Turn 3's view, once the test says the turn resolved."""
        while not self.log.with_suffix(".turned").exists():
            await asyncio.sleep(0.05)
        self.view = self.third
        return self.view

    async def CommitPlan(self, request: g.CommitPlanRequest) -> g.CommitPlanResponse:
        with self.log.open("a") as out:
            out.write(f"{request.turn} {' '.join(a.card for a in request.actions)}\n")
        after = pb.BattleView()
        after.CopyFrom(self.view)
        after.you.committed = True
        return g.CommitPlanResponse(view=after)


class Caller:
    def __init__(self, stub: Gateway) -> None:
        self.stub = stub

    async def call(self, method: Callable[[Message], Awaitable[Any]], request: Message) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        yield g.OpenSessionResponse(session_opened=g.SessionOpened())
        yield g.OpenSessionResponse(battle=await self.stub.turned())
        await asyncio.Event().wait()  # nothing more to say


async def main() -> None:
    second, third = await turns()
    second.you.committed = sys.argv[2:] == ["committed"]
    await play_battle(Caller(Gateway(second, third, Path(sys.argv[1]))), second)


if __name__ == "__main__":
    asyncio.run(main())
