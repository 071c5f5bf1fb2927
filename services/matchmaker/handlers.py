"""What every matchmaker use case is given (repositories, ports, clock, random source,
configuration, metrics), and the checks they share. The use cases themselves are in
``handlers_queues.py`` (queues and practice), ``handlers_lobby.py`` (custom tables),
``handlers_pairing.py`` (pairing rounds) and ``handlers_starts.py`` (starting what
those decided).

The ports: what the matchmaker needs from other services, as narrow protocols the
handlers call. The match service creates matches and knows who is in one. The
collection service resolves decks (and locks them for trading matches), knows pending
trades and open drafts, draws bot decks and starts drafts. The rating service knows
ratings. Each port has a gRPC adapter and, where the service may not be deployed yet,
an in-repo stand-in (both in ``clients.py``), so the matchmaker runs and is tested on
its own.

Adapters raise the platform's domain errors when the other service refused (the
message is passed on: it names the rule) and the platform's ``Unavailable`` when it
did not answer,
which callers treat as "try again later", never as a refusal.

One port tells the players themselves: ``Pushes`` (a ticket's status, a hosted table, a
challenge to the challenged player),
called after each change commits (``handlers_status.py`` says when); ``pushes.py``
puts it on the players' NATS subjects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from random import Random
from typing import Protocol
from uuid import NAMESPACE_URL, uuid5

from prometheus_client import CollectorRegistry

from services.matchmaker.domain import (
    BOT_NAMES,
    BotLevel,
    Card,
    DeckChoice,
    Mode,
    RuleSet,
    Seat,
    Table,
    Ticket,
    TicketState,
    WindowPolicy,
    bot_name,
)
from services.matchmaker.metrics import MatchmakerMetrics
from services.matchmaker.store import Lobby, Repository
from services.platform.background import DueSoon


@dataclass(frozen=True, slots=True)
class MatchSeat:
    player_id: str
    name: str
    cards: tuple[Card, ...]
    bot_level: BotLevel | None = None


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """A CreateMatch request: ``request_id`` and ``match_id`` derive from the start, so
    two replicas (or a retry) asking twice create one match."""

    request_id: str
    match_id: str
    mode: Mode
    rules: RuleSet
    seats: tuple[MatchSeat, MatchSeat]
    origin_mode: Mode | None = None
    ladder: str = ""
    origin_id: str = ""
    draw_pile: tuple[Card, ...] = ()
    """Realm Sudden Death (RULES.md 17): ten catalog cards, drawn once per start."""


class Matches(Protocol):
    async def active_match(self, player_id: str) -> str | None:
        """The id of the player's active match, if any."""
        ...

    async def away_since(self, player_id: str) -> datetime | None:
        """When the player's latest session ended for good, if it has and none opened
        since (never seen: None)."""
        ...

    async def create(self, spec: MatchSpec) -> None:
        """Create the match (idempotent on request and match id)."""
        ...


@dataclass(frozen=True, slots=True)
class DeckRequest:
    """A player's deck asked for a match: ``hand_size`` cards (RULES.md 11) of
    ``choice`` for match ``purpose_id``, locked for it when ``lock`` (a trading match)."""

    player_id: str
    choice: DeckChoice
    purpose_id: str
    lock: bool
    hand_size: int = 5


class Decks(Protocol):
    async def resolve(self, asked: DeckRequest) -> tuple[Card, ...]:
        """The cards of the deck ``asked`` for. Idempotent on (player, purpose).
        Raises NotFound (no such deck) or FailedPrecondition (the deck breaks a rule
        now, or is not of that size)."""
        ...

    async def release(self, match_id: str) -> None:
        """Release every copy locked for a match that will not start (idempotent)."""
        ...

    async def check(self, player_id: str, choice: DeckChoice, hand_size: int = 0) -> None:
        """Refuse a deck that cannot be played now (at a table of ``hand_size`` cards
        when given), locking nothing: NotFound (not a deck of the player's) or
        FailedPrecondition naming the broken rules."""
        ...


