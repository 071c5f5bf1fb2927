"""``triad-client battle``'s screen against a stand-in for the gateway whose battle
ends while the player sits at the prompt: the opponent gives up a second in, and the
session pushes the battle's last view, as the gateway does. The screen never asks for
the battle (GetBattleView fails the run). The terminal test types nothing and reads
the screen.
With ``away``, the session opens telling of another battle that ended while the player
was away (``SessionOpened.missed_battle`` and its BATTLE_ENDED_AWAY notice); with
``stays``, the opponent never gives up (the test leaves with Ctrl-C, or gives up: the
battle then ends only by the player's GiveUp); with ``taken``, the same, the CPU playing
the player's seat (she was away); with ``logged``, as ``stays``, the last turn's log
holding ACTIONS actions (12), "Move 1" to "Move 12", each wrapping onto a second line.

    python -m client.tests.battling [away|stays|taken|logged [ACTIONS]]
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
        self.view, self.ends = view, ends

    async def GetBattleView(self, request: Message) -> g.GetBattleViewResponse:
        raise AssertionError("the screen asked for the battle: its views come on the session")

    async def GiveUp(self, request: Message) -> g.GiveUpResponse:
        self.view = over(self.view, 1 - self.view.seat)
        return g.GiveUpResponse(view=self.view)


def over(view: pb.BattleView, winner: int) -> pb.BattleView:
    """``view`` given up: won by ``winner``, one version on."""
    ended = pb.BattleView()
    ended.CopyFrom(view)
    ended.version += 1
    ended.status = pb.BATTLE_STATUS_FINISHED
    ended.outcome.winner_seat = winner
    ended.outcome.reason = "give_up"
    return ended


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
        if self.stub.ends:  # the opponent gives up
            await asyncio.sleep(1)
            self.stub.view = over(self.stub.view, self.stub.view.seat)
            yield g.OpenSessionResponse(battle=self.stub.view)
        await asyncio.Event().wait()  # nothing more to say


def logged(view: pb.BattleView, actions: int = 12) -> None:
    """``view``'s last turn: ``actions`` of hers, each hitting every unit of theirs."""
    view.ClearField("log")
    them = [u.uid for u in view.opponent.units]
    for n in range(1, actions + 1):
        hits = [pb.BattleEffect(unit=uid, change="damage", amount=n) for uid in them]
        actor = view.you.units[n % 3].uid
        view.log.add(
            seat=view.seat, actor=actor, card="x.move", card_name=f"Move {n}", effects=hits
        )


async def main() -> None:
    view = await selection()
    told = (AWAY,) if sys.argv[1:] == ["away"] else ()
    view.you.cpu = sys.argv[1:] == ["taken"]  # the CPU took the seat while she was away
    if sys.argv[1:2] == ["logged"]:
        logged(view, int(sys.argv[2]) if sys.argv[2:] else 12)
    ends = sys.argv[1:2] not in (["stays"], ["taken"], ["logged"])
    await play_battle(Caller(Gateway(view, ends=ends), told), view)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)  # as triad-client does
