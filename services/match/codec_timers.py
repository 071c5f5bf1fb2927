"""The payloads of the match events that timers and presence make (a missed turn, its
warning, a seat away and back, clocks restarted, a forfeit): ``codec.py`` encodes and
decodes every event, these through :func:`timer_payload` and :data:`TIMER_DECODERS`."""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.message import Message
from triad.v1 import events_pb2 as ev

from services.match.domain.events import (
    ClocksRestarted,
    Forfeited,
    MatchEvent,
    PlayerDisconnected,
    PlayerReconnected,
    TurnTimedOut,
    TurnWarningIssued,
)
from services.match.mapping import REASONS, REASONS_BACK, SEATS, SEATS_BACK
from services.rules import Seat
from services.wire import duration, moment, timestamp


def timer_payload(event: MatchEvent) -> Message | None:
    """The protobuf payload of a timer or presence event; None for any other event."""
    if isinstance(event, TurnTimedOut):
        return ev.TurnTimedOut(
            match_id=event.match_id,
            turn_number=event.turn,
            seat=SEATS[event.seat],
            consecutive_misses=event.consecutive_misses,
        )
    if isinstance(event, TurnWarningIssued):
        return ev.TurnWarningIssued(
            match_id=event.match_id, seat=SEATS[event.seat], turn_number=event.turn
        )
    if isinstance(event, PlayerDisconnected):
        return ev.PlayerDisconnected(
            match_id=event.match_id,
            seat=SEATS[event.seat],
            session_id=event.session_id,
            forfeit_time=timestamp(event.forfeit_at),
        )
    if isinstance(event, PlayerReconnected):
        return ev.PlayerReconnected(
            match_id=event.match_id, seat=SEATS[event.seat], session_id=event.session_id
        )
    if isinstance(event, ClocksRestarted):
        return ev.ClocksRestarted(
            match_id=event.match_id,
            turn_number=event.turn,
            turn_deadline=timestamp(event.deadline),
            forfeit_time_a=timestamp(event.forfeit_at[0]),
            forfeit_time_b=timestamp(event.forfeit_at[1]),
            late=duration(event.late_seconds),
        )
    if isinstance(event, Forfeited):
        return ev.Forfeited(
            match_id=event.match_id, seat=SEATS[event.seat], reason=REASONS[event.reason]
        )
    return None


def seat(value: int) -> Seat:
    found = SEATS_BACK.get(value)
    if found is None:
        raise ValueError(f"a seat is A or B, got {value}")
    return found


def _restarted(data: bytes) -> ClocksRestarted:
    m = ev.ClocksRestarted.FromString(data)
    away = tuple(
        moment(getattr(m, field)) if m.HasField(field) else None
        for field in ("forfeit_time_a", "forfeit_time_b")
    )
    return ClocksRestarted(
        m.match_id,
        m.turn_number,
        moment(m.turn_deadline),
        (away[0], away[1]),
        m.late.ToTimedelta().total_seconds(),
    )


def _timed_out(data: bytes) -> TurnTimedOut:
    m = ev.TurnTimedOut.FromString(data)
    return TurnTimedOut(m.match_id, m.turn_number, seat(m.seat), m.consecutive_misses)


def _warned(data: bytes) -> TurnWarningIssued:
    m = ev.TurnWarningIssued.FromString(data)
    return TurnWarningIssued(m.match_id, seat(m.seat), m.turn_number)


def _disconnected(data: bytes) -> PlayerDisconnected:
    m = ev.PlayerDisconnected.FromString(data)
    return PlayerDisconnected(m.match_id, seat(m.seat), m.session_id, moment(m.forfeit_time))


def _reconnected(data: bytes) -> PlayerReconnected:
    m = ev.PlayerReconnected.FromString(data)
    return PlayerReconnected(m.match_id, seat(m.seat), m.session_id)


def _forfeited(data: bytes) -> Forfeited:
    m = ev.Forfeited.FromString(data)
    return Forfeited(m.match_id, seat(m.seat), REASONS_BACK[m.reason])


TIMER_DECODERS: dict[str, Callable[[bytes], MatchEvent]] = {
    "triad.v1.TurnTimedOut": _timed_out,
    "triad.v1.TurnWarningIssued": _warned,
    "triad.v1.PlayerDisconnected": _disconnected,
    "triad.v1.PlayerReconnected": _reconnected,
    "triad.v1.ClocksRestarted": _restarted,
    "triad.v1.Forfeited": _forfeited,
}
"""Type name -> the domain event of a stored payload."""
