"""Turn resolution (BATTLE.md 4), in the rulebook's order: pay, act by group and SPD,
summons act, turn end, next turn's start. :func:`resolve_turn` is the whole of it.

Decisions where BATTLE.md is silent (more in ``turns.py``, ``targets.py``, ``state.py``):

- The order of a turn is fixed when its actions begin, from each character's SPD then.
- A card leaves the hand (a Special: for good) when paid, so CT starts at once.
- Summons act after every character, in the battle's placement order (both teams
  counted: ``Unit.placed``); summons appearing at one turn start are placed team 0's
  first. A summon placed this turn acts this turn. A summon aims by a fixed
  rule: the enemy unit with the least HP (then square order), the line with the most
  enemy units, or the ally with the least HP share.
- A single-target card aimed at an enemy goes to that team's first Cover unit (placement
  order) when the chosen unit is another one; any effects of the card follow it.
- Damage to HP counts towards the user's ``damage_dealt`` (Specials' unlock); burn does
  not. A shield absorbs Burn at the turn end as it absorbs a hit (``turns.py``).
- ``energy +N`` and ``energy steal N`` stop at 12: what would go beyond is lost (a steal
  still takes it from the opponent). A steal takes at most what the opponent holds.
"""

from __future__ import annotations

from services.battle.rules.content import GROUP_RANK, Card, Kind, Range, Roster
from services.battle.rules.log import Change, Effect, Entry, Fizzle, Step, TurnOutcome
from services.battle.rules.plans import Action, Plan, PlanError, check_plans
from services.battle.rules.state import (
    LAST_TURN,
    MAX_ENERGY,
    Battle,
    Outcome,
    Reason,
    Square,
    effective_spd,
)
from services.battle.rules.targets import (
    NONE,
    Target,
    choices,
    is_legal,
    reach,
    retarget,
)
from services.battle.rules.turns import decide, defeat, end_turn, place_summon, start_turn
from services.battle.rules.work import Work, WTeam, WUnit

_DAMAGE, _HEAL, _SHIELD, _BURN, _COVER = Kind.DAMAGE, Kind.HEAL, Kind.SHIELD, Kind.BURN, Kind.COVER
_SPD, _ENERGY, _STEAL, _SUMMON = Kind.SPD, Kind.ENERGY, Kind.ENERGY_STEAL, Kind.SUMMON
_SELF, _SINGLE, _CROSS = Range.SELF, Range.SINGLE, Range.CROSS
_C_DAMAGE, _C_ABSORBED, _C_DEFEATED = Change.DAMAGE, Change.ABSORBED, Change.DEFEATED
_C_HEAL, _C_SHIELD, _C_BURN, _C_COVER, _C_SPD = (
    Change.HEAL,
    Change.SHIELD,
    Change.BURN,
    Change.COVER,
    Change.SPD,
)

Ordered = list[tuple[int, str, list[Action]]]
"""(team, character's unit id, its actions in the order set), in the order they act."""


def resolve_turn(
    roster: Roster, battle: Battle, plans: tuple[Plan, Plan], first: int
) -> TurnOutcome:
    """Resolve one turn from both committed plans; ``first`` committed first. Raises
    :class:`~services.battle.rules.plans.PlanError` (changing nothing) for a bad plan."""
    if first not in (0, 1):
        raise PlanError(f"first must be the player who committed first, 0 or 1, not {first}")
    check_plans(roster, battle, plans)
    work, log = Work(battle, roster), list[Entry]()
    for team in (0, 1):
        _pay(work.teams[team], roster, plans[team])
    for team, uid, actions in action_order(roster, battle, plans, first):
        for action in actions:
            _play(work, roster, team, uid, action, log)
            if work.outcome is not None:
                return TurnOutcome(work.freeze(), tuple(log), first)
    _summons_act(work, roster, first, log)
    if work.outcome is None:
        end_turn(work, first, log)
    if work.outcome is None:
        if work.turn >= LAST_TURN:
            work.outcome = decide(work, first)
        else:
            start_turn(work, log)
    return TurnOutcome(work.freeze(), tuple(log), first)


