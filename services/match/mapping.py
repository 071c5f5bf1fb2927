"""Domain values <-> ``triad.v1`` protobuf messages, for the match service's two edges:
the event store (events are stored as protobuf bytes) and the gRPC server (views)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from triad.v1 import common_pb2 as pb

from services.match import mapping_realm
from services.match.domain.events import (
    FinishReason,
    MatchCard,
    MatchFinished,
    MatchRules,
    Mode,
    Origin,
    SeatPlayer,
    TradeRule,
)
from services.platform.enums import backwards, by_name
from services.rules import Capture, Rules, Seat
from services.wire import (
    CREATURE_TYPES,
    CREATURE_TYPES_BACK,
    ELEMENTS,
    ELEMENTS_BACK,
    LADDERS,
    LADDERS_BACK,
    SIDES,
    SIDES_BACK,
    TRADE_RULES_BACK,
    VISIBILITIES_BACK,
    alignment,
    alignment_back,
    rules_message,
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
SEATS_BACK: dict[int, Seat | None] = backwards(SEATS)
MODES = {None: pb.MODE_UNSPECIFIED} | by_name(Mode, pb.Mode)
MODES_BACK: dict[int, Mode | None] = backwards(MODES)
TRADE_NAMES: dict[int, str] = {
    pb.TRADE_RULE_ONE: "Trade One",
    pb.TRADE_RULE_DIRECT: "Direct",
    pb.TRADE_RULE_DIFFERENCE: "Difference",
    pb.TRADE_RULE_ALL: "All",
}
"""A trade rule as the rulebook names it, for refusals (None has no name: it trades
nothing)."""
CAUSES, CAUSES_BACK = mapping_realm.CAUSES, mapping_realm.CAUSES_BACK
REASONS = by_name(FinishReason, pb.FinishReason)
REASONS_BACK = backwards(REASONS)
ORIGINS = by_name(Origin, pb.CardOrigin)
ORIGINS_BACK = backwards(ORIGINS)
BOT_LEVELS: dict[str, pb.BotLevel.ValueType] = {"": pb.BOT_LEVEL_UNSPECIFIED} | {
    name.removeprefix("BOT_LEVEL_").lower(): value
    for name, value in pb.BotLevel.items()
    if value != pb.BOT_LEVEL_UNSPECIFIED
}
BOT_LEVELS_BACK = backwards(BOT_LEVELS)


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
            creature_type=CREATURE_TYPES[value.kind],
            alignment=alignment(value.alignment),
            legendary=value.legendary,
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
        kind=CREATURE_TYPES_BACK.get(character.creature_type),
        alignment=alignment_back(character.alignment),
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
    board = pb.BoardShape(
        rows=setup.rows,
        columns=setup.cols,
        blocked_cells=sorted(setup.blocked),
        blocked_count=len(setup.blocked),
    )
    return rules_message(setup, setup.rules, board)


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
    rules = Rules(message.same, message.plus, message.combo, message.elemental, message.same_wall)
    return MatchRules(
        mode=found_mode,
        rules=rules,
        visibility=VISIBILITIES_BACK[message.visibility],
        rows=board.rows or 3,
        cols=board.columns or 3,
        blocked=frozenset(board.blocked_cells),
        trade=TRADE_RULES_BACK.get(message.trade_rule, TradeRule.NONE),
        ladder="" if ladder_key is None else LADDERS_BACK[ladder_key.ladder],
        season=0 if ladder_key is None else ladder_key.season,
        origin_mode=MODES_BACK.get(origin_mode),
        sudden_death=message.sudden_death,
        house_hands=message.house_hands,
        realm=mapping_realm.rules_back(message, rules),
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
