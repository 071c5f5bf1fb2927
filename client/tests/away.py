"""``triad-client play`` opened in a 5x5 match just after another match of the player
ended while they were away, against a stand-in for the gateway: the session opens with
the match and the MATCH_ENDED_AWAY notice of the other one; once a file LOG.go exists
the match on the screen ends, lost, and its Difference trade opens (the player gives).
The terminal tests read where the notice is said, and what Ctrl-C says.

    python -m client.tests.away LOG
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
from client.tests.trades import difference, finished
from client.tests.views import quintra

AWAY = g.Notice(
    level=g.NOTICE_LEVEL_WARNING,
    code="MATCH_ENDED_AWAY",
    message="Your match against n0a1b2c3d4e5f ended while you were away: you won, "
    "by a second missed turn.",
    subject_id="01d0000-0000-0000-0000-000000000000",
)


class Gateway:
    def __init__(self, log: Path) -> None:
        self.log = log

    def OpenSession(self, request: Message, metadata: Any = None) -> AsyncIterator[Any]:
        return self._session()

    async def _session(self) -> AsyncIterator[g.OpenSessionResponse]:
        playing = quintra()
        yield g.OpenSessionResponse(session_opened=g.SessionOpened(active_match=playing))
        yield g.OpenSessionResponse(notice=AWAY)
        while not self.log.with_suffix(".go").exists():
            await asyncio.sleep(0.05)
        lost = finished(pb.TRADE_RULE_DIFFERENCE, mine=pb.SEAT_B)
        lost.version = playing.version + 1
        yield g.OpenSessionResponse(match_view=lost)
        yield g.OpenSessionResponse(trade_prompt=difference(pb.TRADE_ROLE_GIVER))
        await asyncio.Event().wait()  # the stream stays open

    async def GetPendingTrade(self, request: Message) -> g.GetPendingTradeResponse:
        return g.GetPendingTradeResponse(trade=difference(pb.TRADE_ROLE_GIVER))


if __name__ == "__main__":
    play_against(Gateway(Path(sys.argv[1])))