def action_order(roster: Roster, battle: Battle, plans: tuple[Plan, Plan], first: int) -> Ordered:
    """Characters in acting order: group of their first set card (swift, normal, slow),
    then SPD higher first, then the first committer's, then placement order."""
    keyed = []
    cards = roster.cards
    for team in (0, 1):
        mine: dict[str, list[Action]] = {}
        for action in plans[team]:
            if action.character in mine:
                mine[action.character].append(action)
            else:
                mine[action.character] = [action]
        late = team != first
        for unit in battle.teams[team].units:
            actions = mine.get(unit.ref)
            if actions is not None and not unit.summon:
                group = GROUP_RANK[cards[actions[0].card].group]
                keyed.append(
                    ((group, -effective_spd(unit), late, unit.order), team, unit.uid, actions)
                )
    keyed.sort()  # the keys are unique (team and placement order), so only they are compared
    return [(team, uid, actions) for _, team, uid, actions in keyed]


def _pay(team: WTeam, roster: Roster, plan: Plan) -> None:
    """Both pay Energy for every set card; the cards leave the hand and start their CT."""
    for action in plan:
        card = roster.cards[action.card]
        team.energy -= card.cost
        if card.unlock is not None:
            team.specials.remove(card.id)
            team.used_specials.append(card.id)
        else:
            team.hand.remove(card.id)
            if card.ct:
                team.cooldowns[card.id] = card.ct + 1


def _play(
    work: Work, roster: Roster, team: int, uid: str, action: Action, log: list[Entry]
) -> None:
    user = work.unit(team, uid)
    card = roster.cards[action.card]
    if user is None or user.square is None:
        log.append(
            Entry(Step.CARD, team, uid, card.id, action.target, fizzled=Fizzle.USER_DEFEATED)
        )
        return
    _use(work, card, team, user, action.target, Step.CARD, log)


def _summons_act(work: Work, roster: Roster, first: int, log: list[Entry]) -> None:
    """BATTLE.md 4.4: summoned units act in placement order, both teams' counted."""
    summons = [u for t in (first, 1 - first) for u in work.teams[t].units if u.summon]
    if not summons:
        return
    summons.sort(key=lambda u: u.placed)  # stable: the first committer's first on a tie
    for unit in summons:
        if unit.square is None:
            continue
        card = roster.cards[roster.summons[unit.ref].action]
        _use(work, card, unit.team, unit, _aim(work, card, unit.team), Step.SUMMON, log)
        if work.outcome is not None:
            return


def _aim(work: Work, card: Card, team: int) -> Target:
    """A summon's target, by its fixed rule (module docstring)."""
    mine, theirs = work.teams[team], work.teams[1 - team]
    enemy, own = theirs.occupied, mine.occupied
    legal = choices(card.range, card.ignore_formation, False, enemy, own)
    if card.range in (Range.SINGLE, Range.CROSS):
        return min(legal, key=lambda t: (_hp(theirs, t), t), default=NONE)
    if card.range is Range.ROW or card.range is Range.COLUMN:
        return max(
            legal,
            key=lambda t: (len(reach(card.range, t, enemy, own)[1]), -(t.row or 0) - (t.col or 0)),
            default=NONE,
        )
    if card.range is Range.ALLY:
        return min(legal, key=lambda t: (_share(mine, t), t), default=NONE)
    return NONE


def _hp(team: WTeam, target: Target) -> int:
    unit = team.at(target.square) if target.square else None
    return unit.hp if unit else 0


def _share(team: WTeam, target: Target) -> float:
    unit = team.at(target.square) if target.square else None
    return unit.hp / unit.max_hp if unit else 1.0


def _use(
    work: Work, card: Card, team: int, user: WUnit, chosen: Target, step: Step, log: list[Entry]
) -> None:
    """Resolve one card of ``user``: its targets now (retargeted, covered), its effects."""
    mine, theirs = work.teams[team], work.teams[1 - team]
    note = ""
    rng = card.range
    square = (chosen.row, chosen.col)
    if rng is _SELF:
        units = [user]
    elif rng is _SINGLE and square in theirs.occupied:
        # the commonest card, aimed at a unit still there: no retarget, one square
        aimed_unit = theirs.at(square)
        assert aimed_unit is not None
        units = [aimed_unit]
    else:
        aimed = _aimed(card, chosen, theirs.occupied, mine.occupied)
        if aimed is None:
            log.append(Entry(step, team, user.uid, card.id, chosen, fizzled=Fizzle.NO_TARGET))
            return
        if aimed is not chosen:
            note = "retargeted: the chosen target was gone"
        on_enemy, squares = reach(rng, aimed, theirs.occupied, mine.occupied)
        field = theirs if on_enemy else mine
        units = [u for s in squares if (u := field.at(s)) is not None]
    if rng is _SINGLE:
        cover = _cover(theirs, units[0])
        if cover is not None:
            units, note = [cover], f"covered by {cover.uid}"
    effects: list[Effect] = []
    for effect in card.effects:
        kind = effect.kind
        if kind is _ENERGY:
            gain = min(effect.amount, MAX_ENERGY - mine.energy)
            mine.energy += gain
            effects.append(Effect(f"team {team}", Change.ENERGY, gain))
        elif kind is _STEAL:
            took = min(effect.amount, theirs.energy)
            theirs.energy -= took
            mine.energy = min(MAX_ENERGY, mine.energy + took)
            effects.append(Effect(f"team {1 - team}", Change.ENERGY_STEAL, took))
        elif kind is _SUMMON:
            effects.append(_summon(work, mine, effect.unit, chosen.square, user.uid))
        else:
            for unit in units:
                if unit.square is not None:
                    _affect(work, user, unit, kind, effect.amount, effect.turns, effects)
    work.last_actor = team
    log.append(
        Entry(
            step,
            team,
            user.uid,
            card.id,
            chosen,
            tuple([u.uid for u in units]),
            tuple(effects),
            None,
            note,
        )
    )
    if work.defeats:  # nobody falls without a defeat: skip the count until one
        _check_wipeout(work, team)


