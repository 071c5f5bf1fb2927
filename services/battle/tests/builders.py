"""What the battle service's tests share: a context on the in-memory store with a clock
the test moves, and helpers that play a turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from random import Random

from services.battle import handlers, handlers_create
from services.battle.domain import BattleState
from services.battle.handlers import Context, SeatSpec
from services.battle.rules import Plan, Rosters, load_roster, rosters_of
from services.battle.store.memory import MemoryBattles
from services.platform.requests import Request

ROSTER = load_roster()
ANN, BEA = "ann-id", "bea-id"
TEAM_A = ("ember", "bastion", "wisp")
TEAM_B = ("sable", "moss", "volt")


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Announced:
    states: list[BattleState] = field(default_factory=list)
    seats: list[tuple[int, ...]] = field(default_factory=list)
    """The seats each state was announced to."""

    async def __call__(self, state: BattleState, seats: tuple[int, ...]) -> None:
        self.states.append(state)
        self.seats.append(seats)


async def direct(call):  # type: ignore[no-untyped-def]
    """Think on the test's thread: deterministic and fast."""
    return call()


def context(
    store: object | None = None, seed: int = 7, rosters: Rosters | None = None
) -> tuple[Context, Clock, Announced]:
    clock, announced = Clock(), Announced()
    ctx = Context(
        store=store or MemoryBattles(),  # type: ignore[arg-type]
        rosters=rosters or rosters_of(ROSTER),
        clock=clock,
        rng=Random(seed),
        announce=announced,
        think=direct,
    )
    return ctx, clock, announced


def humans(a: str = ANN, b: str = BEA) -> list[SeatSpec]:
    return [SeatSpec(a, "ann", "", TEAM_A), SeatSpec(b, "bea", "", TEAM_B)]


def versus_cpu(level: str = "greedy", player: str = ANN) -> list[SeatSpec]:
    return [SeatSpec(player, "ann", "", TEAM_A), SeatSpec("", "", level, TEAM_B)]


_ids = iter(range(1, 10**9))


def key(player: str, what: str = "cmd") -> Request:
    return Request.of(player, f"r{next(_ids)}", what)


async def online(ctx: Context, *players: str) -> None:
    """The players' sessions are open (each player's session "s1", opened now)."""
    for player in players:
        await ctx.store.record_presence(player, "s1", True, ctx.clock())


async def create(ctx: Context, battle_id: str, specs: list[SeatSpec]) -> BattleState:
    """A battle whose human players are online (so no takeover timer starts with it)."""
    await online(ctx, *(s.player_id for s in specs if s.player_id))
    return await handlers_create.create_battle(ctx, battle_id, specs)


async def start(ctx: Context, battle_id: str = "b1") -> BattleState:
    """Two humans online with their formations set: turn 1's selection."""
    await create(ctx, battle_id, humans())
    await handlers.set_formation(ctx, key(ANN), battle_id, ANN, ((0, 0), (1, 0), (2, 0)))
    seen = await handlers.set_formation(ctx, key(BEA), battle_id, BEA, ((0, 0), (1, 0), (2, 1)))
    return seen.state


async def commit(ctx: Context, battle_id: str, player: str, plan: Plan = ()) -> BattleState:
    state = await ctx.store.load(battle_id)
    assert state is not None
    seen = await handlers.commit_plan(ctx, key(player), battle_id, player, state.turn, plan)
    return seen.state
