"""What a match to start is made of: deck choices, cards as a match plays them, the two
seats (a human with a deck, or a bot with a drawn name) and the start plan that holds
every draw made for it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from services.matchmaker.domain.modes import UNRATED, BattleLevel, BotLevel, Mode, RuleSet
from services.platform.errors import InvalidArgument

BOT_LABEL = "[BOT] "
BOT_NAMES = (
    "Ashen Wren", "Brass Otter", "Cobalt Fox", "Dune Strider", "Echo Lark", "Fable Crow",
    "Glint Badger", "Hollow Stag", "Iris Vale", "Juniper Kite", "Kettle Drake", "Lumen Pike",
    "Marrow Jay", "Nimbus Cat", "Opal Heron", "Pepper Wolf", "Quill Sparrow", "Rust Marten",
    "Saffron Owl", "Tinder Hawk",
)  # fmt: skip


def bot_name(index: int) -> str:
    """The labelled display name of bot number ``index`` (drawn by the handler)."""
    return BOT_LABEL + BOT_NAMES[index % len(BOT_NAMES)]


@dataclass(frozen=True, slots=True)
class DeckChoice:
    """A saved deck of the player, or Random (the server draws from their free copies)."""

    deck_id: str = ""
    random: bool = False

    def __post_init__(self) -> None:
        if bool(self.deck_id) == self.random:
            raise InvalidArgument("choose exactly one: a saved deck id, or Random")


@dataclass(frozen=True, slots=True)
class Card:
    """A card as a match plays it; the matchmaker only carries it from a deck to a seat."""

    card_id: str
    origin: str  # "owned_copy", "drafted" or "bot"
    character_id: str
    name: str
    stars: int
    element: str  # "" for none
    sides: tuple[int, int, int, int]
    """The character's printed sides, top, right, bottom, left."""
    printed: tuple[int, int, int, int]
    """The card's values: the sides plus its holo bonus."""
    holo: bool = False
    holo_side: str = ""  # "top", "right", "bottom", "left" or ""
    kind: str = ""  # the creature type ("dragon"); "" when the source gave none
    alignment: str = ""  # "lawful evil"; "" when the source gave none


def legal_deck(stars: Sequence[int], character_ids: Sequence[str]) -> bool:
    """RULES.md 2: five different characters, #5★ ≤ 1 and #5★ + #4★ ≤ 2."""
    fives = sum(1 for s in stars if s == 5)
    fours = sum(1 for s in stars if s == 4)
    return len(stars) == 5 and len(set(character_ids)) == 5 and fives <= 1 and fives + fours <= 2


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a match to start: a human with a deck choice, or a bot; of a battle,
    a human with the characters they chose, or the CPU (``battle_level``)."""

    player_id: str
    name: str
    bot_level: BotLevel | None = None
    deck: DeckChoice | None = None
    """Unset for bots, and for humans whose cards come with the plan (Draft)."""
    ticket_id: str = ""
    rating: int = UNRATED
    waited: float = 0.0
    cards: tuple[Card, ...] = ()
    """Cards fixed when the plan was made (drafted decks); bots draw theirs at the start."""
    characters: tuple[str, ...] = ()
    """A practice battle's team as the player chose it (none: the battle draws three)."""
    battle_level: BattleLevel | None = None
    """Set: the CPU plays this seat of a practice battle."""

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None or self.battle_level is not None


class StartKind(StrEnum):
    PAIRING = "pairing"  # queue tickets (two, or one and a populated bot)
    PRACTICE = "practice"  # StartPractice
    SWITCH = "switch"  # SwitchToPractice: the ticket is given up when the match starts
    TABLE = "table"  # a guest joined a custom table
    DRAFT_MATCH = "draft_match"  # both drafted decks are complete


@dataclass(frozen=True, slots=True)
class StartPlan:
    """Everything decided about a match (or a draft) before it is created: the seats,
    the rules with every draw made, and the deterministic ids that make creating it
    twice harmless. Persisted, so any replica can finish starting it."""

    start_id: str
    kind: StartKind
    mode: Mode
    rules: RuleSet
    seats: tuple[Seat, Seat]
    match_id: str = ""
    draft_id: str = ""
    """Set for Draft pairings: the draft starts first; its match comes when it completes."""
    origin_mode: Mode | None = None
    ladder: str = ""
    origin_id: str = ""
    table_id: str = ""

    @property
    def humans(self) -> tuple[Seat, ...]:
        return tuple(s for s in self.seats if not s.is_bot)

    @property
    def bot(self) -> Seat | None:
        return next((s for s in self.seats if s.is_bot), None)

    @property
    def ticket_ids(self) -> tuple[str, ...]:
        return tuple(s.ticket_id for s in self.seats if s.ticket_id)

    @property
    def rating_gap(self) -> int:
        if self.bot is not None or self.kind is not StartKind.PAIRING:
            return 0
        return abs(self.seats[0].rating - self.seats[1].rating)
