"""Domain values <-> ``triad.v1`` protobuf, at the matchmaker's edges: the gRPC server
and the clients of other services. The event payloads the store appends are built in
``codec.py``; the JSON form of a start plan is ``store/plans.py``'s."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.matchmaker.domain import (
    BattleLevel,
    BotLevel,
    CancelReason,
    Card,
    DeckChoice,
    Mode,
    RealmModules,
    RuleSet,
    Seat,
    Table,
    TableFilter,
    TableSettings,
    TableState,
    Ticket,
    TicketState,
    TradeRule,
)
from services.platform.enums import backwards, by_name, require_enum
from services.platform.errors import InvalidArgument
from services.rules.compatibility import BOARDS, board_problem
from services.rules.realm import CreatureType, alignment_words, parse_alignment
from services.wire import (
    CREATURE_TYPES,
    CREATURE_TYPES_BACK,
    TRADE_RULES_BACK,
    VISIBILITIES_BACK,
    alignment,
    alignment_back,
    rules_message,
)

MODES = by_name(Mode, pb.Mode)
MODES_BACK = backwards(MODES)
BOT_LEVELS = by_name(BotLevel, pb.BotLevel)
BOT_LEVELS_BACK = backwards(BOT_LEVELS)
BATTLE_LEVELS = by_name(BattleLevel, pb.BattleBotLevel)
BATTLE_LEVELS_BACK = backwards(BATTLE_LEVELS)
LADDERS: dict[str, pb.Ladder.ValueType] = {"ranked": pb.LADDER_RANKED, "draft": pb.LADDER_DRAFT}
LADDERS_BACK = backwards(LADDERS)
TICKET_STATES: dict[TicketState, pb.TicketStatus.ValueType] = {
    # A claimed ticket shows as queued until its match exists: a client told "paired"
    # must find the match.
    TicketState.QUEUED: pb.TICKET_STATUS_QUEUED,
    TicketState.CLAIMED: pb.TICKET_STATUS_QUEUED,
    TicketState.PAIRED: pb.TICKET_STATUS_PAIRED,
    TicketState.CANCELLED: pb.TICKET_STATUS_CANCELLED,
}
TABLE_STATES: dict[TableState, pb.TableStatus.ValueType] = {
    TableState.OPEN: pb.TABLE_STATUS_OPEN,
    TableState.JOINING: pb.TABLE_STATUS_OPEN,
    TableState.STARTED: pb.TABLE_STATUS_STARTED,
    TableState.CLOSED: pb.TABLE_STATUS_CLOSED,
    TableState.EXPIRED: pb.TABLE_STATUS_EXPIRED,
    TableState.DECLINED: pb.TABLE_STATUS_DECLINED,
}
CANCEL_REASONS = by_name(CancelReason, ev.TicketCancelReason)
ELEMENTS = ("fire", "ice", "thunder", "earth", "poison", "wind", "water", "holy")
SIDES = ("top", "right", "bottom", "left")


def timestamp(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def duration(seconds: float) -> Duration:
    span = Duration()
    span.FromNanoseconds(round(seconds * 1e9))
    return span


def type_name(message: Message) -> str:
    return str(message.DESCRIPTOR.full_name)


QUEUE_MODES = (pb.MODE_UNRANKED, pb.MODE_RANKED, pb.MODE_DRAFT, pb.MODE_ROULETTE, pb.MODE_BATTLE)
PRACTICE_ORIGINS = (
    pb.MODE_UNRANKED,
    pb.MODE_RANKED,
    pb.MODE_DRAFT,
    pb.MODE_ROULETTE,
    pb.MODE_CUSTOM,
)
"""A practice battle against the CPU is the gateway's StartPracticeBattle, not a match."""


def mode_back(value: int, field: str, allowed: Sequence[int]) -> Mode:
    return MODES_BACK[require_enum(value, pb.Mode.DESCRIPTOR, field, allowed)]  # type: ignore[index]


def bot_level_back(value: int, field: str = "bot_level") -> BotLevel:
    return BOT_LEVELS_BACK[require_enum(value, pb.BotLevel.DESCRIPTOR, field)]  # type: ignore[index]


def battle_level_back(value: int, field: str = "bot_level") -> BattleLevel:
    """A practice battle's CPU (unspecified: greedy, as StartPracticeBattle says)."""
    if value == pb.BATTLE_BOT_LEVEL_UNSPECIFIED:
        return BattleLevel.GREEDY
    return BATTLE_LEVELS_BACK[require_enum(value, pb.BattleBotLevel.DESCRIPTOR, field)]  # type: ignore[index]


