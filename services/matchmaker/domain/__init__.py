"""Matchmaking as RULES.md sections 6 and 10 read: queues per mode, pairing by rating
within a window that widens with waiting time, populated and practice bots, Roulette
rule sets and custom-table rules.

Pure: no I/O, no clock, no randomness. The handlers pass the time in (as POSIX seconds)
and every random draw in (a Roulette rule set is chosen by an index the handler draws).

The pairing window (issue 6 asks for its start, step and cap, and why)
    A ticket accepts opponents within ``start`` rating points, widened by ``step``
    every ``step_seconds`` of waiting, up to ``cap``. The defaults are 50, 25 every 5 s
    and 300 (reached after 50 s):

    - start ±50: the favourite's Elo expectation is at most 0.57, as close to a coin
      flip as a ladder can offer, and with most players near 1500 (everyone starts
      there) such an opponent is usually already waiting;
    - +25 every 5 s: the window doubles within 10 s and reaches ±150 (expectation 0.70)
      after 20 s; small steps widen smoothly instead of jumping, so a player is paired
      as soon as the nearest opponent is acceptable, not at the next cliff;
    - cap ±300: expectation 0.85 for the favourite, still a game; beyond that a
      result is nearly foregone and Elo moves little (or a lot, on an upset), so a
      player far from everyone keeps waiting and may take a practice bot instead
      (Ranked and Draft never fill with bots).

    Of two tickets, the one that waited longer has the wider window, and that window
    decides: the newcomer gets an immediate game, and every pair stays within the cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from itertools import pairwise, product

from services.platform.errors import InvalidArgument

UNRATED = 1500
"""RULES.md 10: every player starts at 1500; unrated queues compare everyone at it."""


class Mode(StrEnum):
    UNRANKED = "unranked"
    RANKED = "ranked"
    DRAFT = "draft"
    ROULETTE = "roulette"
    CUSTOM = "custom"
    PRACTICE = "practice"


QUEUES = (Mode.UNRANKED, Mode.RANKED, Mode.DRAFT, Mode.ROULETTE)
PRACTICE_ORIGINS = (Mode.UNRANKED, Mode.RANKED, Mode.DRAFT, Mode.ROULETTE, Mode.CUSTOM)
LADDERS: dict[Mode, str] = {Mode.RANKED: "ranked", Mode.DRAFT: "draft"}
"""The Elo ladder each rated queue pairs by and counts for (Season 0)."""


class Visibility(StrEnum):
    ALL_OPEN = "all_open"
    CLOSED = "closed"
    THREE_OPEN = "three_open"


class BotLevel(StrEnum):
    NOVICE = "novice"
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


BOT_LABEL = "[BOT] "


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every optional rule of one match in one value (RULES.md 3, 4, 6, 11)."""

    visibility: Visibility
    same: bool = False
    plus: bool = False
    combo: bool = False
    elemental: bool = False
    same_wall: bool = False
    trade_one: bool = False

    def without_trade(self) -> RuleSet:
        return RuleSet(
            self.visibility, self.same, self.plus, self.combo, self.elemental, self.same_wall
        )


STANDARD = RuleSet(Visibility.THREE_OPEN, same=True, plus=True, combo=True)
MODE_RULES: dict[Mode, RuleSet] = {
    Mode.UNRANKED: STANDARD,
    Mode.RANKED: RuleSet(Visibility.CLOSED, same=True, plus=True, combo=True, trade_one=True),
    Mode.DRAFT: STANDARD,
}
"""RULES.md 6: the fixed rules of the queues; Roulette draws its own at pairing."""


def _compatible_rule_sets() -> tuple[RuleSet, ...]:
    sets = []
    for visibility, same, plus, combo, elemental in product(
        Visibility, (False, True), (False, True), (False, True), (False, True)
    ):
        if combo and not (same or plus):
            continue  # Combo chains from Same or Plus captures: alone it is no rule
        sets.append(RuleSet(visibility, same, plus, combo, elemental))
    return tuple(sets)


COMPATIBLE_RULE_SETS = _compatible_rule_sets()
"""Roulette's choices (RULES.md 6): a visibility, Same, Plus and Elemental each on or
off, and Combo only when Same or Plus is on. 3 x 2 x 7 = 42 sets, drawn uniformly."""


def roulette_rules(index: int) -> RuleSet:
    """The compatible rule set the handler drew (``index`` uniform in 0..41)."""
    if not 0 <= index < len(COMPATIBLE_RULE_SETS):
        raise ValueError(f"roulette index {index} is outside 0..{len(COMPATIBLE_RULE_SETS) - 1}")
    return COMPATIBLE_RULE_SETS[index]


