"""A turn's start and end (BATTLE.md 4.1 and 4.5), defeat, and the decision after turn 10
(BATTLE.md 5), on a turn's working copy.

Decisions where BATTLE.md is silent:

- A shield lasts until its turn ends; ``cover T`` covers this turn and the next T - 1.
- Burn T deals its damage at the end of this turn and the next T - 1 ends. A shield
  still up then absorbs it as it absorbs a hit (BATTLE.md 1: a shield "absorbs damage
  this turn"; Burn is "damage at turn end"), and shields end after the Burn.
- Specials unlock on their owner's condition: ``hp_below P`` (HP under P% of max, alive),
  ``ally_defeated`` (a character of the team is defeated), ``damage_dealt_at_least N``
  (HP damage dealt by the owner's own cards), ``turn_at_least N``. A Special unlocks
  once; a defeated character's Special leaves the hand.
- If burn wipes out both teams at one turn end, the decision of turn 10 settles it.
- The decision's last tie-break is the team whose action (a card or a summon's action,
  fizzled ones excepted) resolved last in the battle: in turn 10 when anything resolved
  then; with no action ever, the player who committed first in the last turn.
- There are no start-of-turn effects in the current vocabulary.
"""

from __future__ import annotations

from services.battle.rules.content import Unlock
from services.battle.rules.log import Change, Effect, Entry, Step
from services.battle.rules.state import (
    ENERGY_BY_TURN,
    MAX_ENERGY,
    MAX_SPECIALS,
    Outcome,
    Reason,
    Square,
    Unit,
    hand_limit,
)
from services.battle.rules.work import Work, WTeam, WUnit


def start_turn(work: Work, log: list[Entry]) -> None:
    """The next turn's start: draw to the hand limit, recover Energy, place reservations."""
    work.turn += 1
    for team in work.teams:
        draw(team)
        team.energy = min(MAX_ENERGY, team.energy + ENERGY_BY_TURN[work.turn - 1])
        waiting = []
        for reserved in team.reservations:
            if team.at(reserved.square) is None:
                unit = place_summon(work, team, reserved.summon, reserved.square)
                appeared = (Effect(unit.uid, Change.SUMMON, 1),)
                note = f"reserved by {reserved.by}"
                log.append(Entry(Step.APPEAR, team.index, unit.uid, effects=appeared, note=note))
            else:
                waiting.append(reserved)
        team.reservations = waiting


def draw(team: WTeam) -> None:
    """Draw in deck order from the cursor, round and round, skipping cards in hand."""
    deck, hand = team.deck, team.hand
    limit = hand_limit(len(deck))
    while len(hand) < limit:
        card = deck[team.cursor]
        team.cursor = (team.cursor + 1) % len(deck)
        if card not in hand:
            hand.append(card)


def place_summon(work: Work, team: WTeam, summon: str, square: Square) -> WUnit:
    """A summoned unit appears on ``square`` (free), last in placement order: its team's
    (``order``) and the battle's, both teams counted (``placed``: when summons act)."""
    hp = work.roster.summons[summon].hp
    uid = f"{team.index}.s{team.next_order}"
    placed = 1 + max(u.placed for t in work.teams for u in t.units)
    unit = WUnit(
        Unit(uid, summon, True, hp, hp, 0, square, team.next_order, placed=placed), team.index
    )
    team.next_order += 1
    team.units.append(unit)
    team.occupied.add(square)
    return unit


def defeat(work: Work, unit: WUnit) -> None:
    """A unit at 0 HP leaves the field; a character's cards leave the deck and the hand,
    its Special the hand."""
    team = work.teams[unit.team]
    work.defeats += 1
    if unit.square is not None:
        team.occupied.discard(unit.square)
    unit.hp, unit.square, unit.shield, unit.cover = 0, None, 0, 0
    unit.burns, unit.spd_changes = [], []
    if unit.summon:
        team.units.remove(unit)
        return
    character = work.roster.characters[unit.ref]
    gone = set(character.cards)
    kept_before = sum(1 for c in team.deck[: team.cursor] if c not in gone)
    team.deck = tuple([c for c in team.deck if c not in gone])
    team.cursor = kept_before if kept_before < len(team.deck) else 0
    team.hand = [c for c in team.hand if c not in gone]
    for card in gone:
        team.cooldowns.pop(card, None)
    if character.special in team.specials:
        team.specials.remove(character.special)


