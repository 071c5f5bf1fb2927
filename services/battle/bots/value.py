"""How the CPU players weigh things: the expected value of one action on the battle a
player sees, and the score of a battle for one side. Estimates, not rules: they read the
view only (the opponent's hand is not in it)."""

from __future__ import annotations

from services.battle.rules.content import Card, Kind, Range, Roster
from services.battle.rules.plans import Action, fields
from services.battle.rules.state import Battle, Team, Unit
from services.battle.rules.targets import reach

KILL_BONUS = 18.0
"""A character defeated is worth more than its last HP: its cards leave the other deck."""
SHIELD_WORTH = 0.35
SUMMON_TURNS = 2.5
"""Turns a summon is expected to act before it falls."""
ENERGY_WORTH = 5.0


def _at(team: Team) -> dict[tuple[int, int], Unit]:
    return {u.square: u for u in team.units if u.square is not None}


def action_value(roster: Roster, battle: Battle, player: int, action: Action) -> float:
    """What one action is expected to do, in HP-like points, if it resolved now."""
    card = roster.cards[action.card]
    mine, theirs = battle.teams[player], battle.teams[1 - player]
    enemy, own = fields(battle, player)
    if card.range is Range.SELF:
        user = next(u for u in mine.units if u.ref == action.character and not u.summon)
        units = [user]
    else:
        on_enemy, squares = reach(card.range, action.target, enemy, own)
        field = _at(theirs if on_enemy else mine)
        units = [field[s] for s in squares if s in field]
    worth = sum(_effect_value(roster, card, e, units, theirs) for e in range(len(card.effects)))
    return worth - _summons_waiting(roster, card, mine, action)


WAITING_WORTH = 0.25
"""What a summon onto an occupied square is worth against one placed now: it waits for
the square (BATTLE.md 2) and may never come. A second reservation of a square is worth
nothing: it waits behind the first."""


def _summons_waiting(roster: Roster, card: Card, mine: Team, action: Action) -> float:
    """What ``action``'s summons lose by their square: found from outside, the CPU
    summoned onto its own occupied square 0 0 turn after turn (every square looked the
    same to it, and 0 0 came first), its Energy spent on reservations piling up."""
    square = action.target.square
    if square is None or all(e.kind is not Kind.SUMMON for e in card.effects):
        return 0.0
    if any(r.square == square for r in mine.reservations):
        keep = 0.0
    elif square in _at(mine):
        keep = WAITING_WORTH
    else:
        return 0.0
    summons = [e for e in range(len(card.effects)) if card.effects[e].kind is Kind.SUMMON]
    return sum(_effect_value(roster, card, e, [], mine) for e in summons) * (1.0 - keep)


def _effect_value(roster: Roster, card: Card, index: int, units: list[Unit], theirs: Team) -> float:
    effect = card.effects[index]
    kind, amount = effect.kind, effect.amount
    if kind is Kind.DAMAGE:
        total = 0.0
        for u in units:
            dealt = min(u.hp, max(0, amount - u.shield))
            total += dealt + (KILL_BONUS if dealt == u.hp and not u.summon else 0.0)
        return total
    if kind is Kind.BURN:
        return sum(min(u.hp, amount * effect.turns) * 0.8 for u in units)
    if kind is Kind.HEAL:
        return sum(min(amount, u.max_hp - u.hp) * 1.1 for u in units)
    if kind is Kind.SHIELD:
        return sum(amount * SHIELD_WORTH for _ in units)
    if kind is Kind.COVER:
        return 4.0 * amount
    if kind is Kind.SPD:
        return sum(abs(amount) * 0.6 for _ in units)
    if kind is Kind.ENERGY:
        return ENERGY_WORTH * amount
    if kind is Kind.ENERGY_STEAL:
        return (ENERGY_WORTH + 1) * min(amount, theirs.energy)
    summon = roster.summons[effect.unit]
    act = roster.cards[summon.action]
    hit = sum(e.amount for e in act.effects if e.kind is Kind.DAMAGE)
    return summon.hp * 0.3 + hit * SUMMON_TURNS


def score(battle: Battle, player: int) -> float:
    """How good ``battle`` is for ``player``: won or lost, then characters, HP and Energy."""
    if battle.outcome is not None:
        return 10_000.0 if battle.outcome.winner == player else -10_000.0
    return _side(battle.teams[player]) - _side(battle.teams[1 - player])


def _side(team: Team) -> float:
    value = team.energy * 2.0 + len(team.specials) * 8.0
    for u in team.units:
        if u.summon:
            value += u.hp * 0.4
        elif u.square is not None:
            value += u.hp + 25.0 - 2.0 * sum(b.damage * b.turns for b in u.burns)
    return value
