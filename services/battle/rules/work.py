"""A turn's working copy: the frozen :class:`~services.battle.rules.state.Battle` thawed
into small mutable objects, changed in place while the turn resolves, then frozen again.

Why: a turn makes dozens of small changes (HP, shields, Energy, hand); rebuilding frozen
values for each would cost more than the rules themselves. The copy never escapes
:func:`services.battle.rules.resolve.resolve_turn`, so callers only ever see frozen data
and the input battle is never changed.
"""

from __future__ import annotations

from services.battle.rules.content import Roster
from services.battle.rules.state import (
    Battle,
    Burn,
    Outcome,
    Reservation,
    SpdChange,
    Square,
    Team,
    Unit,
)


class WUnit:
    __slots__ = (
        "burns",
        "cover",
        "dealt",
        "hp",
        "max_hp",
        "order",
        "orig",
        "placed",
        "ref",
        "shield",
        "spd",
        "spd_changes",
        "square",
        "summon",
        "team",
        "uid",
    )

    def __init__(self, unit: Unit, team: int) -> None:
        self.orig = unit
        self.uid, self.ref, self.summon, self.team = unit.uid, unit.ref, unit.summon, team
        self.hp, self.max_hp, self.spd, self.order = unit.hp, unit.max_hp, unit.spd, unit.order
        self.square: Square | None = unit.square
        self.shield, self.cover, self.dealt = unit.shield, unit.cover, unit.damage_dealt
        self.placed = unit.placed
        # most units carry neither: skip the comprehensions (this runs for every unit, every turn)
        self.burns = [[b.damage, b.turns] for b in unit.burns] if unit.burns else []
        self.spd_changes = (
            [[c.delta, c.turns] for c in unit.spd_changes] if unit.spd_changes else []
        )

    def freeze(self) -> Unit:
        orig = self.orig
        if (
            self.hp == orig.hp
            and self.square == orig.square
            and self.shield == orig.shield
            and self.cover == orig.cover
            and self.dealt == orig.damage_dealt
            and not (self.burns or orig.burns or self.spd_changes or orig.spd_changes)
        ):
            return orig  # unchanged: most units of a turn keep their frozen value
        return Unit(
            self.uid,
            self.ref,
            self.summon,
            self.hp,
            self.max_hp,
            self.spd,
            self.square,
            self.order,
            self.shield,
            self.cover,
            tuple([Burn(d, t) for d, t in self.burns]) if self.burns else (),
            tuple([SpdChange(d, t) for d, t in self.spd_changes]) if self.spd_changes else (),
            self.dealt,
            self.placed,
        )

    def speed(self) -> int:
        return max(1, self.spd + sum(d for d, _ in self.spd_changes))


class WTeam:
    __slots__ = (
        "cooldowns",
        "cursor",
        "deck",
        "energy",
        "hand",
        "index",
        "next_order",
        "occupied",
        "reservations",
        "specials",
        "units",
        "used_specials",
    )

    def __init__(self, team: Team, index: int) -> None:
        self.index = index
        self.units = [WUnit(u, index) for u in team.units]
        self.occupied = {u.square for u in team.units if u.square is not None}
        """The squares holding a unit, kept up to date by defeats and summons."""
        self.energy, self.cursor, self.next_order = team.energy, team.cursor, team.next_order
        self.deck: tuple[str, ...] = team.deck  # replaced whole (never changed) on a defeat
        self.hand = list(team.hand)
        self.specials, self.used_specials = list(team.specials), list(team.used_specials)
        self.cooldowns = dict(team.cooldowns)
        self.reservations = list(team.reservations)

    def freeze(self) -> Team:
        return Team(
            tuple(u.freeze() for u in self.units),
            self.energy,
            self.deck,
            self.cursor,
            tuple(self.hand),
            tuple(self.specials),
            tuple(self.used_specials),
            tuple(sorted(self.cooldowns.items())) if self.cooldowns else (),
            tuple(self.reservations),
            self.next_order,
        )

    def living(self) -> list[WUnit]:
        return [u for u in self.units if u.square is not None]

    def characters_alive(self) -> int:
        return sum(1 for u in self.units if not u.summon and u.square is not None)

    def hp_total(self) -> int:
        return sum(u.hp for u in self.units if not u.summon)

    def at(self, square: Square) -> WUnit | None:
        for u in self.units:
            if u.square == square:
                return u
        return None

    def reserve(self, summon: str, square: Square, by: str) -> None:
        self.reservations.append(Reservation(summon, square, by))


class Work:
    __slots__ = ("content_version", "defeats", "last_actor", "outcome", "roster", "teams", "turn")

    def __init__(self, battle: Battle, roster: Roster) -> None:
        self.roster = roster
        self.defeats = 0
        """Units defeated so far this turn: the winner check runs only after a defeat."""
        self.content_version, self.turn = battle.content_version, battle.turn
        self.teams = (WTeam(battle.teams[0], 0), WTeam(battle.teams[1], 1))
        self.outcome: Outcome | None = battle.outcome
        self.last_actor: int | None = battle.last_actor

    def freeze(self) -> Battle:
        return Battle(
            self.content_version,
            self.turn,
            (self.teams[0].freeze(), self.teams[1].freeze()),
            self.outcome,
            self.last_actor,
        )

    def unit(self, team: int, uid: str) -> WUnit | None:
        for u in self.teams[team].units:
            if u.uid == uid:
                return u
        return None