def check_custom_rules(rules: RuleSet) -> None:
    """RULES.md 6: what a custom table may combine; each refusal says why."""
    if rules.combo and not (rules.same or rules.plus):
        raise InvalidArgument("Combo needs Same or Plus on: it chains from their captures")
    if rules.trade_one:
        missing = [
            name
            for name, ok in (
                ("Closed visibility", rules.visibility is Visibility.CLOSED),
                ("Same", rules.same),
                ("Plus", rules.plus),
                ("Combo", rules.combo),
            )
            if not ok
        ]
        if missing:
            raise InvalidArgument(
                "Trade One needs Closed visibility with Same, Plus and Combo on; "
                f"this table lacks {', '.join(missing)}"
            )


def practice_rules(origin: Mode, custom: RuleSet | None, roulette_index: int) -> RuleSet:
    """The rules of a practice match: those of the mode it starts from, never trading."""
    if origin not in PRACTICE_ORIGINS:
        raise InvalidArgument(
            "practice starts from Unranked, Ranked, Draft, Roulette or Custom rules"
        )
    if origin is Mode.ROULETTE:
        return roulette_rules(roulette_index)
    if origin is Mode.CUSTOM:
        if custom is None:
            raise InvalidArgument("practice with Custom rules needs the table settings")
        if custom.trade_one:
            raise InvalidArgument("practice never trades: choose the trade rule None")
        check_custom_rules(custom)
        return custom
    return MODE_RULES[origin].without_trade()


# --------------------------------------------------------------------------- pairing


