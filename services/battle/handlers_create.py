"""Making a battle: the seats asked for (a player or the CPU), the teams drawn under the
current content, the CPU's formations; a retried request finds the battle it made. A
player with no session open when the battle starts is treated as one whose session
ended then (BATTLE.md 5)."""

from __future__ import annotations

from dataclasses import replace

from services.battle import domain
from services.battle.domain import BattleState, SeatRecord
from services.battle.handlers import Context, SeatSpec, active_battle, after, cpu_moves
from services.battle.handlers_timers import tell_presence
from services.battle.rules import Roster, shuffled_decks
from services.battle.store.port import Write
from services.platform.errors import AlreadyExists, FailedPrecondition, InvalidArgument, short_id
from services.platform.eventstore import WrongExpectedVersion
from services.platform.requests import RequestReused


def _team(ctx: Context, roster: Roster, spec: SeatSpec) -> tuple[str, str, str]:
    chosen = spec.characters or tuple(ctx.rng.sample(sorted(roster.characters), 3))
    if len(chosen) != 3 or len(set(chosen)) != 3:
        # In words, not a Python list (found from outside: "got ['ember', 'wisp']").
        got = ", ".join(chosen) or "none"
        raise InvalidArgument(f"a team is three different characters; got {len(chosen)}: {got}")
    return chosen[0], chosen[1], chosen[2]


def _by_id(roster: Roster, spec: SeatSpec) -> SeatSpec:
    """The seat with its characters named by id: each may be asked for by its id, its
    name or the first name the screens show ("volt", "Kira Volt", "kira"), in any case."""
    firsts = [c.name.split()[0].casefold() for c in roster.characters.values()]
    ids = {
        first: c.id
        for first, c in zip(firsts, roster.characters.values(), strict=True)
        if firsts.count(first) == 1
    }
    ids |= {c.name.casefold(): c.id for c in roster.characters.values()}
    ids |= {i.casefold(): i for i in roster.characters}
    unknown = [c for c in spec.characters if c.casefold() not in ids]
    if unknown:
        known = ", ".join(f"{c.name} ({c.id})" for c in roster.characters.values())
        raise InvalidArgument(f"unknown characters {unknown}; the roster has {known}")
    return replace(spec, characters=tuple(ids[c.casefold()] for c in spec.characters))


def _asked(existing: BattleState, specs: list[SeatSpec]) -> BattleState:
    """The battle already created under this id, if it is the one ``specs`` ask for (a
    retry): the same players, CPU levels and, where a seat names them, characters. A
    practice battle's id comes from its request id, so another team or level under it
    is that request id reused for a different request."""
    if [r.player_id for r in existing.seats] != [s.player_id for s in specs]:
        raise AlreadyExists(f"battle {existing.battle_id} exists with other players")
    for record, spec in zip(existing.seats, specs, strict=True):
        level = "" if spec.player_id else spec.level
        if record.level != level or (spec.characters and record.characters != spec.characters):
            raise RequestReused(
                f"the request id of battle {short_id(existing.battle_id)} was already used "
                "for a different request (another team or bot level); use a new request id "
                "for a new battle"
            )
    return existing


async def create_battle(ctx: Context, battle_id: str, specs: list[SeatSpec]) -> BattleState:
    """A new battle (idempotent on ``battle_id``) under the current content, its version
    recorded: the teams and deck orders drawn and recorded, the CPU seats' formations
    set, the formation deadline started."""
    if len(specs) != 2 or not any(s.player_id for s in specs):
        raise InvalidArgument("a battle has two seats, at least one of them a player")
    humans = [s.player_id for s in specs if s.player_id]
    if len(set(humans)) != len(humans):
        raise InvalidArgument("a player cannot sit on both sides of a battle")
    specs = [_by_id(ctx.rosters.current, s) for s in specs]
    existing = await ctx.store.load(battle_id)
    if existing is not None:
        return _asked(existing, specs)
    for spec in specs:
        active = await active_battle(ctx, spec.player_id) if spec.player_id else None
        if active is not None and active.battle_id == battle_id:
            # a try of this same request saved it since the load above: its battle
            again = await ctx.store.load(battle_id)
            if again is not None:
                return _asked(again, specs)
        if active is not None and not active.taken_over:  # else lost: it becomes the new one
            raise FailedPrecondition(
                f"{spec.name or spec.player_id} has a battle in progress "
                f"({active.battle_id[:8]}): finish it (triad-client battle resumes it) "
                "or give it up first"
            )
    roster = ctx.rosters.current
    teams = (_team(ctx, roster, specs[0]), _team(ctx, roster, specs[1]))
    decks = shuffled_decks(roster, teams, ctx.rng)
    seats = tuple(
        SeatRecord(s.player_id, s.name, "" if s.player_id else s.level, teams[i], decks[i])
        for i, s in enumerate(specs)
    )
    decision = domain.create(battle_id, (seats[0], seats[1]), roster, ctx.clock(), ctx.timing)
    decision = await cpu_moves(ctx, roster, decision)
    try:
        await ctx.store.save(Write(battle_id, decision))
    except WrongExpectedVersion:
        again = await ctx.store.load(battle_id)
        if again is None:
            raise
        return _asked(again, specs)
    await after(ctx, decision)
    await _watch_absent(ctx, decision.state)
    return decision.state


async def _watch_absent(ctx: Context, state: BattleState) -> None:
    """A player with no session open when their battle starts is away from its start:
    the CPU takes their seat over after ``ctx.disconnect`` unless a session opens first
    (BATTLE.md 5), as for a session that ends during the battle. Presence is read again
    once the timer is set: a session that opened meanwhile reported to no battle yet."""
    for seat, record in enumerate(state.seats):
        if state.over or record.cpu or await ctx.store.connected(record.player_id):
            continue
        due = ctx.clock() + ctx.disconnect
        await ctx.store.set_disconnect(state.battle_id, seat, due)
        ctx.wake(due)
        if await ctx.store.connected(record.player_id):
            await ctx.store.clear_disconnect(state.battle_id, seat)
            continue
        await tell_presence(ctx, state.battle_id, seat, due)