def battle_seat(seat: Seat) -> pb.BattleSeat:
    """A battle's seat as the battle service takes it: a player, or the CPU."""
    if seat.battle_level is not None:
        return pb.BattleSeat(name=seat.name, bot_level=BATTLE_LEVELS[seat.battle_level])
    return pb.BattleSeat(player_id=seat.player_id, name=seat.name, characters=seat.characters)


def rules(value: RuleSet) -> pb.Rules:
    board = pb.BoardShape(rows=value.board, columns=value.board, blocked_count=value.blocked)
    return rules_message(value, value, board)


def _realm_back(message: pb.Rules) -> RealmModules | None:
    require_enum(message.family, pb.RulesFamily.DESCRIPTOR, "rules.family", unspecified_ok=True)
    if message.family != pb.RULES_FAMILY_REALM:
        if message.HasField("realm"):
            raise InvalidArgument("rules.realm goes with rules.family REALM only")
        return None
    return _modules_back(message.realm)


def _modules_back(m: pb.RealmModules) -> RealmModules:
    return RealmModules(m.type_advantage, m.alignment_clash, m.lair, m.resistance, m.cursed)


def rules_back(message: pb.Rules) -> RuleSet:
    """Rules as a client asks for them; what no release offers yet is refused here."""
    visibility = VISIBILITIES_BACK[
        require_enum(message.visibility, pb.Visibility.DESCRIPTOR, "rules.visibility")  # type: ignore[index]
    ]
    require_enum(
        message.trade_rule, pb.TradeRule.DESCRIPTOR, "rules.trade_rule", unspecified_ok=True
    )
    trade = TRADE_RULES_BACK.get(message.trade_rule, TradeRule.NONE)
    board = message.board
    if board.blocked_cells:
        raise InvalidArgument(
            "a table chooses how many cells to block (board.blocked_count, 0 to 5 on 5x5); "
            "the match draws which at its start: send no board.blocked_cells"
        )
    rows, cols = board.rows or 3, board.columns or 3
    problem = board_problem(
        rows=rows,
        cols=cols,
        blocked=board.blocked_count,
        house_hands=message.house_hands,
        trades=trade is not TradeRule.NONE,
        realm=message.family == pb.RULES_FAMILY_REALM,
    )
    if problem is not None:
        raise InvalidArgument(problem)
    return RuleSet(
        visibility,
        message.same,
        message.plus,
        message.combo,
        message.elemental,
        message.same_wall,
        trade,
        sudden_death=message.sudden_death,
        board=rows,
        blocked=board.blocked_count,
        house_hands=message.house_hands,
        realm=_realm_back(message),
    )


def deck_choice(value: DeckChoice | None) -> pb.DeckChoice | None:
    if value is None:
        return None
    if value.random:
        return pb.DeckChoice(random=pb.RandomDeck())
    return pb.DeckChoice(deck_id=value.deck_id)


def deck_choice_back(message: pb.DeckChoice, present: bool) -> DeckChoice | None:
    if not present or message.WhichOneof("choice") is None:
        return None
    if message.WhichOneof("choice") == "random":
        return DeckChoice(random=True)
    if not message.deck_id or len(message.deck_id) > 200:
        raise InvalidArgument("deck.deck_id must be 1 to 200 characters")
    return DeckChoice(deck_id=message.deck_id)


def card(value: Card) -> pb.Card:
    sides = pb.Sides(
        top=value.sides[0], right=value.sides[1], bottom=value.sides[2], left=value.sides[3]
    )
    printed = value.printed
    return pb.Card(
        card_id=value.card_id,
        origin=pb.CardOrigin.Value(f"CARD_ORIGIN_{value.origin.upper()}"),
        character=pb.Character(
            character_id=value.character_id,
            name=value.name,
            stars=value.stars,
            element=pb.Element.Value(f"ELEMENT_{value.element.upper()}")
            if value.element
            else pb.ELEMENT_UNSPECIFIED,
            sides=sides,
            creature_type=CREATURE_TYPES[CreatureType(value.kind) if value.kind else None],
            alignment=alignment(parse_alignment(value.alignment) if value.alignment else None),
            legendary=value.stars == 5,
        ),
        holo=value.holo,
        holo_side=pb.Side.Value(f"SIDE_{value.holo_side.upper()}")
        if value.holo_side
        else pb.SIDE_UNSPECIFIED,
        printed_sides=pb.Sides(
            top=printed[0], right=printed[1], bottom=printed[2], left=printed[3]
        ),
    )


