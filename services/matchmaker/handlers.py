"""What every matchmaker use case is given (repositories, ports, clock, random source,
configuration, metrics), and the checks they share."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from random import Random
from uuid import NAMESPACE_URL, uuid5

from prometheus_client import CollectorRegistry

from services.matchmaker import bots
from services.matchmaker.domain import BotLevel, Seat, WindowPolicy
from services.matchmaker.lobby_store import LobbyStore
from services.matchmaker.metrics import MatchmakerMetrics
from services.matchmaker.ports import Ports
from services.matchmaker.store import Engaged, MatchmakerStore
from services.platform.errors import AlreadyExists, DomainError, FailedPrecondition, short_id


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
    ended_visible_seconds: float = 600.0
    """How long GetQueueStatus still shows a ticket after it was paired or cancelled."""


@dataclass(frozen=True, slots=True)
class Context:
    store: MatchmakerStore
    lobby: LobbyStore
    ports: Ports
    clock: Callable[[], datetime]
    rng: Random
    config: Config = field(default_factory=Config)
    metrics: MatchmakerMetrics = field(
        default_factory=lambda: MatchmakerMetrics.register(CollectorRegistry())
    )

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
    return Seat(bot_id, bots.bot_name(ctx.rng.randrange(len(bots.BOT_NAMES))), bot_level=level)


async def obstacle(
    ctx: Context, seat: Seat, match_id: str = "", *, obligations: bool = True
) -> str | None:
    """Why a player may not start a match now (RULES.md 5, 7, 8), or None. The match
    being started (``match_id``) does not count: a retried start finds it active."""
    active, blocking = await asyncio.gather(
        ctx.ports.matches.active_match(seat.player_id),
        ctx.ports.obligations.blocking(seat.player_id, match_id) if obligations else _none(),
    )
    if active is not None and active != match_id:
        return f"{seat.name} is playing match {short_id(active)}; finish it first"
    if blocking:
        return f"{seat.name} cannot start another match yet: {blocking}"
    return None


async def _none() -> None:
    return None


async def check_free(ctx: Context, player: Player) -> None:
    """Refuse (FAILED_PRECONDITION) a player with an active match or an obligation."""
    problem = await obstacle(ctx, Seat(player.player_id, "you"))
    if problem is not None:
        raise FailedPrecondition(problem.replace("you is", "you are"))


def engaged_error(error: Engaged, already: str = "") -> DomainError:
    """What to tell a player the matchmaker already holds; ``already`` is the kind for
    which the answer is ALREADY_EXISTS (a second ticket, a second table)."""
    kind, ref = error.kind, short_id(error.ref_id)
    messages = {
        "ticket": f"you already have queued ticket {ref}: cancel it (or switch it to "
        "practice) first",
        "table": f"you already host open table {ref}: close it first",
        "joining": f"you are joining table {ref} right now",
        "practice": "your practice match is starting right now",
    }
    message = messages.get(kind, "the matchmaker is busy with another request of yours")
    return AlreadyExists(message) if kind == already else FailedPrecondition(message)
