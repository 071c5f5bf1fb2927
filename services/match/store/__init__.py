"""Where matches are kept: the repository port and its two adapters.

- ``port``: what the handlers need (:class:`MatchRepository`, :class:`TimerClaim`) and
  what one command writes (:class:`Write`: events, timers, seats, request key).
- ``postgres``: :class:`MatchStore`, the service's adapter (group commit, state cache,
  ``match_save_batch()``).
- ``memory``: :class:`MemoryMatchStore`, the same contract in dictionaries, for handler
  tests that run without a database.
"""

from services.match.store.memory import MemoryMatchStore
from services.match.store.port import (
    Answered,
    MatchRepository,
    PlayerBusy,
    SessionReport,
    TimerClaim,
    Write,
    event_id,
    stream_id,
)
from services.match.store.postgres import NOTIFY_CHANNEL, MatchStore

__all__ = [
    "NOTIFY_CHANNEL",
    "Answered",
    "MatchRepository",
    "MatchStore",
    "MemoryMatchStore",
    "PlayerBusy",
    "SessionReport",
    "TimerClaim",
    "Write",
    "event_id",
    "stream_id",
]
