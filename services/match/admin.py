"""``triad-admin match show MATCH_ID``: a match's events and its final board, rebuilt
from the log alone (GetMatchEvents, with the operator token from TRIAD_ADMIN_TOKEN).

The tool itself (its options, its other commands, how a refusal is told) is
``services/admin.py``, which no service owns: it takes this module's :func:`show`.
"""

from __future__ import annotations

from triad.v1 import events_pb2 as ev
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc

from services import wire
from services.match import codec, domain
from services.match.domain.events import CardPlaced, MatchEvent, MatchFinished
from services.platform.eventpages import event_line, operator_events
from services.rules import Seat


async def fetch_events(address: str, token: str, match_id: str) -> list[ev.EventEnvelope]:
    """Every stored event of the match, page after page."""
    return await operator_events(
        address,
        token,
        lambda channel: match_pb2_grpc.MatchServiceStub(channel).GetMatchEvents,
        lambda version: m.MatchServiceGetMatchEventsRequest(
            match_id=match_id, from_version=version
        ),
    )


def describe(event: MatchEvent) -> str:
    if isinstance(event, CardPlaced):
        taken = ", ".join(f"{c.cell}:{c.cause.value}" for c in event.captures) or "none"
        auto = " (auto-played)" if event.auto_played else ""
        return f"{event.seat.name} places {event.card_id} on {event.cell}{auto}; captures {taken}"
    if isinstance(event, MatchFinished):
        winner = "draw" if event.winner is None else f"{event.winner.name} wins"
        return f"{winner} {event.scores[0]}-{event.scores[1]} ({event.reason.value})"
    return ", ".join(
        f"{name}={getattr(event, name)}"
        for name in getattr(event, "__slots__", ())
        if name not in ("match_id", "setup", "seats", "marks")
    )


def board_text(match: domain.Match) -> str:
    board = match.position.board
    rows = []
    for row in range(board.geometry.rows):
        cells = []
        for col in range(board.geometry.cols):
            index = row * board.geometry.cols + col
            card, owner = board.cards[index], board.owners[index]
            if index in board.geometry.blocked:
                cells.append("  ####  ")
            elif card is None or owner is None:
                cells.append(f"  ({index:2})  ")
            else:
                t, r, b, left = card.sides
                cells.append(f"{Seat(owner).name}:{t:X}{r:X}{b:X}{left:X} ")
        rows.append(" | ".join(cells))
    return "\n".join(rows)


async def show(address: str, token: str, match_id: str) -> None:
    """Print the match's events, then its players, scores and board as the log leaves
    them. A refused or unanswered call raises ``grpc.aio.AioRpcError``."""
    envelopes = await fetch_events(address, token, match_id)
    state: domain.Match | None = None
    for envelope in envelopes:
        setup = state.setup if state is not None else None
        event = codec.decode(
            envelope.event_type,
            envelope.schema_version,
            envelope.payload,
            wire.moment(envelope.record_time),
            setup,
        )
        state = domain.evolve(state, event)
        print(event_line(envelope, describe(event)))
    if state is not None:
        a, b = (state.player(seat) for seat in (Seat.A, Seat.B))
        print(f"\nA = {a.name}   B = {b.name}   scores {state.scores()[0]}-{state.scores()[1]}")
        print(board_text(state))
