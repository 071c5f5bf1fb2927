"""The match's events: past-tense facts, plain Python (the mapper in ``store.py`` turns
them into the ``triad.v1`` payloads). Each records what replay needs and every random
draw, so folding them never draws again and never re-runs rule code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from services.rules import Capture, Card, Element, Rules, Seat, Side, Visibility
from services.rules.realm import (
    NEUTRAL,
    Alignment,
    Comparison,
    CreatureType,
    RealmCard,
    RealmRules,
    RealmState,
    Saved,
)
from services.rules.trade import TradeRule as TradeRule  # noqa: PLC0414 (re-export)


class Mode(StrEnum):
    UNRANKED = "unranked"
    RANKED = "ranked"
    DRAFT = "draft"
    ROULETTE = "roulette"
    CUSTOM = "custom"
    PRACTICE = "practice"


MAX_ROUNDS = 5
"""**Decision** (RULES.md 12): at most five rounds; a tie after the fifth is a draw."""


class Origin(StrEnum):
    """Where a card in a match comes from; only owned copies can ever be traded."""

    OWNED_COPY = "owned_copy"
    DRAFTED = "drafted"
    BOT = "bot"
    HOUSE = "house"
    """A house hand's card (RULES.md 11): dealt from the catalog, owned by nobody."""


class FinishReason(StrEnum):
    BOARD_FULL = "board_full"
    FORFEIT = "forfeit"
    TURN_TIMEOUT = "turn_timeout"
    DISCONNECT = "disconnect"


@dataclass(frozen=True, slots=True)
class MatchCard:
    """A card as it takes part in a match: what the rules need plus what players see."""

    card_id: str
    character_id: str
    name: str
    stars: int
    element: Element | None
    base_sides: tuple[int, int, int, int]
    """The character's printed sides, without the holo bonus."""
    sides: tuple[int, int, int, int]
    """Printed values of this card: the character's sides plus its holo bonus."""
    holo: bool = False
    holo_side: Side | None = None
    origin: Origin = Origin.OWNED_COPY
    kind: CreatureType | None = None
    """The creature type (RULES.md 17); None for a card from a source that gave none
    (such a card cannot sit at a Realm table)."""
    alignment: Alignment | None = None
    rules: Card = field(init=False, repr=False, compare=False)
    """The card as the rules engine sees it, built once (replay folds it often)."""
    _realm: RealmCard | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", Card(self.sides, self.element, self.card_id))

    @property
    def realm(self) -> RealmCard | None:
        """The card as the Realm engine sees it (RULES.md 17), built on first use (only
        Realm tables ask); None without a creature type."""
        if self._realm is None and self.kind is not None:
            realm = RealmCard(
                self.sides,
                self.element,
                self.card_id,
                kind=self.kind,
                alignment=self.alignment or NEUTRAL,
                legendary=self.legendary,
            )
            object.__setattr__(self, "_realm", realm)
        return self._realm

    def rules_card(self) -> Card:
        return self.rules

    @property
    def legendary(self) -> bool:
        """RULES.md 17: every 5★ card is Legendary."""
        return self.stars == 5


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    player_id: str
    name: str
    """Display name; a bot's always carries the ``[BOT]`` label."""
    is_bot: bool = False
    bot_level: str = ""


@dataclass(frozen=True, slots=True)
class SeatStart:
    player: SeatPlayer
    hand: tuple[MatchCard, ...]
    revealed: frozenset[str]
    """card_ids of this hand the opponent sees from the start."""
    session_id: str = ""
    """The player's gateway session open at creation, attached to the seat."""
    forfeit_at: datetime | None = None
    """A human with no open session at creation counts as disconnected from the start
    and forfeits then unless they connect."""


@dataclass(frozen=True, slots=True)
class MatchRules:
    """Everything about a match fixed at creation besides who plays with what."""

    mode: Mode
    rules: Rules
    visibility: Visibility
    rows: int = 3
    cols: int = 3
    blocked: frozenset[int] = frozenset()
    """The blocked cells of the first round, drawn at match start (RULES.md 11)."""
    trade: TradeRule = TradeRule.NONE
    ladder: str = ""
    """The Elo ladder the result counts for ("ranked", "draft"); empty when unrated."""
    season: int = 0
    origin_mode: Mode | None = None
    """For Practice: the mode whose rules it uses."""
    sudden_death: bool = False
    """RULES.md 12: a full board with equal scores starts another round (at most
    :data:`MAX_ROUNDS`)."""
    house_hands: bool = False
    """RULES.md 11: both hands were dealt from the catalog; the match trades nothing."""
    realm: RealmRules | None = None
    """RULES.md 17: the Realm family with these modules (its Same, Plus and Combo are
    ``rules``'s); None for the standard family."""

    @property
    def trades(self) -> bool:
        """Played for keeps (RULES.md 13): no bot may sit, and the decks are locked."""
        return self.trade is not TradeRule.NONE


