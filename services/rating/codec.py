"""Event bytes in: the envelopes the rating service consumes, read as the ladders see them.

The rating service consumes two events of other services: ``MatchFinished`` (match)
and ``DraftForfeited`` (collection). ``decode`` reads an envelope's type and schema
version, brings an older payload up to the version this reader knows (``UPCASTERS``,
one function per change, none yet: both payloads are still at version 1 and have only
grown additive fields), and hands back the ladders' view of it, a ``FinishedGame``.

A payload that does not parse raises ``DecodeError`` (no retry can fix it: the consumer
logs it, counts it and lets its mark commit). A schema version newer than this reader
knows is read as the current one, as protobuf readers do with additive changes; a
change old readers cannot take gets a new version and an upcaster here.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.platform import codec as events
from services.platform.codec import Upcaster
from services.rating.domain import DRAW, LOSS, WIN, Contestant, FinishedGame, Ladder
from services.rating.mapping import ladder_key

__all__ = ["DecodeError", "decode"]

MATCH_FINISHED = "triad.v1.MatchFinished"
DRAFT_FORFEITED = "triad.v1.DraftForfeited"
BOT_PREFIX = "bot-"
"""A bot's player id starts with this (common.proto PlayerRef)."""

CURRENT_VERSION = {MATCH_FINISHED: 1, DRAFT_FORFEITED: 1}
"""The payload version this reader decodes, by event type."""

UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(event type, version)`` -> the payload at that version rewritten as version + 1."""

READER = events.Reader(UPCASTERS, events.read_newer_as_current("rating"))
"""A newer version is logged and read as the current one (additive changes only)."""

MODE_LADDERS: dict[pb.Mode.ValueType, Ladder] = {
    pb.MODE_RANKED: Ladder.RANKED,
    pb.MODE_DRAFT: Ladder.DRAFT,
}
OTHER_SEAT = {pb.SEAT_A: pb.SEAT_B, pb.SEAT_B: pb.SEAT_A}
NO_SEATS = (Contestant("", ""), Contestant("", ""))


def decode(envelope: ev.EventEnvelope) -> FinishedGame | None:
    """The ladders' view of a consumed event; None for a type this service does not rate."""
    current = CURRENT_VERSION.get(envelope.event_type)
    if current is None:
        return None
    payload = upcast(envelope.event_type, envelope.schema_version, envelope.payload, current)
    if envelope.event_type == MATCH_FINISHED:
        return finished_game(ev.MatchFinished.FromString(payload))
    return forfeited_draft(ev.DraftForfeited.FromString(payload))


def upcast(event_type: str, version: int, payload: bytes, current: int) -> bytes:
    """The payload brought up to ``current``, one upcaster per version it is behind.
    Version 0 (an envelope that left it unset) is version 1."""
    return READER.upcast(event_type, version, payload, current)


def score_a(outcome: pb.MatchOutcome) -> float | None:
    """Seat A's score: a winner, a draw, or (a forfeit recorded without a winner) the
    other seat of the one that forfeited; None when the outcome names none of these."""
    result = outcome.WhichOneof("result")
    if result == "draw":
        return DRAW
    winner = outcome.winner_seat if result == "winner_seat" else pb.SEAT_UNSPECIFIED
    if winner == pb.SEAT_UNSPECIFIED:
        winner = OTHER_SEAT.get(outcome.forfeiting_seat, pb.SEAT_UNSPECIFIED)
    if winner == pb.SEAT_A:
        return WIN
    if winner == pb.SEAT_B:
        return LOSS
    return None


def finished_game(message: ev.MatchFinished) -> FinishedGame:
    """The ladders' view of a MatchFinished. Seats come seat A first; a malformed event
    (not two seats) is treated as a game with no result, never rated."""
    seats = [
        Contestant(s.player.player_id, s.player.player_name, s.player.is_bot) for s in message.seats
    ]
    two = len(seats) == 2
    return FinishedGame(
        match_id=message.match_id,
        rated=message.rated,
        seats=(seats[0], seats[1]) if two else NO_SEATS,
        score_a=score_a(message.outcome) if two else None,
        ladder=ladder_key(message.ladder) if message.HasField("ladder") else None,
        mode_ladder=MODE_LADDERS.get(message.mode),
        draft_id=message.origin_id if message.mode == pb.MODE_DRAFT else "",
    )


def forfeited_draft(message: ev.DraftForfeited) -> FinishedGame:
    """The ladders' view of a draft forfeited before its match (RULES.md 10): the one
    participant who forfeited loses to the other. Both forfeited, or no winner named:
    no result. An event from before it carried the participants gives the winner and
    the forfeiter, seat order unknown and names empty (the names known are kept)."""
    forfeiting = list(message.forfeiting_player_ids)
    winner = message.winner_player_id
    seats = [
        Contestant(p.player_id, p.player_name, p.player_id.startswith(BOT_PREFIX))
        for p in message.players
    ]
    if len(seats) != 2 and len(forfeiting) == 1 and winner:
        seats = [Contestant(i, "", i.startswith(BOT_PREFIX)) for i in (winner, forfeiting[0])]
    two = len(seats) == 2
    ids = [s.player_id for s in seats]
    score: float | None = None
    if (
        two
        and len(forfeiting) == 1
        and winner != forfeiting[0]
        and {winner, forfeiting[0]} == set(ids)
    ):
        score = LOSS if forfeiting[0] == ids[0] else WIN
    return FinishedGame(
        match_id="",
        rated=True,
        seats=(seats[0], seats[1]) if two else NO_SEATS,
        score_a=score,
        ladder=ladder_key(message.ladder) if message.HasField("ladder") else None,
        mode_ladder=Ladder.DRAFT,
        draft_id=message.draft_id,
    )
