"""Match events <-> stored bytes: the ``triad.v1`` event payloads, their type names and
schema versions.

Every event is written at :data:`SCHEMA_VERSION` of its type. Reading one back takes the
version recorded beside it (``Recorded.schema_version``); a payload written at an older
version is first brought up to date by the upcasters registered in :data:`UPCASTERS`
for its type, one step per version, so the decoders only ever see the current shape.
None are registered yet: every stored match event is at version 1. Fields added since
(rounds, RULES.md 12) read their proto3 defaults in older payloads and mean what the
older shape meant: a MatchFinished without ``round_count`` ended round 1, a MatchCreated
without ``rules.sudden_death`` plays one round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.match import mapping_realm
from services.match.codec_timers import TIMER_DECODERS, timer_payload
from services.match.codec_timers import seat as _seat
from services.match.domain.events import (
    CardPlaced,
    MatchCard,
    MatchCreated,
    MatchEvent,
    MatchFinished,
    MatchRules,
    RoundStarted,
    SeatStart,
    TradeRule,
)
from services.match.mapping import (
    MODES,
    REASONS_BACK,
    SEATS,
    SEATS_BACK,
    captures,
    captures_back,
    card,
    card_back,
    ladder,
    outcome,
    rules,
    seat_player,
    seat_player_back,
    setup_back,
)
from services.platform import codec as events
from services.platform.codec import Encoded, Upcaster
from services.platform.eventstore import Recorded
from services.rules import Seat
from services.wire import (
    ELEMENTS,
    ELEMENTS_BACK,
    TRADE_RULES,
    TRADE_RULES_BACK,
    duration,
    moment,
    timestamp,
)

SCHEMA_VERSION = 1
"""The schema version every match event is written at today."""

UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(type name, version) -> upcaster`` to ``version + 1``. A change to a payload that
old readers would misread gets a new :data:`SCHEMA_VERSION` and an entry here."""

READER = events.Reader(UPCASTERS, events.refuse_newer, unset_is_1=False)
"""Newer versions are refused, and so is version 0 (the store always records one)."""


def upcast(name: str, version: int, data: bytes) -> bytes:
    """``data`` of ``name`` at ``version`` brought up to :data:`SCHEMA_VERSION`; a newer
    version is refused (run the newer release), and so is version 0: the store always
    records one."""
    return READER.upcast(name, version, data, SCHEMA_VERSION)


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
        realm_draw_pile=[card(c) for c in e.draw_pile],
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
        draw_pile=tuple(card_back(c) for c in m.realm_draw_pile),
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
        **mapping_realm.event_fields(e.realm),
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
        realm=mapping_realm.event_back(m),
    )


def _round(e: RoundStarted) -> ev.RoundStarted:
    return ev.RoundStarted(
        match_id=e.match_id,
        round_number=e.round,
        first_seat=SEATS[e.first],
        hands=[
            ev.RoundHand(seat=SEATS[seat], card_ids=list(hand), revealed_card_ids=sorted(revealed))
            for seat, hand, revealed in zip((Seat.A, Seat.B), e.hands, e.revealed, strict=True)
        ],
        cell_marks=[ELEMENTS[m] for m in e.marks],
        blocked_cells=sorted(e.blocked),
        first_turn_deadline_time=timestamp(e.deadline),
        previous_scores=pb.Scores(seat_a=e.previous_scores[0], seat_b=e.previous_scores[1]),
    )


def _round_back(m: ev.RoundStarted) -> RoundStarted:
    hands = {_seat(h.seat): h for h in m.hands}
    if len(hands) != 2:
        raise ValueError(f"round {m.round_number} of match {m.match_id} needs both seats' hands")
    return RoundStarted(
        match_id=m.match_id,
        round=m.round_number,
        first=_seat(m.first_seat),
        hands=(tuple(hands[Seat.A].card_ids), tuple(hands[Seat.B].card_ids)),
        revealed=(
            frozenset(hands[Seat.A].revealed_card_ids),
            frozenset(hands[Seat.B].revealed_card_ids),
        ),
        marks=tuple(ELEMENTS_BACK[x] for x in m.cell_marks),
        blocked=frozenset(m.blocked_cells),
        deadline=moment(m.first_turn_deadline_time),
        previous_scores=(m.previous_scores.seat_a, m.previous_scores.seat_b),
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
                player=seat_player(seat, player),
                score=score,
                original_card_ids=list(deck),
                board_card_ids=list(board),
            )
            for seat, player, score, deck, board in zip(
                (Seat.A, Seat.B), e.players, e.scores, e.decks, e.board_cards, strict=True
            )
        ],
        outcome=outcome(e),
        trade_rule=TRADE_RULES[e.trade],
        placement_count=e.placements,
        origin_id=e.origin_id,
        round_count=e.round,
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
        trade=TRADE_RULES_BACK.get(m.trade_rule, TradeRule.NONE),
        placements=m.placement_count,
        finished_at=moment(o.finish_time),
        round=m.round_count or 1,  # recorded before rounds: the one round there was
        board_cards=(tuple(m.seats[0].board_card_ids), tuple(m.seats[1].board_card_ids)),
    )


def encode(event: MatchEvent, cards: dict[str, MatchCard]) -> Encoded:
    """The stored form of a domain event. ``cards`` resolves card ids to cards (a
    CardPlaced payload carries the whole card for its consumers)."""
    return events.encode(payload_of(event, cards), SCHEMA_VERSION)


def payload_of(event: MatchEvent, cards: dict[str, MatchCard]) -> Message:
    """The protobuf payload of a domain event. ``cards`` resolves card ids to cards
    (a CardPlaced payload carries the whole card for its consumers)."""
    if isinstance(event, MatchCreated):
        return _created(event)
    if isinstance(event, CardPlaced):
        return _placed(event, cards)
    if isinstance(event, RoundStarted):
        return _round(event)
    if (payload := timer_payload(event)) is not None:
        return payload
    assert isinstance(event, MatchFinished), event
    return _finished(event)


_DECODERS: dict[str, Callable[[bytes, datetime, MatchRules | None], MatchEvent]] = {}


def _untimed(
    decode: Callable[[bytes], MatchEvent],
) -> Callable[[bytes, datetime, MatchRules | None], MatchEvent]:
    """A decoder that needs neither the record's time nor the match's rules."""
    return lambda data, _at, _setup: decode(data)


def decode(
    name: str, version: int, data: bytes, at: datetime, setup: MatchRules | None
) -> MatchEvent:
    """The domain event of a stored payload written at schema ``version``. ``setup``
    (from the stream's MatchCreated) restores the rules a MatchFinished payload does not
    repeat."""
    decoder = _DECODERS.get(name)
    if decoder is None:
        raise ValueError(f"unknown match event type {name!r}")
    return decoder(upcast(name, version, data), at, setup)


def decode_record(record: Recorded, setup: MatchRules | None) -> MatchEvent:
    """The domain event of a stored record, read at the schema version it was written."""
    return decode(record.type, record.schema_version, record.data, record.recorded_at, setup)


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
            "triad.v1.RoundStarted": lambda d, at, _: _round_back(ev.RoundStarted.FromString(d)),
            **{name: _untimed(decode) for name, decode in TIMER_DECODERS.items()},
            "triad.v1.MatchFinished": finished,
        }
    )


_register()
