"""The battle service's repository port: what the handlers need of storage, with no SQL.

A battle is the stream ``battle-<id>`` (``codec.stream_id``) in the platform's event
store. Saving a decision appends its events at the expected version and, in the same
transaction, replaces the battle's phase timer, keeps the players' active battle, clears
the disconnect timers the decision settled and records the request key: a crash leaves
all of it or none. Adapters: ``postgres.py`` and ``memory.py``, held to one contract
(``tests/test_store_contract.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from services.battle.domain import BattleState, Decision
from services.battle.domain.deadlines import DeadlineKind
from services.platform.eventstore import Recorded
from services.platform.requests import Request


@dataclass(frozen=True, slots=True)
class Write:
    battle_id: str
    decision: Decision
    request: Request | None = None
    settled: tuple[int, ...] = ()
    """Seats whose disconnect timer this decision settles (fired, or the battle over)."""


@dataclass(frozen=True, slots=True)
class DueTimer:
    battle_id: str
    kind: DeadlineKind
    seat: int


@dataclass(frozen=True, slots=True)
class Active:
    battle_id: str
    seat: int


class BattleRepository(Protocol):
    async def load(self, battle_id: str) -> BattleState | None:
        """The battle folded from its events (never re-resolving a turn), or None."""
        ...

    async def current(self, battle_id: str) -> BattleState | None:
        """The battle as this process last knew it, maybe behind the stream (a save
        then fails with ``WrongExpectedVersion`` and ``load`` catches up); ``load`` when
        it keeps none."""
        ...

    async def save(self, write: Write) -> None:
        """Everything a decision changes, in one transaction. ``WrongExpectedVersion``
        if the stream moved on; ``RequestSeen`` if the request id was recorded first."""
        ...

    async def answered(self, request: Request) -> str | None:
        """The battle a recorded request acted on; None if the request is new;
        ``RequestReused`` if its id came with other content."""
        ...

    async def active_battle(self, player_id: str) -> Active | None: ...

    async def record_presence(
        self, player_id: str, session_id: str, connected: bool, opened_at: datetime
    ) -> bool:
        """Record a session opening or ending; False when the report is about a session
        older than the latest one (it changes nothing)."""
        ...

    async def connected(self, player_id: str) -> bool:
        """Whether the player's latest session is open."""
        ...

    async def missed_battle(self, player_id: str) -> str | None:
        """The battle that finished while the player's latest session was closed, taken:
        the next call answers None until another does."""
        ...

    async def set_disconnect(self, battle_id: str, seat: int, due: datetime) -> None: ...

    async def clear_disconnect(self, battle_id: str, seat: int) -> None: ...

    async def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[DueTimer]:
        """Due timers, each leased to this caller until ``now + lease`` (a claim whose
        command fails is tried again then; a successful save replaces it)."""
        ...

    async def next_due(self) -> datetime | None: ...

    async def in_progress(self) -> list[str]:
        """The battles not finished (a restarted service pushes their views)."""
        ...

    async def records(self, battle_id: str, after_version: int, limit: int) -> list[Recorded]:
        """Up to ``limit`` stored events of a battle after ``after_version``, in version
        order, as stored (for operators: ``GetBattleEvents``)."""
        ...