def end_turn(work: Work, first: int, log: list[Entry]) -> None:
    """Burn, the winner check, the Special unlock check, then every countdown."""
    _burn(work, first, log)
    if work.defeats:  # without a defeat this turn nobody can have been wiped out
        out = [t.characters_alive() == 0 for t in work.teams]
        if out[0] and out[1]:
            work.outcome = decide(work, first)
            return
        if out[0] or out[1]:
            work.outcome = Outcome(1 if out[0] else 0, Reason.WIPEOUT)
            return
    for team in work.teams:
        _unlock(work, team, log)
    for team in work.teams:
        _count_down(team)


def _burn(work: Work, first: int, log: list[Entry]) -> None:
    for index in (first, 1 - first):
        for unit in list(work.teams[index].units):
            if not unit.burns or unit.square is None:
                continue
            burned = sum(d for d, _ in unit.burns)
            absorbed = min(unit.shield, burned)
            unit.shield -= absorbed
            dealt = min(unit.hp, burned - absorbed)
            unit.hp -= dealt
            effects = [Effect(unit.uid, Change.ABSORBED, absorbed)] if absorbed else []
            effects.append(Effect(unit.uid, Change.DAMAGE, dealt))
            if unit.hp == 0:
                defeat(work, unit)
                effects.append(Effect(unit.uid, Change.DEFEATED))
            log.append(
                Entry(Step.BURN, index, unit.uid, targets=(unit.uid,), effects=tuple(effects))
            )


def _unlock(work: Work, team: WTeam, log: list[Entry]) -> None:
    fallen = any(u.square is None for u in team.units if not u.summon)
    for unit in team.units:
        if unit.summon or unit.square is None:
            continue
        special = work.roster.cards[work.roster.characters[unit.ref].special]
        if special.id in team.specials or special.id in team.used_specials:
            continue
        if len(team.specials) >= MAX_SPECIALS or not _met(
            special.unlock, special.unlock_value, unit, work.turn, fallen
        ):
            continue
        team.specials.append(special.id)
        log.append(Entry(Step.UNLOCK, team.index, unit.uid, special.id))


def _met(unlock: Unlock | None, value: int, unit: WUnit, turn: int, fallen: bool) -> bool:
    if unlock is Unlock.HP_BELOW:
        return unit.hp * 100 < value * unit.max_hp
    if unlock is Unlock.TURN_AT_LEAST:
        return turn >= value
    if unlock is Unlock.ALLY_DEFEATED:
        return fallen
    if unlock is Unlock.DAMAGE_DEALT_AT_LEAST:
        return unit.dealt >= value
    return False


def _count_down(team: WTeam) -> None:
    """Every effect's remaining turns go down by 1; CT counts down."""
    for unit in team.units:
        if unit.shield:
            unit.shield = 0
        if unit.cover:
            unit.cover -= 1
        if unit.burns:
            unit.burns = [[d, t - 1] for d, t in unit.burns if t > 1]
        if unit.spd_changes:
            unit.spd_changes = [[d, t - 1] for d, t in unit.spd_changes if t > 1]
    if team.cooldowns:
        team.cooldowns = {c: t - 1 for c, t in team.cooldowns.items() if t > 1}


def decide(work: Work, first: int) -> Outcome:
    """After turn 10: more surviving characters, more HP, the team that acted last."""
    a, b = work.teams
    for mine, theirs in (
        (a.characters_alive(), b.characters_alive()),
        (a.hp_total(), b.hp_total()),
    ):
        if mine != theirs:
            return Outcome(0 if mine > theirs else 1, Reason.DECISION)
    last = work.last_actor if work.last_actor is not None else first
    return Outcome(last, Reason.DECISION)
