"""``triad-client battle``'s screen against a stand-in for the gateway whose battle
ends while the player sits at the prompt: the opponent gives up after a few looks at
the battle (GetBattleView). The terminal test types nothing and reads the screen.

    python -m client.tests.battling
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle import play_battle
from services.battle.presenter import battle_view
from services.battle.tests.builders import ANN, BEA, ROSTER, commit, context, start


async def selection() -> pb.BattleView:
    """Ann's view of turn 2 of a battle, her plan still to commit."""
    ctx, _, _ = context()
    await start(ctx)
    await commit(ctx, "b1", ANN)
    return battle_view(await commit(ctx, "b1", BEA), 0, ROSTER)


class Gateway:
    def __init__(self, view: pb.BattleView) -> None:
        self.view, self.looks = view, 0

    async def GetBattleView(self, request: Message) -> g.GetBattleViewResponse:
        self.looks += 1
        if self.looks == 3:  # the opponent gives up
            ended = pb.BattleView()
            ended.CopyFrom(self.view)
            ended.status = pb.BATTLE_STATUS_FINISHED
            ended.outcome.winner_seat = ended.seat
            ended.outcome.reason = "give_up"
            self.view = ended
        return g.GetBattleViewResponse(view=self.view)


class Caller:
    def __init__(self, stub: Gateway) -> None:
        self.stub = stub

    async def call(self, method: Callable[[Message], Awaitable[Any]], request: Message) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        await asyncio.Event().wait()  # a session with nothing to say
        yield g.OpenSessionResponse()


async def main() -> None:
    view = await selection()
    await play_battle(Caller(Gateway(view)), view)


if __name__ == "__main__":
    asyncio.run(main())
