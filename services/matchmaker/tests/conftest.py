"""Fixtures for the matchmaker's tests: the repository in memory (``ctx``, for handler
tests that need no database) or in real PostgreSQL (a schema per test), a clock the
test moves by hand, and in-memory stand-ins for the match, collection and rating
services behind the matchmaker's ports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from random import Random
from typing import Any

import pytest

from services.matchmaker.clients import LocalBotDecks, StarterDecks
from services.matchmaker.domain import DeckChoice, Seat
from services.matchmaker.handlers import Config, Context, MatchSpec, Player, Ports
from services.matchmaker.schema import SCHEMA_MIGRATIONS
from services.matchmaker.store import MatchmakerStore
from services.matchmaker.store.lobby import LobbyStore
from services.matchmaker.store.memory import MemoryStore
from services.platform.errors import FailedPrecondition
from services.platform.migrations import migrate

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class FakeMatches:
    """The match service as the matchmaker sees it: creates matches (once per id) and
    refuses a human already in another one, as its active_matches key does."""

    def __init__(self) -> None:
        self.created: dict[str, MatchSpec] = {}
        self.calls = 0
        self.active: dict[str, str] = {}
        self.away: dict[str, datetime] = {}
        """Players whose session ended for good, and when (the match service's presence)."""

    async def active_match(self, player_id: str) -> str | None:
        return self.active.get(player_id)

    async def away_since(self, player_id: str) -> datetime | None:
        return self.away.get(player_id)

    async def create(self, spec: MatchSpec) -> None:
        self.calls += 1
        if spec.match_id in self.created:
            return
        humans = [s for s in spec.seats if s.bot_level is None]
        for seat in humans:
            if self.active.get(seat.player_id, spec.match_id) != spec.match_id:
                raise FailedPrecondition(f"{seat.name} already has an active match")
        self.created[spec.match_id] = spec
        for seat in humans:
            self.active[seat.player_id] = spec.match_id

    def of(self, player_id: str) -> list[MatchSpec]:
        return [s for s in self.created.values() if any(p.player_id == player_id for p in s.seats)]


class FakeObligations:
    def __init__(self) -> None:
        self.blocked: dict[str, str] = {}

    async def blocking(self, player_id: str, current_match_id: str = "") -> str | None:
        return self.blocked.get(player_id)


class FakeRatings:
    def __init__(self) -> None:
        self.known: dict[str, int] = {}

    async def ratings(self, ladder: str, player_ids: Sequence[str]) -> dict[str, int]:
        return {p: self.known.get(p, 1500) for p in player_ids}


class FakeDrafts:
    def __init__(self) -> None:
        self.created: dict[str, tuple[str, str, list[tuple[str, str]]]] = {}

    async def create(
        self, draft_id: str, pairing_id: str, ladder: str, players: Sequence[tuple[str, str]]
    ) -> None:
        self.created[draft_id] = (pairing_id, ladder, list(players))


class FakeBattles:
    """The battle service as the Battle queue sees it."""

    def __init__(self) -> None:
        self.created: dict[str, list[tuple[str, str]]] = {}
        self.seats: dict[str, list[Seat]] = {}
        self.refuse: Exception | None = None
        """Set: ``create`` refuses with it (a team the battle service would refuse)."""
        self.active: dict[str, str] = {}

    async def create(self, battle_id: str, seats: Sequence[Seat]) -> None:
        if self.refuse is not None:
            raise self.refuse
        if battle_id in self.created:
            return
        players = [(s.player_id, s.name) for s in seats if not s.is_bot]
        busy = [p for p, _ in players if p in self.active]
        if busy:
            raise FailedPrecondition(f"player {busy[0]} has a battle in progress")
        self.created[battle_id] = players
        self.seats[battle_id] = list(seats)
        self.active.update({p: battle_id for p, _ in players})

    async def active_battle(self, player_id: str) -> str | None:
        return self.active.get(player_id)


class Fakes:
    def __init__(self) -> None:
        self.battles = FakeBattles()
        self.matches = FakeMatches()
        self.obligations = FakeObligations()
        self.ratings = FakeRatings()
        self.drafts = FakeDrafts()

    def ports(self) -> Ports:
        return Ports(
            matches=self.matches,
            decks=StarterDecks(),
            obligations=self.obligations,
            ratings=self.ratings,
            bot_decks=LocalBotDecks(),
            drafts=self.drafts,
            battles=self.battles,
        )


def player(name: str) -> Player:
    return Player(f"id-{name}", name)


DECK = DeckChoice(deck_id="main")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def fakes() -> Fakes:
    return Fakes()


@pytest.fixture
async def migrated(pg_pool: Any, pg_schema: str) -> str:
    await migrate(pg_pool, pg_schema, SCHEMA_MIGRATIONS)
    return pg_schema


def make_context(
    pool: Any,
    schema: str,
    fakes: Fakes,
    clock: Callable[[], datetime],
    config: Config | None = None,
    seed: int = 7,
) -> Context:
    return Context(
        store=MatchmakerStore(pool, schema),
        lobby=LobbyStore(pool, schema),
        ports=fakes.ports(),
        clock=clock,
        rng=Random(seed),
        config=config or Config(bot_fill_seconds=20.0, lease_seconds=10.0),
    )


@pytest.fixture
def ctx(fakes: Fakes, clock: Clock) -> Context:
    """The handlers over the in-memory repository: no database needed."""
    store = MemoryStore()
    return Context(
        store=store,
        lobby=store,
        ports=fakes.ports(),
        clock=clock,
        rng=Random(7),
        config=Config(bot_fill_seconds=20.0, lease_seconds=10.0),
    )
