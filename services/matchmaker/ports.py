"""What the matchmaker needs from other services, as narrow ports the handlers call.

The match service creates matches and knows who is in one. The collection service
resolves decks (and locks them for trading matches), knows pending trades and open
drafts, draws bot decks and starts drafts. The rating service knows ratings. Each port
has a gRPC adapter (``clients.py``) and, where the service may not be deployed yet, an
in-repo fallback (``fallbacks.py``), so the matchmaker runs and is tested on its own.

Adapters raise the platform's domain errors when the other service refused (the
message is passed on: it names the rule) and ``Unavailable`` when it did not answer,
which callers treat as "try again later", never as a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from services.matchmaker.domain import BotLevel, Card, DeckChoice, Mode, RuleSet


class Unavailable(Exception):
    """A service the matchmaker depends on did not answer in time; retry later."""


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


class Matches(Protocol):
    async def active_match(self, player_id: str) -> str | None:
        """The id of the player's active match, if any."""
        ...

    async def create(self, spec: MatchSpec) -> None:
        """Create the match (idempotent on request and match id)."""
        ...


class Decks(Protocol):
    async def resolve(
        self, player_id: str, choice: DeckChoice, purpose_id: str, lock: bool
    ) -> tuple[Card, ...]:
        """The player's five cards for match ``purpose_id``, locked for it when ``lock``
        (a trading match). Idempotent on (player, purpose). Raises NotFound (no such
        deck) or FailedPrecondition (the deck breaks a rule now)."""
        ...

    async def release(self, match_id: str) -> None:
        """Release every copy locked for a match that will not start (idempotent)."""
        ...

    async def check(self, player_id: str, choice: DeckChoice) -> None:
        """Refuse a deck that cannot be played now, locking nothing: NotFound (not a deck
        of the player's) or FailedPrecondition naming the broken rules."""
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
    async def draw(self, request_id: str) -> tuple[Card, ...]:
        """A legal bot deck; the same ``request_id`` always gives the same deck."""
        ...


class Drafts(Protocol):
    async def create(
        self, draft_id: str, pairing_id: str, ladder: str, players: Sequence[tuple[str, str]]
    ) -> None:
        """Start the draft of a Draft pairing for (player id, name) pairs; idempotent."""
        ...


@dataclass(frozen=True, slots=True)
class Ports:
    matches: Matches
    decks: Decks
    obligations: Obligations
    ratings: Ratings
    bot_decks: BotDecks
    drafts: Drafts | None = None
    """None while no collection service is configured: the Draft queue is closed."""
