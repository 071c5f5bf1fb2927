"""Domain values <-> ``triad.v1`` protobuf messages, for the match service's two edges:
the event store (events are stored as protobuf bytes) and the gRPC server (views)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.match.events import (
    CardPlaced,
    FinishReason,
    Forfeited,
    MatchCard,
    MatchCreated,
    MatchEvent,
    MatchFinished,
    MatchRules,
    Mode,
    Origin,
    PlayerDisconnected,
    PlayerReconnected,
    SeatPlayer,
    SeatStart,
    TurnTimedOut,
    TurnWarningIssued,
)
from services.match.rules import Capture, Cause, Rules, Seat, Visibility
from services.wire import (
    ELEMENTS,
    ELEMENTS_BACK,
    LADDERS,
    LADDERS_BACK,
    SIDES,
    SIDES_BACK,
    duration,
    moment,
    sides,
    sides_back,
    timestamp,
)

# --- enums -------------------------------------------------------------------------------

SEATS: dict[Seat | None, pb.Seat.ValueType] = {
    None: pb.SEAT_UNSPECIFIED,
    Seat.A: pb.SEAT_A,
    Seat.B: pb.SEAT_B,
}
SEATS_BACK: dict[int, Seat | None] = {v: k for k, v in SEATS.items()}
MODES: dict[Mode | None, pb.Mode.ValueType] = {None: pb.MODE_UNSPECIFIED} | {
    m: pb.Mode.Value(f"MODE_{m.name}") for m in Mode
}
MODES_BACK: dict[int, Mode | None] = {v: k for k, v in MODES.items()}
VISIBILITIES: dict[Visibility, pb.Visibility.ValueType] = {
    v: pb.Visibility.Value(f"VISIBILITY_{v.name}") for v in Visibility
}
VISIBILITIES_BACK = {v: k for k, v in VISIBILITIES.items()}
CAUSES: dict[Cause, pb.CaptureCause.ValueType] = {
    c: pb.CaptureCause.Value(f"CAPTURE_CAUSE_{c.name}") for c in Cause
}
CAUSES_BACK = {v: k for k, v in CAUSES.items()}
REASONS: dict[FinishReason, pb.FinishReason.ValueType] = {
    r: pb.FinishReason.Value(f"FINISH_REASON_{r.name}") for r in FinishReason
}
REASONS_BACK = {v: k for k, v in REASONS.items()}
ORIGINS: dict[Origin, pb.CardOrigin.ValueType] = {
    o: pb.CardOrigin.Value(f"CARD_ORIGIN_{o.name}") for o in Origin
}
ORIGINS_BACK = {v: k for k, v in ORIGINS.items()}
BOT_LEVELS: dict[str, pb.BotLevel.ValueType] = {"": pb.BOT_LEVEL_UNSPECIFIED} | {
    name.removeprefix("BOT_LEVEL_").lower(): value
    for name, value in pb.BotLevel.items()
    if value != pb.BOT_LEVEL_UNSPECIFIED
}
BOT_LEVELS_BACK = {v: k for k, v in BOT_LEVELS.items()}


# --- time ----------------------------------------------------------------------------------


# --- values --------------------------------------------------------------------------------


@lru_cache(maxsize=65_536)
def card(value: MatchCard) -> pb.Card:
    """The protobuf card, built once per card: every view carries the hands and board.
    Callers copy it into their messages (constructors and CopyFrom copy) and never
    mutate the cached one."""
    return pb.Card(
        card_id=value.card_id,
        origin=ORIGINS[value.origin],
        character=pb.Character(
            character_id=value.character_id,
            name=value.name,
            stars=value.stars,
            element=ELEMENTS[value.element],
            sides=sides(value.base_sides),
        ),
        holo=value.holo,
        holo_side=SIDES[value.holo_side],
        printed_sides=sides(value.sides),
    )


def card_back(message: pb.Card) -> MatchCard:
    character = message.character
    return MatchCard(
        card_id=message.card_id,
        character_id=character.character_id,
        name=character.name,
        stars=character.stars,
        element=ELEMENTS_BACK[character.element],
        base_sides=sides_back(character.sides),
        sides=sides_back(message.printed_sides),
        holo=message.holo,
        holo_side=SIDES_BACK[message.holo_side],
        origin=ORIGINS_BACK.get(message.origin, Origin.OWNED_COPY),
    )


def seat_player(seat: Seat, value: SeatPlayer) -> pb.SeatPlayer:
    return pb.SeatPlayer(
        seat=SEATS[seat],
        player_id=value.player_id,
        player_name=value.name,
        is_bot=value.is_bot,
        bot_level=BOT_LEVELS[value.bot_level],
    )


def seat_player_back(message: pb.SeatPlayer) -> SeatPlayer:
    return SeatPlayer(
        message.player_id, message.player_name, message.is_bot, BOT_LEVELS_BACK[message.bot_level]
    )


@lru_cache(maxsize=1_024)
def rules(setup: MatchRules) -> pb.Rules:
    """Built once per rule set (every view carries it); shared like :func:`card`."""
    r = setup.rules
    return pb.Rules(
        visibility=VISIBILITIES[setup.visibility],
        same=r.same,
        plus=r.plus,
        combo=r.combo,
        elemental=r.elemental,
        same_wall=r.same_wall,
        trade_rule=pb.TRADE_RULE_ONE if setup.trade_one else pb.TRADE_RULE_NONE,
        board=pb.BoardShape(
            rows=setup.rows, columns=setup.cols, blocked_cells=sorted(setup.blocked)
        ),
    )


@lru_cache(maxsize=1_024)
def ladder(setup: MatchRules) -> pb.LadderKey | None:
    """Built once per rule set, like :func:`rules`."""
    if not setup.ladder:
        return None
    return pb.LadderKey(ladder=LADDERS[setup.ladder], season=setup.season)


def setup_back(
    mode: int, origin_mode: int, message: pb.Rules, ladder_key: pb.LadderKey | None
) -> MatchRules:
    """Rules as a request or an event carries them; an unset board means 3x3."""
    board = message.board
    found_mode = MODES_BACK.get(mode)
    if found_mode is None:
        raise ValueError("a match needs a mode")
    return MatchRules(
        mode=found_mode,
        rules=Rules(
            message.same, message.plus, message.combo, message.elemental, message.same_wall
        ),
        visibility=VISIBILITIES_BACK[message.visibility],
        rows=board.rows or 3,
        cols=board.columns or 3,
        blocked=frozenset(board.blocked_cells),
        trade_one=message.trade_rule == pb.TRADE_RULE_ONE,
        ladder="" if ladder_key is None else LADDERS_BACK[ladder_key.ladder],
        season=0 if ladder_key is None else ladder_key.season,
        origin_mode=MODES_BACK.get(origin_mode),
    )


def captures(values: tuple[Capture, ...]) -> list[pb.Capture]:
    return [pb.Capture(cell=c.cell, cause=CAUSES[c.cause]) for c in values]


def captures_back(messages: Any) -> tuple[Capture, ...]:
    return tuple(Capture(c.cell, CAUSES_BACK[c.cause]) for c in messages)


def outcome(event: MatchFinished) -> pb.MatchOutcome:
    message = pb.MatchOutcome(
        reason=REASONS[event.reason],
        forfeiting_seat=SEATS[event.forfeited],
        final_scores=pb.Scores(seat_a=event.scores[0], seat_b=event.scores[1]),
        finish_time=timestamp(event.finished_at),
    )
    if event.winner is None:
        message.draw.SetInParent()
    else:
        message.winner_seat = SEATS[event.winner]
    return message


# --- events --------------------------------------------------------------------------------


def _created(e: MatchCreated) -> ev.MatchCreated:
    return ev.MatchCreated(
        match_id=e.match_id,
        mode=MODES[e.setup.mode],
        origin_mode=MODES[e.setup.origin_mode],
        rules=rules(e.setup),
        ladder=ladder(e.setup),
        seats=[
            ev.SeatStart(
                player=seat_player(seat, start.player),
                hand=[card(c) for c in start.hand],
                revealed_card_ids=sorted(start.revealed),
                session_id=start.session_id,
                disconnect_forfeit_time=timestamp(start.forfeit_at),
            )
            for seat, start in zip((Seat.A, Seat.B), e.seats, strict=True)
        ],
        cell_marks=[ELEMENTS[m] for m in e.marks],
        first_seat=SEATS[e.first],
        first_turn_deadline_time=timestamp(e.first_deadline),
        turn_duration=duration(e.turn_seconds),
        disconnect_grace=duration(e.disconnect_seconds),
        origin_id=e.origin_id,
        create_time=timestamp(e.created_at),
    )


def _created_back(m: ev.MatchCreated, at: datetime) -> MatchCreated:
    starts = tuple(
        SeatStart(
            seat_player_back(s.player),
            tuple(card_back(c) for c in s.hand),
            frozenset(s.revealed_card_ids),
            s.session_id,
            moment(s.disconnect_forfeit_time) if s.HasField("disconnect_forfeit_time") else None,
        )
        for s in m.seats
    )
    return MatchCreated(
        match_id=m.match_id,
        setup=setup_back(
            m.mode, m.origin_mode, m.rules, m.ladder if m.HasField("ladder") else None
        ),
        seats=(starts[0], starts[1]),
        marks=tuple(ELEMENTS_BACK[x] for x in m.cell_marks),
        first=_seat(m.first_seat),
        first_deadline=moment(m.first_turn_deadline_time),
        turn_seconds=m.turn_duration.ToTimedelta().total_seconds(),
        disconnect_seconds=m.disconnect_grace.ToTimedelta().total_seconds(),
        created_at=moment(m.create_time) if m.HasField("create_time") else at,
        origin_id=m.origin_id,
    )


def _placed(e: CardPlaced, cards: dict[str, MatchCard]) -> ev.CardPlaced:
    message = ev.CardPlaced(
        match_id=e.match_id,
        turn_number=e.turn,
        seat=SEATS[e.seat],
        card=card(cards[e.card_id]),
        cell=e.cell,
        captures=captures(e.captures),
        scores=pb.Scores(seat_a=e.scores[0], seat_b=e.scores[1]),
        auto_played=e.auto_played,
        warning_cleared=e.warning_cleared,
        next_turn_seat=SEATS[e.next_seat],
        next_turn_deadline_time=timestamp(e.next_deadline),
    )
    if e.auto_draw is not None:
        message.auto_play_draw.legal_move_count = e.auto_draw[0]
        message.auto_play_draw.drawn_index = e.auto_draw[1]
    return message


def _placed_back(m: ev.CardPlaced, at: datetime) -> CardPlaced:
    return CardPlaced(
        match_id=m.match_id,
        turn=m.turn_number,
        seat=_seat(m.seat),
        card_id=m.card.card_id,
        cell=m.cell,
        captures=captures_back(m.captures),
        scores=(m.scores.seat_a, m.scores.seat_b),
        next_seat=SEATS_BACK[m.next_turn_seat],
        next_deadline=moment(m.next_turn_deadline_time)
        if m.HasField("next_turn_deadline_time")
        else None,
        auto_played=m.auto_played,
        auto_draw=(m.auto_play_draw.legal_move_count, m.auto_play_draw.drawn_index)
        if m.HasField("auto_play_draw")
        else None,
        warning_cleared=m.warning_cleared,
    )


def _finished(e: MatchFinished) -> ev.MatchFinished:
    return ev.MatchFinished(
        match_id=e.match_id,
        mode=MODES[e.setup.mode],
        origin_mode=MODES[e.setup.origin_mode],
        ladder=ladder(e.setup),
        rated=e.rated,
        seats=[
            ev.FinishedSeat(
                player=seat_player(seat, player), score=score, original_card_ids=list(deck)
            )
            for seat, player, score, deck in zip(
                (Seat.A, Seat.B), e.players, e.scores, e.decks, strict=True
            )
        ],
        outcome=outcome(e),
        trade_rule=pb.TRADE_RULE_ONE if e.trade_one else pb.TRADE_RULE_NONE,
        placement_count=e.placements,
        origin_id=e.origin_id,
    )


def _finished_back(m: ev.MatchFinished, rules_message: pb.Rules | None = None) -> MatchFinished:
    o = m.outcome
    return MatchFinished(
        match_id=m.match_id,
        setup=setup_back(
            m.mode,
            m.origin_mode,
            rules_message or pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN),
            m.ladder if m.HasField("ladder") else None,
        ),
        players=(seat_player_back(m.seats[0].player), seat_player_back(m.seats[1].player)),
        decks=(tuple(m.seats[0].original_card_ids), tuple(m.seats[1].original_card_ids)),
        origin_id=m.origin_id,
        scores=(o.final_scores.seat_a, o.final_scores.seat_b),
        winner=SEATS_BACK[o.winner_seat] if o.WhichOneof("result") == "winner_seat" else None,
        reason=REASONS_BACK[o.reason],
        forfeited=SEATS_BACK[o.forfeiting_seat],
        rated=m.rated,
        trade_one=m.trade_rule == pb.TRADE_RULE_ONE,
        placements=m.placement_count,
        finished_at=moment(o.finish_time),
    )


def _seat(value: int) -> Seat:
    seat = SEATS_BACK.get(value)
    if seat is None:
        raise ValueError(f"a seat is A or B, got {value}")
    return seat


def type_name(message: Message) -> str:
    return message.DESCRIPTOR.full_name


def encode(event: MatchEvent, cards: dict[str, MatchCard]) -> Message:
    """The protobuf payload of a domain event. ``cards`` resolves card ids to cards
    (a CardPlaced payload carries the whole card for its consumers)."""
    if isinstance(event, MatchCreated):
        return _created(event)
    if isinstance(event, CardPlaced):
        return _placed(event, cards)
    if isinstance(event, TurnTimedOut):
        return ev.TurnTimedOut(
            match_id=event.match_id,
            turn_number=event.turn,
            seat=SEATS[event.seat],
            consecutive_misses=event.consecutive_misses,
        )
    if isinstance(event, TurnWarningIssued):
        return ev.TurnWarningIssued(
            match_id=event.match_id,
            seat=SEATS[event.seat],
            turn_number=event.turn,
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
            match_id=event.match_id,
            seat=SEATS[event.seat],
            session_id=event.session_id,
        )
    if isinstance(event, Forfeited):
        return ev.Forfeited(
            match_id=event.match_id,
            seat=SEATS[event.seat],
            reason=REASONS[event.reason],
        )
    return _finished(event)


_DECODERS: dict[str, Callable[[bytes, datetime, MatchRules | None], MatchEvent]] = {}


def decode(name: str, data: bytes, at: datetime, setup: MatchRules | None) -> MatchEvent:
    """The domain event of a stored payload. ``setup`` (from the stream's MatchCreated)
    restores the rules a MatchFinished payload does not repeat."""
    decoder = _DECODERS.get(name)
    if decoder is None:
        raise ValueError(f"unknown match event type {name!r}")
    return decoder(data, at, setup)


def _register() -> None:
    def finished(data: bytes, at: datetime, setup: MatchRules | None) -> MatchEvent:
        event = _finished_back(ev.MatchFinished.FromString(data))
        if setup is None:
            return event
        return replace(event, setup=setup)

    _DECODERS.update(
        {
            "triad.v1.MatchCreated": lambda d, at, _: _created_back(
                ev.MatchCreated.FromString(d), at
            ),
            "triad.v1.CardPlaced": lambda d, at, _: _placed_back(ev.CardPlaced.FromString(d), at),
            "triad.v1.TurnTimedOut": lambda d, at, _: _timed_out(ev.TurnTimedOut.FromString(d)),
            "triad.v1.TurnWarningIssued": lambda d, at, _: _warned(
                ev.TurnWarningIssued.FromString(d)
            ),
            "triad.v1.PlayerDisconnected": lambda d, at, _: _disconnected(
                ev.PlayerDisconnected.FromString(d)
            ),
            "triad.v1.PlayerReconnected": lambda d, at, _: _reconnected(
                ev.PlayerReconnected.FromString(d)
            ),
            "triad.v1.Forfeited": lambda d, at, _: _forfeited(ev.Forfeited.FromString(d)),
            "triad.v1.MatchFinished": finished,
        }
    )


def _timed_out(m: ev.TurnTimedOut) -> TurnTimedOut:
    return TurnTimedOut(m.match_id, m.turn_number, _seat(m.seat), m.consecutive_misses)


def _warned(m: ev.TurnWarningIssued) -> TurnWarningIssued:
    return TurnWarningIssued(m.match_id, _seat(m.seat), m.turn_number)


def _disconnected(m: ev.PlayerDisconnected) -> PlayerDisconnected:
    return PlayerDisconnected(m.match_id, _seat(m.seat), m.session_id, moment(m.forfeit_time))


def _reconnected(m: ev.PlayerReconnected) -> PlayerReconnected:
    return PlayerReconnected(m.match_id, _seat(m.seat), m.session_id)


def _forfeited(m: ev.Forfeited) -> Forfeited:
    return Forfeited(m.match_id, _seat(m.seat), REASONS_BACK[m.reason])


_register()
