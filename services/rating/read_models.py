"""Read models: what the reads return, standings and logged changes as plain values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from services.rating.domain import LadderKey, Standing


@dataclass(frozen=True, slots=True)
class PlayerStanding:
    """A player's standing on one ladder with what reads show beside it."""

    player_id: str
    name: str
    standing: Standing
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class Placing:
    """Ranked players rated strictly above a rating, and the ladder's ranked players."""

    above: int
    ranked_players: int


@dataclass(frozen=True, slots=True)
class Placings:
    """Ranked players rated strictly above each of some ratings held by a ranked player
    (a rating no ranked player holds is absent), and the ladder's ranked players."""

    above: dict[int, int]
    ranked_players: int


@dataclass(frozen=True, slots=True)
class Top:
    """The best of a ladder, best first (ties by player id), and its ranked players."""

    standings: list[PlayerStanding]
    ranked_players: int


@dataclass(frozen=True, slots=True)
class LoggedChange:
    """One row of the log of applied changes.

    ``seq`` is the order changes were applied in, over every ladder and player;
    ``player_seq`` numbers the player's own changes (their feed), from 1, without gaps.
    """

    seq: int
    player_seq: int
    key: LadderKey
    match_id: str
    player_id: str
    event_id: UUID
    opponent_id: str
    opponent_name: str
    rating_before: int
    rating_after: int
    k: int
    expected: float
    actual: float
    opponent_rating_before: int
    games_after: int
    applied_at: datetime
    draft_id: str = ""
    """The draft the result belongs to (a Draft match's draft, or the draft forfeited
    before its match, whose change has no ``match_id``); empty otherwise."""

    @property
    def delta(self) -> int:
        return self.rating_after - self.rating_before
