"""Whether a battle given from outside could have come out of play (BATTLE.md 2 and 3).

The engine builds every battle it resolves, so its own states hold these by
construction; a battle handed to ``triad-battle resolve`` is checked first, so that a
hand-edited state gets an error naming what is wrong instead of a crash or a turn
resolved from something no battle reaches (two units on one square, a sixth card in
hand, a defeated character's cards still in the deck, a negative Burn).

What is checked, per team: three different characters of the roster, each at its
roster HP and SPD, named ``"<team>.<character>"``; summons of the roster, on the field,
named ``"<team>.s<n>"``; a unit has a square exactly while it has HP; units on distinct
squares, listed in placement order; the deck is the cards of the living characters,
the hand a part of it within the hand limit; Specials those of living characters, not
yet used; cooldowns on the team's own cards; reservations of roster summons by the
team's characters; Burns of at least 1. A battle not over has a living character on
each side.
"""

from __future__ import annotations

from collections import Counter

from services.battle.rules.content import Character, Roster
from services.battle.rules.state import (
    MAX_SPECIALS,
    TEAM_SIZE,
    Battle,
    BattleError,
    Team,
    Unit,
    hand_limit,
    unit_id,
)


class Inconsistent(BattleError):
    """A battle no play reaches; the message names the field and the rule."""


def check_battle(roster: Roster, battle: Battle, where: str = "battle") -> None:
    """Raise :class:`Inconsistent` for the first thing no battle in play could hold."""
    uids = Counter(u.uid for t in battle.teams for u in t.units)
    twice = sorted(uid for uid, n in uids.items() if n > 1)
    if twice:
        raise Inconsistent(f"{where}: unit ids {twice} appear more than once")
    placed = [u.placed for t in battle.teams for u in t.units if u.summon]
    if len(set(placed)) != len(placed):
        raise Inconsistent(f"{where}: two summons share a 'placed' number")
    for t, team in enumerate(battle.teams):
        _check_team(roster, t, team, f"{where}.teams[{t}]")
        if battle.outcome is None and not any(u.alive for u in team.units if not u.summon):
            raise Inconsistent(f"{where}.teams[{t}]: no character stands, yet no outcome")


def _check_team(roster: Roster, t: int, team: Team, where: str) -> None:
    if team.hand_size >= 0:
        raise Inconsistent(f"{where}.hand_size: a player's view hides a hand; give the battle")
    characters = [u for u in team.units if not u.summon]
    refs = [u.ref for u in characters]
    if len(refs) != TEAM_SIZE or len(set(refs)) != TEAM_SIZE:
        raise Inconsistent(f"{where}.units: three different characters, got {refs}")
    orders = [u.order for u in team.units]
    if orders != sorted(set(orders)) or team.next_order <= max(orders):
        raise Inconsistent(
            f"{where}.units: listed in placement order with distinct 'order' values below "
            f"next_order {team.next_order}, got {orders}"
        )
    squares = [u.square for u in team.units if u.square is not None]
    if len(set(squares)) != len(squares):
        raise Inconsistent(f"{where}.units: two units stand on one square")
    for i, unit in enumerate(team.units):
        _check_unit(roster, t, unit, f"{where}.units[{i}]")
    living = [roster.characters[u.ref] for u in characters if u.alive]
    cards = {c for member in living for c in member.cards}
    if len(team.deck) != len(cards) or set(team.deck) != cards:
        raise Inconsistent(
            f"{where}.deck: the cards of the living characters, {sorted(cards)}, in some order"
        )
    if not set(team.hand) <= cards or len(team.hand) > hand_limit(len(team.deck)):
        raise Inconsistent(
            f"{where}.hand: at most {hand_limit(len(team.deck))} cards, all of the deck"
        )
    _check_specials(team, [roster.characters[r] for r in refs], living, where)
    own = {c for r in refs for c in roster.characters[r].cards}
    strangers = sorted(c for c, _ in team.cooldowns if c not in own)
    if strangers:
        raise Inconsistent(f"{where}.cooldowns: {strangers} are not this team's cards")
    summoners = {u.uid for u in characters}
    for i, reserved in enumerate(team.reservations):
        if reserved.summon not in roster.summons or reserved.by not in summoners:
            raise Inconsistent(
                f"{where}.reservations[{i}]: a summon of the roster "
                f"{sorted(roster.summons)} reserved by one of {sorted(summoners)}"
            )


def _check_unit(roster: Roster, t: int, unit: Unit, where: str) -> None:
    if unit.summon:
        summon = roster.summons.get(unit.ref)
        if summon is None or unit.max_hp != summon.hp or not unit.uid.startswith(f"{t}.s"):
            raise Inconsistent(
                f"{where}: a summon of the roster {sorted(roster.summons)}, at its HP, "
                f"named '{t}.s<n>'"
            )
        if unit.square is None or unit.placed < 1:
            raise Inconsistent(f"{where}: a summon stands on the field until it falls")
    else:
        character = roster.characters.get(unit.ref)
        if character is None:
            raise Inconsistent(f"{where}.ref: {unit.ref!r} is none of the roster's characters")
        if unit.uid != unit_id(t, unit.ref) or unit.placed:
            raise Inconsistent(f"{where}.uid: a character of team {t} is {unit_id(t, unit.ref)!r}")
        if (unit.max_hp, unit.spd) != (character.hp, character.spd):
            raise Inconsistent(
                f"{where}: {unit.ref} has max_hp {character.hp} and spd {character.spd}"
            )
    if (unit.hp > 0) != (unit.square is not None):
        raise Inconsistent(f"{where}: a unit stands on a square exactly while its HP is above 0")
    if any(burn.damage < 1 for burn in unit.burns):
        raise Inconsistent(f"{where}.burns: a Burn deals at least 1 a turn")


def _check_specials(
    team: Team, members: list[Character], living: list[Character], where: str
) -> None:
    alive = {m.special for m in living}
    if len(team.specials) > MAX_SPECIALS or not set(team.specials) <= alive:
        raise Inconsistent(
            f"{where}.specials: Specials of living characters, one of {sorted(alive)}"
        )
    used = set(team.used_specials)
    if used & set(team.specials) or not used <= {m.special for m in members}:
        raise Inconsistent(f"{where}.used_specials: this team's Specials, none still in hand")