@dataclass(frozen=True, slots=True)
class WindowPolicy:
    """How far apart two ratings may be, by waiting time (see the module docstring)."""

    start: int = 50
    step: int = 25
    step_seconds: float = 5.0
    cap: int = 300

    def __post_init__(self) -> None:
        if self.start < 0 or self.step < 0 or self.cap < self.start or self.step_seconds <= 0:
            raise ValueError(
                f"a window needs 0 <= start <= cap, step >= 0, step_seconds > 0: {self}"
            )

    def window(self, waited: float) -> int:
        steps = int(max(waited, 0.0) // self.step_seconds)
        return min(self.start + self.step * steps, self.cap)

    def next_widening(self, waited: float) -> float | None:
        """Seconds of waiting at which the window next widens; None once at the cap."""
        if self.window(waited) >= self.cap or self.step == 0:
            return None
        return (int(max(waited, 0.0) // self.step_seconds) + 1) * self.step_seconds


@dataclass(frozen=True, slots=True)
class Waiting:
    """A queued ticket as pairing sees it; ``enqueued_at`` in POSIX seconds."""

    ticket_id: str
    player_id: str
    rating: int
    enqueued_at: float


@dataclass(frozen=True, slots=True)
class Pair:
    """Two tickets to seat against each other; ``first`` waited longer."""

    first: Waiting
    second: Waiting

    @property
    def gap(self) -> int:
        return abs(self.first.rating - self.second.rating)


def pair_tickets(waiting: Sequence[Waiting], now: float, policy: WindowPolicy) -> list[Pair]:
    """Pairs among ``waiting``, oldest ticket first, each with its nearest acceptable rating.

    Greedy in waiting order: the oldest unpaired ticket takes the unpaired ticket nearest
    to it in rating (on equal gaps, the one that waited longer), if that gap is within
    the oldest's window (the wider of the two). A ticket nobody fits keeps waiting. With
    everyone at one rating (unrated queues) this is first come, first served.

    O(n log n): tickets sorted once by rating; "nearest unpaired neighbour" on each side
    is found through two skip lists with path compression, so paired tickets cost
    nothing to step over.
    """
    count = len(waiting)
    if count < 2:
        return []
    by_rating = sorted(range(count), key=lambda i: (waiting[i].rating, waiting[i].enqueued_at))
    slot = [0] * count
    for position, index in enumerate(by_rating):
        slot[index] = position
    ratings = [waiting[i].rating for i in by_rating]
    # left[p] / right[p]: the nearest unpaired slot at or below / above p (+1 offset for
    # the sentinels at both ends).
    left = list(range(count + 2))
    right = list(range(count + 2))
    pairs = []
    for index in sorted(range(count), key=lambda i: (waiting[i].enqueued_at, waiting[i].ticket_id)):
        position = slot[index]
        if _find(right, position + 1) != position + 1:
            continue  # already paired by an older ticket
        ticket = waiting[index]
        reach = policy.window(now - ticket.enqueued_at)
        below = _find(left, position) - 1  # slot offsets: p is stored at p + 1
        above = _find(right, position + 2) - 1
        best = -1
        best_gap = reach + 1
        for candidate in (below, above):
            if 0 <= candidate < count:
                gap = abs(ratings[candidate] - ticket.rating)
                older = (
                    best >= 0 and gap == best_gap and _older(waiting, by_rating, candidate, best)
                )
                if gap < best_gap or older:
                    best, best_gap = candidate, gap
        if best < 0:
            continue
        for taken in (position, best):
            left[taken + 1] = taken  # step over it leftwards ...
            right[taken + 1] = taken + 2  # ... and rightwards
        pairs.append(Pair(ticket, waiting[by_rating[best]]))
    return pairs


def _find(links: list[int], start: int) -> int:
    root = start
    while links[root] != root:
        root = links[root]
    while links[start] != root:
        links[start], start = root, links[start]
    return root


def _older(waiting: Sequence[Waiting], by_rating: list[int], a: int, b: int) -> bool:
    return waiting[by_rating[a]].enqueued_at < waiting[by_rating[b]].enqueued_at


def due_for_bot(waiting: Sequence[Waiting], now: float, delay: float) -> list[Waiting]:
    """Unranked tickets that waited ``delay`` seconds without a human: a populated bot
    takes the other seat (RULES.md 6)."""
    return [t for t in waiting if now - t.enqueued_at >= delay]


RATING_BANDS = (1200, 1400, 1600, 1800)


def rating_band(rating: int) -> str:
    """A coarse label for metrics: waits by band show who the queue serves badly."""
    if rating < RATING_BANDS[0]:
        return f"<{RATING_BANDS[0]}"
    for low, high in pairwise(RATING_BANDS):
        if low <= rating < high:
            return f"{low}-{high - 1}"
    return f">={RATING_BANDS[-1]}"


# --------------------------------------------------------------------------- decks, seats


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


def legal_deck(stars: Sequence[int], character_ids: Sequence[str]) -> bool:
    """RULES.md 2: five different characters, #5★ ≤ 1 and #5★ + #4★ ≤ 2."""
    fives = sum(1 for s in stars if s == 5)
    fours = sum(1 for s in stars if s == 4)
    return len(stars) == 5 and len(set(character_ids)) == 5 and fives <= 1 and fives + fours <= 2


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a match to start: a human with a deck choice, or a bot."""

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

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None


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


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True, slots=True)
class TableSettings:
    rules: RuleSet
    random_deck: bool = False


@dataclass(frozen=True, slots=True)
class TableFilter:
    """Lobby filters; ``None`` matches everything (common.proto TableFilter)."""

    visibilities: frozenset[Visibility] = frozenset()
    same: bool | None = None
    plus: bool | None = None
    combo: bool | None = None
    elemental: bool | None = None
    same_wall: bool | None = None
    random_deck: bool | None = None
    trade_one: frozenset[bool] = field(default_factory=frozenset)
    challenges_only: bool | None = None


# --------------------------------------------------------------------------- tickets


class TicketState(StrEnum):
    QUEUED = "queued"
    CLAIMED = "claimed"
    """Paired, its match being created: no longer cancellable; back to queued only if
    the match cannot start because of the other player."""
    PAIRED = "paired"
    CANCELLED = "cancelled"


class CancelReason(StrEnum):
    PLAYER = "player"
    SWITCHED_TO_PRACTICE = "switched_to_practice"
    PAIRING_FAILED = "pairing_failed"


@dataclass(frozen=True, slots=True)
class Ticket:
    ticket_id: str
    player_id: str
    player_name: str
    mode: Mode
    rating: int
    enqueued_at: datetime
    deck: DeckChoice | None = None
    state: TicketState = TicketState.QUEUED
    match_id: str = ""
    draft_id: str = ""
    ended_at: datetime | None = None
    cancel_reason: CancelReason | None = None
    cancel_message: str = ""
    """Why the server cancelled it (its match could not start because of the player)."""

    @property
    def waiting(self) -> bool:
        return self.state in (TicketState.QUEUED, TicketState.CLAIMED)

    def waited(self, now: datetime) -> float:
        end = self.ended_at if self.ended_at is not None else now
        return max((end - self.enqueued_at).total_seconds(), 0.0)

    def as_waiting(self) -> Waiting:
        return Waiting(self.ticket_id, self.player_id, self.rating, self.enqueued_at.timestamp())


class TableState(StrEnum):
    OPEN = "open"
    JOINING = "joining"
    """A guest sat down and the match is being created."""
    STARTED = "started"
    CLOSED = "closed"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class Table:
    table_id: str
    host_id: str
    host_name: str
    settings: TableSettings
    created_at: datetime
    expire_at: datetime
    host_deck: DeckChoice | None = None
    challenged_name: str = ""
    state: TableState = TableState.OPEN
    match_id: str = ""
    guest_id: str = ""
    guest_name: str = ""

    def visible_to(self, player_id: str, player_name: str) -> bool:
        """A private challenge is shown only to its host and the challenged player."""
        return (
            not self.challenged_name
            or player_id == self.host_id
            or player_name == self.challenged_name
        )
