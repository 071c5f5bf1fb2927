"""``triad-client battle``'s screen against a stand-in for the gateway whose battle
ends while the player sits at the prompt: the opponent gives up after a few looks at
the battle (GetBattleView). The terminal test types nothing and reads the screen.
With ``away``, the session opens telling of another battle that ended while the player
was away (``SessionOpened.missed_battle`` and its BATTLE_ENDED_AWAY notice); with
``stays``, nobody gives up (the test leaves with Ctrl-C).

    python -m client.tests.battling [away|stays]
"""

from __future__ import annotations

import asyncio
import sys
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
    def __init__(self, view: pb.BattleView, ends: bool = True) -> None:
        self.view, self.looks, self.ends = view, 0, ends

    async def GetBattleView(self, request: Message) -> g.GetBattleViewResponse:
        self.looks += 1
        if self.looks == 3 and self.ends:  # the opponent gives up
            ended = pb.BattleView()
            ended.CopyFrom(self.view)
            ended.status = pb.BATTLE_STATUS_FINISHED
            ended.outcome.winner_seat = ended.seat
            ended.outcome.reason = "give_up"
            self.view = ended
        return g.GetBattleViewResponse(view=self.view)


AWAY = g.Notice(
    level=g.NOTICE_LEVEL_WARNING,
    code="BATTLE_ENDED_AWAY",
    message="Your battle against CPU ended while you were away: you lost, the CPU played "
    "your side after you left.",
    subject_id="b0",
)


class Caller:
    def __init__(self, stub: Gateway, told: tuple[g.Notice, ...] = ()) -> None:
        self.stub, self.told = stub, told

    async def call(self, method: Callable[[Message], Awaitable[Any]], request: Message) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        missed = pb.BattleView(battle_id="b0", status=pb.BATTLE_STATUS_FINISHED)
        yield g.OpenSessionResponse(
            session_opened=g.SessionOpened(missed_battle=missed) if self.told else None
        )
        for notice in self.told:
            yield g.OpenSessionResponse(notice=notice)
        await asyncio.Event().wait()  # nothing more to say


async def main() -> None:
    view = await selection()
    told = (AWAY,) if sys.argv[1:] == ["away"] else ()
    await play_battle(Caller(Gateway(view, ends=sys.argv[1:] != ["stays"]), told), view)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)  # as triad-client does
