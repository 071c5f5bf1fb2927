"""The timers a match needs, a pure function of its state; and their restart after the
server could not act (:func:`restart_clocks`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from services.match.domain.decide import Decision
from services.match.domain.events import ClocksRestarted
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


def restart_clocks(match: Match, now: datetime, late_seconds: float) -> Decision:
    """A timer of ``match`` found ``late_seconds`` after it came due, more than the
    timer loop is ever late while the service runs: the server could not act then (every
    replica down, PostgreSQL away), so no player could either. Instead of charging a
    missed turn or a forfeit for that time, the turn timer and every away seat's grace
    start again from ``now`` (RULES.md 5's spirit: a player loses turns they let pass,
    not the server's). Once a turn (``Match.restarted_turn``): a server late turn after
    turn still ends an abandoned match. No events when the match is over or has had its
    restart this turn."""
    if not match.in_progress or match.restarted_turn == match.turn or match.deadline is None:
        return Decision([], match)
    grace = timedelta(seconds=match.disconnect_seconds)
    away = tuple(None if due is None else now + grace for due in match.disconnected)
    event = ClocksRestarted(
        match.match_id,
        match.turn,
        now + timedelta(seconds=match.turn_seconds),
        (away[0], away[1]),
        late_seconds,
    )
    return Decision.folding(match, [event])
