"""What the load generator's simulated players report to their run, and what they
read from it (bench/load.py keeps the run, bench/load_client.py the players)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol


class Stopped(Exception):
    """The run is over: no more retries."""


@dataclass(frozen=True, slots=True)
class AckedPlacement:
    """A PlaceCard the gateway answered OK: it must be in the match's event log."""

    match_id: str
    player_id: str
    request_id: str
    cell: int
    card_id: str
    """The copy id (or bot/draft card id) placed."""
    answered_at: float
    """Unix time of the answer."""
    version: int
    """The match version in the answer's view."""


@dataclass(frozen=True, slots=True)
class AckedPlan:
    """A CommitPlan the gateway answered OK: it must be in the battle's log, once."""

    battle_id: str
    player_id: str
    request_id: str
    turn: int
    cards: tuple[str, ...]
    answered_at: float


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A match seen finished, from a player's final view."""

    match_id: str
    mode: str
    players: tuple[str, ...]
    """The seats' player names, seat A first ("[BOT] ..." for a bot)."""
    winner: str | None
    """The winner's player name; ``None`` for a draw."""
    reason: str
    finished_at: float
    player_ids: tuple[str | None, ...] = ()
    """The seats' player ids, seat A first; ``None`` for a bot (the run fills them in)."""


class Role(Enum):
    """A simulated player's part at a custom table (bench/load_tables.py)."""

    HOST = "host"
    """Opens the table as a challenge to the partner, then waits for them."""
    GUEST = "guest"
    """Waits for the partner's challenge, then joins it."""


@dataclass(frozen=True, slots=True)
class Meeting:
    """Two simulated players who drew the same table kind: who hosts, and whom."""

    role: Role
    partner: str
    """The other player's name."""


@dataclass(slots=True)
class Sample:
    at: float
    """Seconds since the run started, when the call was answered."""
    rpc: str
    code: str
    seconds: float
    detail: str = ""
    """The error's message (empty when OK)."""


class Shared(Protocol):
    """What a client reports to and reads from its run."""

    samples: list[Sample]
    started: float

    @property
    def playing(self) -> bool: ...  # start new matches?

    @property
    def alive(self) -> bool: ...  # still retrying?

    def acked(self, placement: AckedPlacement) -> None: ...

    def acked_plan(self, plan: AckedPlan) -> None: ...

    def battle_finished(self, battle_id: str) -> None: ...

    def finished_match(self, match: FinishedMatch) -> None: ...

    async def meet(self, kind: str, name: str, patience: float) -> Meeting | None:
        """Pair ``name`` with the next player who draws table ``kind`` within
        ``patience`` seconds; ``None`` when nobody came."""
        ...