class Obligations(Protocol):
    async def blocking(self, player_id: str, current_match_id: str = "") -> str | None:
        """A sentence naming what keeps the player from a new match (a pending trade,
        also while a finished Trade One match's trade is being opened; an open draft),
        or None. ``current_match_id``: the match being started, whose own deck locks do
        not count."""
        ...


class Ratings(Protocol):
    async def ratings(self, ladder: str, player_ids: Sequence[str]) -> dict[str, int]:
        """Each player's rating on ``ladder`` ("ranked" or "draft"), 1500 if unplayed."""
        ...


class BotDecks(Protocol):
    async def draw(
        self, request_id: str, hand_size: int = 5, house: bool = False
    ) -> tuple[Card, ...]:
        """A legal bot deck of ``hand_size``; with ``house``, a house hand (RULES.md 11:
        origin "house", 5% holo). The same ``request_id`` always gives the same cards."""
        ...


class Battles(Protocol):
    async def create(self, battle_id: str, seats: Sequence[Seat]) -> None:
        """Create the battle of these seats (players, or the CPU); idempotent on its id."""
        ...

    async def active_battle(self, player_id: str) -> str | None:
        """The battle the player plays now; not one whose seat the CPU took over (they
        lost it and only watch)."""
        ...


class Drafts(Protocol):
    async def create(
        self, draft_id: str, pairing_id: str, ladder: str, players: Sequence[tuple[str, str]]
    ) -> None:
        """Start the draft of a Draft pairing for (player id, name) pairs; idempotent."""
        ...


@dataclass(frozen=True, slots=True)
class QueueView:
    """A ticket with its live status (QueueStatus), as of ``now``."""

    ticket: Ticket
    waited: float
    queue_length: int
    window: int
    bot_fill_delay: float | None
    practice_available: bool


class Pushes(Protocol):
    """Where players hear of their ticket, of the table they host and of a challenge to
    them, once a change of it committed (a hint: a lost one is repaired by the next, or
    by the player's session reading their status again)."""

    async def queue_status(self, view: QueueView) -> None:
        """The ticket's status, to the ticket's player."""
        ...

    async def table(self, table: Table) -> None:
        """The table as it is now, to its host."""
        ...

    async def challenge(self, table: Table) -> None:
        """A challenge as it is now, to the challenged player (``table.challenged_id``)."""
        ...


class NoPushes:
    """Nobody to tell (tests that do not look, tools)."""

    async def queue_status(self, view: QueueView) -> None:
        return None

    async def table(self, table: Table) -> None:
        return None

    async def challenge(self, table: Table) -> None:
        return None


@dataclass
class Shown:
    """What this process last told each waiting ticket's player their status shows (the
    rating window, the queue's length), per queue, so that a pairing round tells a
    waiting ticket only when that changed. Each round replaces its queue's entries with
    the tickets still waiting, so only tickets that wait are remembered. Another
    replica's rounds remember their own: a ticket is then told once more, never less."""

    queues: dict[Mode, dict[str, tuple[int, int]]] = field(default_factory=dict)
    ended: dict[Mode, set[str]] = field(default_factory=dict)
    """Tickets told ended (cancelled, switched, paired) since their queue's last round
    told its waiting tickets: a round that read them waiting before they ended does not
    tell them "queued" after their end (the player's page showed the queue again)."""

    @staticmethod
    def key(view: QueueView) -> tuple[int, int]:
        return (view.window, view.queue_length)

    def told(self, view: QueueView) -> None:
        """``view`` was just told: a round need not tell it again (a ticket created), or
        must not (a ticket ended)."""
        mode, ticket_id = view.ticket.mode, view.ticket.ticket_id
        if view.ticket.state is TicketState.QUEUED:
            self.queues.setdefault(mode, {})[ticket_id] = self.key(view)
        else:
            self.queues.get(mode, {}).pop(ticket_id, None)
            self.ended.setdefault(mode, set()).add(ticket_id)

    def still_waiting(self, mode: Mode, waiting: Sequence[Ticket]) -> list[Ticket]:
        """A round's waiting tickets less those told ended meanwhile (then forgotten: a
        later round reads them ended)."""
        ended = self.ended.pop(mode, set())
        return [ticket for ticket in waiting if ticket.ticket_id not in ended]


