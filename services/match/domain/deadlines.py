"""The timers a match needs, a pure function of its state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from services.match.domain.state import SEATS, Match
from services.rules import Seat


class DeadlineKind(StrEnum):
    """What a timer does when it fires (its value is what operators read in the
    ``match_timers`` row)."""

    TURN = "turn"
    """The turn timer: a first miss auto-plays, a second forfeits."""
    DISCONNECT = "disconnect"
    """A disconnected seat's grace is over: it forfeits."""
    BOT = "bot"
    """A bot seat's turn has started: it moves."""


@dataclass(frozen=True, slots=True)
class Deadline:
    """A timer the service must fire."""

    kind: DeadlineKind
    seat: Seat
    due: datetime
    turn: int


def deadlines(match: Match) -> list[Deadline]:
    """Every timer the current state needs; the store replaces a match's timers with
    these in the same transaction as the events that produced the state."""
    if not match.in_progress or match.deadline is None:
        return []
    seat = match.position.to_move
    found = [Deadline(DeadlineKind.TURN, seat, match.deadline, match.turn)]
    if match.player(seat).is_bot:  # a bot moves as soon as its turn starts
        turn_start = match.deadline - timedelta(seconds=match.turn_seconds)
        found.append(Deadline(DeadlineKind.BOT, seat, turn_start, match.turn))
    for other in SEATS:
        due = match.disconnected[other]
        if due is not None:
            found.append(Deadline(DeadlineKind.DISCONNECT, other, due, match.turn))
    return found
