"""The collection's events and the values they carry: past-tense facts in plain Python.

``codec.py`` turns them into the ``triad.v1`` payloads of the same names. Every random
draw (holo flags and sides, booster contents, the Random deck, the trade auto-pick, draft
boosters and their automatic completion) is recorded here, so replay never draws again.

Streams: ``player-<id>`` (copies, decks, locks, currency, seeds, boosters),
``trade-<id>`` (a trade rule's transfers after one match), ``draft-<id>`` (draft
sessions) and ``listing-<id>`` (Auction House listings: ``events_auction.py``). The
owned copy most of them carry is ``copies.py``'s, re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from services.collection.domain.copies import CopySource as CopySource  # noqa: PLC0414 (re-export)
from services.collection.domain.copies import OwnedCopy as OwnedCopy  # noqa: PLC0414 (re-export)
from services.collection.domain.draft import DraftCard
from services.collection.domain.events_auction import ListingEvent
from services.rules.trade import TradeRule as TradeRule  # noqa: PLC0414 (re-export)


class CurrencyReason(StrEnum):
    STARTER = "starter"
    MATCH_WIN = "match_win"
    DAILY_FIRST_MATCH = "daily_first_match"
    BOOSTER_PURCHASE = "booster_purchase"
    GRANT = "grant"
    AUCTION_SALE = "auction_sale"
    AUCTION_PURCHASE = "auction_purchase"


class HolderKind(StrEnum):
    MATCH = "match"
    TRADE = "trade"
    LISTING = "listing"


@dataclass(frozen=True, slots=True)
class Holder:
    """What holds a lock (RULES.md 9): an active trading match, a pending trade or an
    open Auction House listing."""

    kind: HolderKind
    id: str

    def __str__(self) -> str:
        return f"{self.kind.value} {self.id}"


@dataclass(frozen=True, slots=True)
class PlayerRef:
    player_id: str
    name: str


# --- player-<id> ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CopyGranted:
    player_id: str
    copy: OwnedCopy
    grant_id: str


@dataclass(frozen=True, slots=True)
class ServerSeedCommitted:
    player_id: str
    seed_id: str
    seed_hash: str
    client_seed: str


@dataclass(frozen=True, slots=True)
class ServerSeedRevealed:
    player_id: str
    seed_id: str
    server_seed: str
    draw_count: int


@dataclass(frozen=True, slots=True)
class BoosterDraw:
    draw_id: str
    seed_id: str
    seed_hash: str
    client_seed: str
    counter: int
    algorithm: str
    copies: tuple[OwnedCopy, ...]
    pity_applied: bool
    price: int
    opened_at: datetime


@dataclass(frozen=True, slots=True)
class BoosterOpened:
    player_id: str
    draw: BoosterDraw
    boosters_since_pity: int


@dataclass(frozen=True, slots=True)
class CurrencyChange:
    """Coins in or out; ``balance_after`` is the balance the change leaves."""

    player_id: str
    amount: int
    reason: CurrencyReason
    reference_id: str
    balance_after: int


@dataclass(frozen=True, slots=True)
class CurrencyCredited(CurrencyChange):
    """Coins in: once per (player, reason, reference)."""


@dataclass(frozen=True, slots=True)
class CurrencyDebited(CurrencyChange):
    """Coins out: never below zero."""


@dataclass(frozen=True, slots=True)
class DeckSaved:
    player_id: str
    deck_id: str
    name: str
    copy_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeckDeleted:
    player_id: str
    deck_id: str


@dataclass(frozen=True, slots=True)
class RandomDeckDrawn:
    player_id: str
    purpose_id: str
    copy_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CopiesHeld:
    """A change of the copies ``holder`` holds locked (RULES.md 9)."""

    player_id: str
    copy_ids: tuple[str, ...]
    holder: Holder


@dataclass(frozen=True, slots=True)
class CopiesLocked(CopiesHeld):
    pass


@dataclass(frozen=True, slots=True)
class CopiesReleased(CopiesHeld):
    pass


# --- trade-<id> -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TradeTerms:
    """What a trade is from its opening on: the event that opens it, and the first
    fields of its state (``trade.Trade``)."""

    trade_id: str
    match_id: str
    winner: PlayerRef
    loser: PlayerRef
    offered: tuple[OwnedCopy, ...]
    """The copies the trade may move, each as its owner held it at the opening (One,
    Difference, All: the loser's original deck; Direct: the copies that change sides)."""
    deadline: datetime
    opened_at: datetime
    rule: TradeRule
    count: int
    """How many of ``offered`` move: 1 for One, d for Difference, all for Direct and All."""


@dataclass(frozen=True, slots=True)
class TradeOpened(TradeTerms):
    pass


@dataclass(frozen=True, slots=True)
class TradeCardChosen:
    trade_id: str
    copy_id: str
    auto_picked: bool
    drawn_index: int = 0


@dataclass(frozen=True, slots=True)
class CopyTransferred:
    trade_id: str
    copy_id: str
    from_player_id: str
    to_player_id: str
    copy: OwnedCopy
    """The copy as now owned: new owner, source TRADE, holo unchanged."""


# --- draft-<id> -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DraftParticipant:
    player: PlayerRef
    pool: tuple[DraftCard, ...]
    """Fifteen cards: three boosters of five, booster by booster, in slot order."""


@dataclass(frozen=True, slots=True)
class DraftCreated:
    draft_id: str
    ladder: str
    season: int
    pairing_id: str
    participants: tuple[DraftParticipant, DraftParticipant]
    pick_deadline: datetime
    inactivity_deadline: datetime
    created_at: datetime


@dataclass(frozen=True, slots=True)
class DraftCardRevealed:
    draft_id: str
    player_id: str
    booster: int
    slot: int
    card_id: str
    inactivity_deadline: datetime


@dataclass(frozen=True, slots=True)
class DraftCardPicked:
    draft_id: str
    player_id: str
    card_id: str
    pick_number: int
    auto_picked: bool
    inactivity_deadline: datetime | None


@dataclass(frozen=True, slots=True)
class DraftedDeck:
    player: PlayerRef
    cards: tuple[DraftCard, ...]
    """The five picked cards in pick order: the hand for the match."""
    auto_completed: bool


@dataclass(frozen=True, slots=True)
class DraftCompleted:
    draft_id: str
    ladder: str
    season: int
    decks: tuple[DraftedDeck, DraftedDeck]
    match_id: str


@dataclass(frozen=True, slots=True)
class DraftForfeited:
    draft_id: str
    ladder: str
    season: int
    forfeiting: tuple[str, ...]
    winner: str
    players: tuple[PlayerRef, ...] = ()
    """Both participants in seat order, for the ladder's names (empty when read from an
    event recorded before it carried them)."""


# --- consumed: what the collection needs of other services' events ----------------------


@dataclass(frozen=True, slots=True)
class FinishedSeat:
    player: PlayerRef
    is_bot: bool
    deck: tuple[str, ...]
    """The seat's original card ids (copy ids for owned copies), in deck order."""
    score: int = 0
    """The final round's score (at the moment of a forfeit)."""
    board: tuple[str, ...] = ()
    """card_ids in this seat's colour on the final board (at the moment of a forfeit)."""


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """What the collection needs of a MatchFinished event."""

    match_id: str
    seats: tuple[FinishedSeat, FinishedSeat]
    winner: int | None
    """Index of the winning seat; None for a draw."""
    trade: TradeRule
    """The trade rule that applies now (the match's says when: NONE with a bot, or a
    draw under a rule that needs a winner)."""
    finished_at: datetime
    placements: int
    """Cards placed on the board: what the reward for playing depends on."""

    @property
    def trade_one(self) -> bool:
        return self.trade is TradeRule.ONE


PlayerEvent = (
    CopyGranted
    | ServerSeedCommitted
    | ServerSeedRevealed
    | BoosterOpened
    | CurrencyCredited
    | CurrencyDebited
    | DeckSaved
    | DeckDeleted
    | RandomDeckDrawn
    | CopiesLocked
    | CopiesReleased
)
TradeEvent = TradeOpened | TradeCardChosen | CopyTransferred
DraftEvent = DraftCreated | DraftCardRevealed | DraftCardPicked | DraftCompleted | DraftForfeited
CollectionEvent = PlayerEvent | TradeEvent | DraftEvent | ListingEvent
