"""What one session has shown (``Shown``), so that no push repeats what it showed;
``Shows``, what it is to send for a push."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb

Shows = list[tuple[str, Message]]
"""Session push fields and their messages, in the order they are to be sent."""


@dataclass
class Shown:
    """What one session has shown, so that no push repeats what it showed."""

    player_id: str
    session_id: str
    opened_at: datetime
    views: dict[str, pb.MatchView] = field(default_factory=dict)
    """The last view shown of each match: its notices tell what changed since."""
    last: dict[str, bytes] = field(default_factory=dict)
    """The last message shown under each key (field, and the trade, draft or table)."""
    ended: set[str] = field(default_factory=set)
    """Tickets and trades whose end was told."""
    battles: dict[str, int] = field(default_factory=dict)
    """The version of the last view shown of each battle (Skirmish)."""
    met: dict[str, set[int]] = field(default_factory=dict)
    """The seats of each match a view shown had connected (notices.match_notices)."""

    def differs(self, key: str, message: Message) -> bool:
        raw = message.SerializeToString(deterministic=True)
        if self.last.get(key) == raw:
            return False
        self.last[key] = raw
        return True