@dataclass(frozen=True, slots=True)
class MatchCreated:
    match_id: str
    setup: MatchRules
    seats: tuple[SeatStart, SeatStart]
    marks: tuple[Element | None, ...]
    first: Seat
    first_deadline: datetime
    turn_seconds: float
    disconnect_seconds: float
    created_at: datetime
    origin_id: str = ""
    draw_pile: tuple[MatchCard, ...] = ()
    """Realm Sudden Death (RULES.md 17): ten catalog cards in draw order, never shown."""


@dataclass(frozen=True, slots=True)
class RealmMove:
    """What a Realm placement did besides its captures, and the match's Realm state
    after it (folding takes it as recorded: replay never re-runs the Realm engine)."""

    lair: bool
    saved: tuple[Saved, ...]
    comparisons: tuple[Comparison, ...]
    state: RealmState
    replaced: str = ""
    """Realm Sudden Death: the card_id of the weakest card this placement replaced
    (the placed card is then the draw pile's next, placed for that card's owner)."""


@dataclass(frozen=True, slots=True)
class CardPlaced:
    match_id: str
    turn: int
    seat: Seat
    card_id: str
    cell: int
    captures: tuple[Capture, ...]
    scores: tuple[int, int]
    next_seat: Seat | None
    next_deadline: datetime | None
    auto_played: bool = False
    auto_draw: tuple[int, int] | None = None
    """For an auto-played card: (number of legal placements, the drawn index)."""
    warning_cleared: bool = False
    realm: RealmMove | None = None
    """At a Realm table: the placement's Realm outcome and state."""


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Sudden Death (RULES.md 12): the board was full with equal scores, so another
    round starts at once on an emptied board. Its draws (marks, blocked cells, Three
    Open reveals) are recorded here; folding never draws them again."""

    match_id: str
    round: int
    first: Seat
    """The seat that placed second in the round before."""
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    """Per seat: the card_ids it owned when the round before ended (its colour on the
    board plus its hand), in the order of the original decks, seat A's first."""
    revealed: tuple[frozenset[str], frozenset[str]]
    marks: tuple[Element | None, ...]
    blocked: frozenset[int]
    deadline: datetime
    """When the round's first turn times out: the turn timer restarts."""
    previous_scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    match_id: str
    turn: int
    seat: Seat
    consecutive_misses: int


@dataclass(frozen=True, slots=True)
class TurnWarningIssued:
    match_id: str
    seat: Seat
    turn: int


@dataclass(frozen=True, slots=True)
class PlayerDisconnected:
    match_id: str
    seat: Seat
    session_id: str
    forfeit_at: datetime


@dataclass(frozen=True, slots=True)
class ClocksRestarted:
    """The match's timer came due while the server could not act (an outage of every
    replica, PostgreSQL away): nobody could move, so nobody is charged for that time.
    The turn timer and each away seat's grace start again from now; once per turn."""

    match_id: str
    turn: int
    deadline: datetime
    """When the turn in progress now times out (now + the turn duration)."""
    forfeit_at: tuple[datetime | None, datetime | None]
    """Per seat: when it now forfeits unless it reconnects; None while connected."""
    late_seconds: float
    """How late the timer was found: the time the server could not act."""


@dataclass(frozen=True, slots=True)
class PlayerReconnected:
    """A (new) session of the seated player is attached; it also ends a disconnect."""

    match_id: str
    seat: Seat
    session_id: str


@dataclass(frozen=True, slots=True)
class Forfeited:
    match_id: str
    seat: Seat
    reason: FinishReason


@dataclass(frozen=True, slots=True)
class MatchFinished:
    """The end of a match, self-contained for its consumers (collection: Trade One and
    locks; rating: Elo; matchmaker: freeing the players)."""

    match_id: str
    setup: MatchRules
    players: tuple[SeatPlayer, SeatPlayer]
    decks: tuple[tuple[str, ...], tuple[str, ...]]
    """card_ids of each seat's original deck, unplayed card included, in deck order."""
    origin_id: str
    scores: tuple[int, int]
    winner: Seat | None
    reason: FinishReason
    forfeited: Seat | None
    rated: bool
    trade: TradeRule
    """The trade rule that applies now: the table's, between two humans, with a winner
    (Direct: whatever the result); NONE otherwise."""
    placements: int
    """Placements made in the whole match (every round)."""
    finished_at: datetime
    round: int = 1
    """The round it ended in; scores, winner and ``board_cards`` are that round's."""
    board_cards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    """Per seat: card_ids in its colour on the final board, in cell order (what a
    board-based trade rule settles from; copies never change owner during a match)."""

    @property
    def trade_one(self) -> bool:
        return self.trade is TradeRule.ONE


MatchEvent = (
    MatchCreated
    | CardPlaced
    | RoundStarted
    | TurnTimedOut
    | TurnWarningIssued
    | PlayerDisconnected
    | PlayerReconnected
    | ClocksRestarted
    | Forfeited
    | MatchFinished
)
