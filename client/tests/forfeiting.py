"""``triad-client play`` in a 3x3 match in progress, Ann's turn, against a stand-in for
the gateway that writes down every Forfeit and PlaceCard it receives (the method's
name, one line each in LOG) and answers them as the server would: the match forfeited
(lost), or the card placed. The terminal tests type ``q`` at the match screen.

    python -m client.tests.forfeiting LOG
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.tests.stand_in import play_against
from client.tests.views import view


class Gateway:
    def __init__(self, log: Path) -> None:
        self.log = log
        self.view = view()

    def OpenSession(self, request: Message, metadata: Any = None) -> AsyncIterator[Any]:
        return self._session()

    async def _session(self) -> AsyncIterator[g.OpenSessionResponse]:
        yield g.OpenSessionResponse(session_opened=g.SessionOpened(active_match=self.view))
        await asyncio.Event().wait()  # the stream stays open

    def _called(self, method: str) -> pb.MatchView:
        with self.log.open("a") as out:
            out.write(method + "\n")
        after = pb.MatchView()
        after.CopyFrom(self.view)
        after.version += 1
        self.view = after
        return after

    async def Forfeit(self, request: g.ForfeitRequest) -> g.ForfeitResponse:
        lost = self._called("Forfeit")
        lost.status = pb.MATCH_STATUS_FINISHED
        lost.outcome.winner_seat = pb.SEAT_B
        lost.outcome.reason = pb.FINISH_REASON_FORFEIT
        lost.outcome.forfeiting_seat = pb.SEAT_A
        return g.ForfeitResponse(view=lost)

    async def PlaceCard(self, request: g.PlaceCardRequest) -> g.PlaceCardResponse:
        return g.PlaceCardResponse(view=self._called("PlaceCard"))


if __name__ == "__main__":
    play_against(Gateway(Path(sys.argv[1])))
