"""``triad-client play`` just after an Enqueue (or a challenge), against a stand-in
for the gateway whose session opens with the queued ticket (or the hosted table) in the
player's status and sends no push afterwards (the Enqueue's push went out before the
session subscribed; an Unranked queue sends none until a bot takes the seat at 20 s).
The terminal test types ``b`` and reads the SwitchToPractice calls written to LOG (or
Ctrl-C, and reads the CancelTicket calls written to LOG.cancel: the queue's screen says
Ctrl-C leaves); ``expired``: the challenge is hosted, then expires with its table (a
``table`` push); ``battle``: the ticket is one of the Battle queue; ``paired``: then the
queue pairs it (a ``battle`` push: the battle begins); ``challenged``: nothing is going
on, then ann challenges the player (a ``challenge`` push), then withdraws it; ``late``:
the session opens 2 s late, with a match in progress. It runs what ``triad-client
play`` runs (``resume``).

    python -m client.tests.queued LOG [hosted|expired|battle|paired|challenged|late]
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.play import resume
from client.tests.battling import selection
from client.tests.stand_in import Caller
from client.tests.views import view

TICKET = "5e1f0c2a-0000-4000-8000-000000000001"
TABLE = "30eb2069-0000-4000-8000-000000000002"


class Gateway:
    """OpenSession (the queued ticket in the status) and SwitchToPractice."""

    def __init__(self, log: Path, hosted: str = "") -> None:
        self.log, self.hosted = log, hosted

    def OpenSession(self, request: Message, metadata: Any = None) -> AsyncIterator[Any]:
        return self._session()

    async def _session(self) -> AsyncIterator[g.OpenSessionResponse]:
        enqueued = Timestamp()
        enqueued.GetCurrentTime()
        ticket = pb.Ticket(
            ticket_id=TICKET,
            mode=pb.MODE_BATTLE if self.hosted in ("battle", "paired") else pb.MODE_UNRANKED,
            status=pb.TICKET_STATUS_QUEUED,
            enqueue_time=enqueued,
        )
        opened = g.SessionOpened(status=g.PlayerStatus(ticket=ticket))
        if self.hosted in ("hosted", "expired"):
            table = pb.Table(
                table_id=TABLE,
                host_name="ann",
                challenged_player_name="bea",
                status=pb.TABLE_STATUS_OPEN,
                expire_time=enqueued,
            )
            table.expire_time.seconds += 600
            opened = g.SessionOpened(status=g.PlayerStatus(hosted_table=table))
        if self.hosted == "challenged":
            opened = g.SessionOpened(status=g.PlayerStatus())
        if self.hosted == "late":  # a session slow to open, with a match in progress
            await asyncio.sleep(2)
            opened = g.SessionOpened(status=g.PlayerStatus(), active_match=view())
        yield g.OpenSessionResponse(session_opened=opened)
        if self.hosted == "challenged":
            await asyncio.sleep(1)
            rules = pb.Rules(
                visibility=pb.VISIBILITY_ALL_OPEN,
                trade_rule=pb.TRADE_RULE_NONE,
                board=pb.BoardShape(rows=4, columns=4),
                house_hands=True,
            )
            challenge = pb.Table(
                table_id=TABLE,
                host_name="ann",
                settings=pb.TableSettings(rules=rules),
                challenged_player_name="bea",
                status=pb.TABLE_STATUS_OPEN,
            )
            yield g.OpenSessionResponse(challenge=challenge)
            await asyncio.sleep(1.5)
            challenge.status = pb.TABLE_STATUS_CLOSED
            yield g.OpenSessionResponse(challenge=challenge)
        if self.hosted == "expired":
            await asyncio.sleep(1)
            expired = pb.Table()
            expired.CopyFrom(opened.status.hosted_table)
            expired.status = pb.TABLE_STATUS_EXPIRED
            yield g.OpenSessionResponse(table=expired)
        if self.hosted == "paired":
            await asyncio.sleep(1)
            yield g.OpenSessionResponse(battle=await self.battle())
        await asyncio.Event().wait()  # the stream stays open, with no queue push

    async def battle(self) -> pb.BattleView:
        return await selection()

    async def GetBattleView(self, request: Message) -> g.GetBattleViewResponse:
        return g.GetBattleViewResponse(view=await self.battle())

    async def SwitchToPractice(self, request: g.SwitchToPracticeRequest) -> Any:
        with self.log.open("a") as out:
            out.write(json.dumps(json_format.MessageToDict(request)) + "\n")
        return g.SwitchToPracticeResponse(view=view(names=("ann", "[BOT] Nimbus Cat")))

    async def CancelTicket(self, request: g.CancelTicketRequest) -> Any:
        with self.log.with_suffix(".cancel").open("a") as out:
            out.write(json.dumps(json_format.MessageToDict(request)) + "\n")
        return g.CancelTicketResponse()


async def main() -> None:
    caller = Caller(Gateway(Path(sys.argv[1]), hosted="".join(sys.argv[2:])))
    await resume(caller, Console())  # type: ignore[arg-type]  # the stand-in's few calls


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)  # as triad-client does