def card_back(message: pb.Card) -> Card:
    character = message.character
    element = character.element
    side = message.holo_side
    return Card(
        card_id=message.card_id,
        origin=pb.CardOrigin.Name(message.origin).removeprefix("CARD_ORIGIN_").lower(),
        character_id=character.character_id,
        name=character.name,
        stars=character.stars,
        element=ELEMENTS[element - 1] if 1 <= element <= len(ELEMENTS) else "",
        sides=_sides(character.sides),
        printed=_sides(message.printed_sides),
        holo=message.holo,
        holo_side=SIDES[side - 1] if 1 <= side <= len(SIDES) else "",
        kind=((kind := CREATURE_TYPES_BACK.get(character.creature_type)) and kind.value) or "",
        alignment=alignment_words(alignment_back(character.alignment)),
    )


def _kind_word(value: pb.CreatureType.ValueType) -> str:
    kind = CREATURE_TYPES_BACK.get(value)
    return "" if kind is None else kind.value


def _sides(message: pb.Sides) -> tuple[int, int, int, int]:
    return (message.top, message.right, message.bottom, message.left)


def ladder_key(ladder: str) -> pb.LadderKey | None:
    return pb.LadderKey(ladder=LADDERS[ladder], season=0) if ladder else None


def seat_player(seat: Seat, index: int) -> pb.SeatPlayer:
    return pb.SeatPlayer(
        seat=pb.SEAT_A if index == 0 else pb.SEAT_B,
        player_id=seat.player_id,
        player_name=seat.name,
        is_bot=seat.is_bot,
        bot_level=BOT_LEVELS[seat.bot_level] if seat.bot_level else pb.BOT_LEVEL_UNSPECIFIED,
    )


def table_settings(value: TableSettings) -> pb.TableSettings:
    return pb.TableSettings(
        rules=rules(value.rules), random_deck=value.random_deck, battle=value.battle
    )


def table_filter_back(message: pb.TableFilter) -> TableFilter:
    def flag(name: str) -> bool | None:
        present = message.HasField(name)  # type: ignore[arg-type]
        return bool(getattr(message, name)) if present else None

    visibilities = set()
    for value in message.visibilities:
        require_enum(value, pb.Visibility.DESCRIPTOR, "filter.visibilities")
        visibilities.add(VISIBILITIES_BACK[value])
    trades = set()
    for trade in message.trade_rules:
        if trade not in TRADE_RULES_BACK:
            raise InvalidArgument(
                "filter.trade_rules: tables trade None, One, Direct, Difference or All"
            )
        trades.add(TRADE_RULES_BACK[trade])
    for size in message.board_sizes:
        if size not in BOARDS:
            raise InvalidArgument(f"filter.board_sizes: boards are 3, 4 or 5 wide, not {size}")
    if message.HasField("realm_modules") and not message.realm:
        # Found from outside: the modules alone found no table, NOT_FOUND, unexplained.
        raise InvalidArgument(
            "filter.realm_modules picks among Realm tables: set filter.realm true with it"
        )
    return TableFilter(
        visibilities=frozenset(visibilities),
        same=flag("same"),
        plus=flag("plus"),
        combo=flag("combo"),
        elemental=flag("elemental"),
        same_wall=flag("same_wall"),
        random_deck=flag("random_deck"),
        trades=frozenset(trades),
        challenges_only=flag("challenges_only"),
        boards=frozenset(message.board_sizes),
        house_hands=flag("house_hands"),
        realm=flag("realm"),
        realm_modules=_modules_back(message.realm_modules)
        if message.HasField("realm_modules")
        else None,
        sudden_death=flag("sudden_death"),
        battles=message.battles,
    )


def ticket(value: Ticket) -> pb.Ticket:
    return pb.Ticket(
        ticket_id=value.ticket_id,
        mode=MODES[value.mode],
        status=TICKET_STATES[value.state],
        enqueue_time=timestamp(value.enqueued_at),
        match_id=value.match_id if value.state is TicketState.PAIRED else "",
        draft_id=value.draft_id if value.state is TicketState.PAIRED else "",
        cancel_message=value.cancel_message if value.state is TicketState.CANCELLED else "",
    )


def table(value: Table) -> pb.Table:
    return pb.Table(
        table_id=value.table_id,
        host_name=value.host_name,
        settings=table_settings(value.settings),
        challenged_player_name=value.challenged_name,
        status=TABLE_STATES[value.state],
        create_time=timestamp(value.created_at),
        expire_time=timestamp(value.expire_at),
        match_id=value.match_id if value.state is TableState.STARTED else "",
        close_reason=value.closed_because,
    )


def moment(stamp: Timestamp) -> datetime:
    return stamp.ToDatetime(tzinfo=UTC)