def _aimed(card: Card, chosen: Target, enemy: set[Square], own: set[Square]) -> Target | None:
    """The chosen target if still there, else the nearest legal one (None: none left).

    An enemy unit still on its chosen square is kept even if a summon has appeared in
    front of it since the plans were set: formation limits what a card may choose
    (BATTLE.md 2), and only "a target that is gone" is replaced (BATTLE.md 4.3)."""
    if (card.range is _SINGLE or card.range is _CROSS) and chosen.square in enemy:
        return chosen
    if is_legal(card.range, card.ignore_formation, False, chosen, enemy, own):
        return chosen
    return retarget(chosen, choices(card.range, card.ignore_formation, False, enemy, own))


def _cover(team: WTeam, aimed: WUnit) -> WUnit | None:
    for unit in team.units:  # kept in placement order
        if unit.cover and unit.square is not None:
            return None if unit is aimed else unit
    return None


def _affect(
    work: Work, user: WUnit, unit: WUnit, kind: Kind, amount: int, turns: int, out: list[Effect]
) -> None:
    if kind is _DAMAGE:
        absorbed = min(unit.shield, amount)
        unit.shield -= absorbed
        dealt = min(unit.hp, amount - absorbed)
        unit.hp -= dealt
        user.dealt += dealt
        if absorbed:
            out.append(Effect(unit.uid, _C_ABSORBED, absorbed))
        out.append(Effect(unit.uid, _C_DAMAGE, dealt))
        if unit.hp == 0:
            defeat(work, unit)
            out.append(Effect(unit.uid, _C_DEFEATED))
    elif kind is _HEAL:
        healed = min(amount, unit.max_hp - unit.hp)
        unit.hp += healed
        out.append(Effect(unit.uid, _C_HEAL, healed))
    elif kind is _SHIELD:
        unit.shield += amount
        out.append(Effect(unit.uid, _C_SHIELD, amount))
    elif kind is _BURN:
        unit.burns.append([amount, turns])
        out.append(Effect(unit.uid, _C_BURN, amount))
    elif kind is _COVER:
        unit.cover = max(unit.cover, amount)
        out.append(Effect(unit.uid, _C_COVER, amount))
    elif kind is _SPD:
        unit.spd_changes.append([amount, turns + 1])
        out.append(Effect(unit.uid, _C_SPD, amount))


def _summon(work: Work, team: WTeam, summon: str, square: Square | None, by: str) -> Effect:
    """Summoning onto a free square places the unit now; onto an occupied one, reserves."""
    if square is None:
        raise PlanError(f"a summon needs its square (card of {by})")
    if team.at(square) is None:
        unit = place_summon(work, team, summon, square)
        return Effect(unit.uid, Change.SUMMON, 1)
    team.reserve(summon, square, by)
    return Effect(f"{team.index}.{summon}@{square[0]},{square[1]}", Change.RESERVED, 1)


def _check_wipeout(work: Work, acting: int) -> None:
    """BATTLE.md 5: a team without characters loses at once; both at once: the actor wins."""
    out = [work.teams[t].characters_alive() == 0 for t in (0, 1)]
    if out[0] and out[1]:
        work.outcome = Outcome(acting, Reason.WIPEOUT)
    elif out[0] or out[1]:
        work.outcome = Outcome(1 if out[0] else 0, Reason.WIPEOUT)