@dataclass(frozen=True, slots=True)
class Ports:
    matches: Matches
    decks: Decks
    obligations: Obligations
    ratings: Ratings
    bot_decks: BotDecks
    drafts: Drafts | None = None
    """None while no collection service is configured: the Draft queue is closed."""
    battles: Battles | None = None
    """None while no battle service is configured: the Battle queue is closed."""


@dataclass(frozen=True, slots=True)
class Config:
    policy: WindowPolicy = field(default_factory=WindowPolicy)
    bot_fill_seconds: float = 20.0
    """Unranked: how long a ticket waits for a human before a populated bot sits down."""
    bot_level: BotLevel = BotLevel.NORMAL
    """The level of populated bots, and of practice bots when the player names none."""
    table_ttl_seconds: float = 600.0
    lease_seconds: float = 10.0
    """How long a replica owns a match start before another may take it over; longer
    than the calls a start makes (each bounded by the clients' deadline)."""
    round_limit: int = 1000
    """Tickets one pairing round considers per queue (the oldest)."""
    pair_interval_seconds: float = 0.5
    """Between two pairing rounds while tickets wait (their windows widen, bots sit
    down); with none waiting, the pairing loop sleeps until an enqueue wakes it."""
    ended_visible_seconds: float = 600.0
    """How long GetQueueStatus still shows a ticket after it was paired or cancelled."""


@dataclass(frozen=True, slots=True)
class Wakes:
    """This process's loops of due work sleep until it is due (at most their poll
    ceiling): a use case here that writes work due sooner wakes its loop, once that
    work has committed (a loop woken before would not see it yet)."""

    pairing: DueSoon = field(default_factory=DueSoon)
    """A ticket enqueued: a round is due within a pair interval."""
    starts: DueSoon = field(default_factory=DueSoon)
    """A start's lease, taken over by any replica once it runs out."""
    tables: DueSoon = field(default_factory=DueSoon)
    """A table's expiry."""


@dataclass(frozen=True, slots=True)
class Context:
    store: Repository
    lobby: Lobby
    ports: Ports
    clock: Callable[[], datetime]
    rng: Random
    config: Config = field(default_factory=Config)
    metrics: MatchmakerMetrics = field(
        default_factory=lambda: MatchmakerMetrics.register(CollectorRegistry())
    )
    pushes: Pushes = field(default_factory=NoPushes)
    shown: Shown = field(default_factory=Shown)
    wakes: Wakes = field(default_factory=Wakes)

    def lease_until(self, now: datetime) -> datetime:
        return now + timedelta(seconds=self.config.lease_seconds)


@dataclass(frozen=True, slots=True)
class Player:
    """The acting player as the gateway names them."""

    player_id: str
    name: str


def match_id_for(start_id: str) -> str:
    """The match a start creates: derived, so every replica and retry names the same."""
    return str(uuid5(NAMESPACE_URL, f"triad:matchmaker:match:{start_id}"))


def draft_id_for(start_id: str) -> str:
    return str(uuid5(NAMESPACE_URL, f"triad:matchmaker:draft:{start_id}"))


def bot_seat(ctx: Context, start_id: str, level: BotLevel) -> Seat:
    """A bot with a drawn name; its deck is drawn when the match starts."""
    bot_id = f"bot-{uuid5(NAMESPACE_URL, f'triad:matchmaker:bot:{start_id}')}"
    return Seat(bot_id, bot_name(ctx.rng.randrange(len(BOT_NAMES))), bot_level=level)
