"""The matchmaker's side of the player pushes (``services/platform/pushes.py``): the
handlers' ``Pushes`` port on a player's NATS subject. A ticket's status travels as
``queue_status`` (the QueueStatus WatchQueue streams and GetQueueStatus answers), a
hosted table as ``table`` (the Table the lobby's calls answer), and a challenge, to the
challenged player, as ``challenge`` (the same Table)."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from services.matchmaker import mapping
from services.matchmaker.domain import Table
from services.matchmaker.handlers import QueueView
from services.platform.pushes import PlayerPushes

QUEUE_STATUS = "queue_status"
TABLE = "table"
CHALLENGE = "challenge"


def status(view: QueueView) -> pb.QueueStatus:
    return pb.QueueStatus(
        ticket=mapping.ticket(view.ticket),
        wait_duration=mapping.duration(view.waited),
        queue_length=view.queue_length,
        rating_window=view.window,
        bot_fill_delay=None
        if view.bot_fill_delay is None
        else mapping.duration(view.bot_fill_delay),
        practice_available=view.practice_available,
    )


class PlayerUpdates:
    """``handlers.Pushes`` on the platform's player pushes."""

    def __init__(self, pushes: PlayerPushes) -> None:
        self._pushes = pushes

    async def queue_status(self, view: QueueView) -> None:
        await self._pushes.send(view.ticket.player_id, QUEUE_STATUS, status(view))

    async def table(self, table: Table) -> None:
        await self._pushes.send(table.host_id, TABLE, mapping.table(table))

    async def challenge(self, table: Table) -> None:
        await self._pushes.send(table.challenged_id, CHALLENGE, mapping.table(table))
