"""``triad-client play`` at the end of a Difference match, against a stand-in for the
gateway that serves a hand-built match and trade and writes down every ChooseTradeCard
it receives (one JSON line each in LOG): the terminal tests run it in a
pseudo-terminal, type at its prompt and read the log.

    python -m client.tests.pick winner|late|loser LOG

winner: Ann won; her choice is taken and the trade completes.
late: Ann won but chooses after the server's pick: the choice is refused as the
  server words it, then the server's pick arrives.
loser: Bea lost; what is at stake, then (once a file LOG.go exists) what was taken.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.play import play
from client.tests.stand_in import Caller
from client.tests.trades import completed, copy_id, difference, finished

SERVER_PICK = [copy_id(0), copy_id(4)]
LATE = (
    "cards were already chosen by the server: Quistis Trepe, Shiva; "
    "a trade moves 2 cards, chosen at once"
)


class Gateway:
    """The few RPCs ``play`` makes at a match's end, answered from one trade."""

    def __init__(self, scenario: str, log: Path) -> None:
        self.scenario, self.log = scenario, log
        mine = pb.SEAT_B if scenario == "loser" else pb.SEAT_A
        self.view = finished(pb.TRADE_RULE_DIFFERENCE, mine=mine)
        role = pb.TRADE_ROLE_GIVER if scenario == "loser" else pb.TRADE_ROLE_CHOOSER
        self.trade = difference(role)
        self.result: asyncio.Queue[pb.Trade] = asyncio.Queue()

    def OpenSession(self, request: Message, metadata: Any = None) -> AsyncIterator[Any]:
        return self._session()

    async def _session(self) -> AsyncIterator[g.OpenSessionResponse]:
        yield g.OpenSessionResponse(session_opened=g.SessionOpened(active_match=self.view))
        yield g.OpenSessionResponse(trade_prompt=self.trade)
        if self.scenario == "loser":
            go = self.log.with_suffix(".go")
            while not go.exists():
                await asyncio.sleep(0.05)
            await self.result.put(completed(self.trade, [copy_id(1), copy_id(3)]))
        yield g.OpenSessionResponse(trade_result=await self.result.get())
        await asyncio.Event().wait()  # the stream stays open

    async def GetPendingTrade(self, request: Message) -> g.GetPendingTradeResponse:
        return g.GetPendingTradeResponse(trade=self.trade)

    async def ChooseTradeCard(self, request: g.ChooseTradeCardRequest) -> Any:
        with self.log.open("a") as out:
            out.write(json.dumps(json_format.MessageToDict(request)) + "\n")
        if self.scenario == "late":
            await self.result.put(completed(self.trade, SERVER_PICK, auto=True))
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details=LATE,
            )
        self.trade = completed(self.trade, list(request.copy_ids))
        return g.ChooseTradeCardResponse(trade=self.trade)


async def main() -> None:
    caller = Caller(Gateway(sys.argv[1], Path(sys.argv[2])))
    await play(caller, Console())  # type: ignore[arg-type]  # the stand-in's few calls


if __name__ == "__main__":
    asyncio.run(main())
