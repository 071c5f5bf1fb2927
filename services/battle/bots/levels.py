"""The CPU players of Skirmish, weakest first: ``random`` (a random legal plan),
``greedy`` (the actions of most expected value, while Energy lasts) and ``search`` (a few
candidate plans, each played out against opponent plans made for hands sampled from
what the opponent could hold; the best average score wins).

Every level decides from a :class:`~services.battle.rules.views.BattleView` only, and
draws its randomness from the ``Random`` it is given, so a recorded seed replays it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from random import Random
from typing import Protocol

from services.battle.bots.value import action_value, score
from services.battle.rules.content import Roster
from services.battle.rules.plans import Action, Plan, legal_actions
from services.battle.rules.resolve import resolve_turn
from services.battle.rules.state import Battle, Square
from services.battle.rules.views import BattleView


class Level(StrEnum):
    RANDOM = "random"
    GREEDY = "greedy"
    SEARCH = "search"


class Bot(Protocol):
    def choose(self, roster: Roster, view: BattleView, rng: Random) -> Plan: ...


def formation(roster: Roster, members: tuple[str, ...]) -> tuple[Square, ...]:
    """Front-preferring characters in the front column; back-preferring ones behind a
    front one where there is one (formation hides them from single-target cards)."""
    fronts = [m for m in members if roster.characters[m].prefers_front] or [members[0]]
    squares: dict[str, Square] = {m: (row, 0) for row, m in enumerate(fronts)}
    free_rows = [r for r in range(3) if r not in [s[0] for s in squares.values()]]
    behind = 0
    for m in members:
        if m in squares:
            continue
        if behind < len(fronts):
            squares[m] = (behind, 1)
            behind += 1
        else:
            squares[m] = (free_rows.pop(0), 0)
    return tuple(squares[m] for m in members)


class RandomBot:
    """Any legal plan: each legal action, in a random order, joins with chance 1/2."""

    def choose(self, roster: Roster, view: BattleView, rng: Random) -> Plan:
        actions = legal_actions(roster, view.battle, view.player)
        rng.shuffle(actions)
        return _fill(roster, actions, view.me.energy, lambda a: rng.random() < 0.5)


class GreedyBot:
    """The actions of most expected value first, one target per card, while Energy lasts."""

    def choose(self, roster: Roster, view: BattleView, rng: Random) -> Plan:
        return greedy_plan(roster, view.battle, view.player)


def greedy_plan(
    roster: Roster, battle: Battle, player: int, skip: frozenset[str] = frozenset()
) -> Plan:
    ranked = _ranked(roster, battle, player, skip)
    return _fill(roster, [a for _, a in ranked], battle.teams[player].energy, lambda a: True)


def _ranked(
    roster: Roster, battle: Battle, player: int, skip: frozenset[str]
) -> list[tuple[float, Action]]:
    best: dict[str, tuple[float, Action]] = {}
    for action in legal_actions(roster, battle, player):
        if action.card in skip:
            continue
        value = action_value(roster, battle, player, action)
        if value > 0 and (action.card not in best or value > best[action.card][0]):
            best[action.card] = (value, action)
    return sorted(best.values(), key=lambda va: (-va[0], va[1].card))


def _fill(
    roster: Roster, actions: list[Action], energy: int, take: Callable[[Action], bool]
) -> Plan:
    plan: list[Action] = []
    used: set[str] = set()
    for action in actions:
        cost = roster.cards[action.card].cost
        if action.card in used or cost > energy or not take(action):
            continue
        plan.append(action)
        used.add(action.card)
        energy -= cost
    return tuple(plan)


class SearchBot:
    """Candidate plans (greedy, greedy without each of its cards, value per Energy, a few
    random ones), each resolved against the greedy reply to ``samples`` opponent hands
    drawn from the cards the opponent could hold; the best mean score wins."""

    def __init__(self, samples: int = 4, randoms: int = 2) -> None:
        self.samples, self.randoms = samples, randoms

    def choose(self, roster: Roster, view: BattleView, rng: Random) -> Plan:
        battle, me = view.battle, view.player
        candidates = self._candidates(roster, battle, me, rng)
        if len(candidates) == 1:
            return candidates[0]
        worlds = [self._world(roster, view, rng) for _ in range(self.samples)]
        replies = [greedy_plan(roster, w, 1 - me) for w in worlds]
        firsts = [rng.randrange(2) for _ in worlds]
        best, best_score = candidates[0], float("-inf")
        for plan in candidates:
            total = 0.0
            for world, reply, first in zip(worlds, replies, firsts, strict=True):
                plans = (plan, reply) if me == 0 else (reply, plan)
                total += score(resolve_turn(roster, world, plans, first).battle, me)
            if total > best_score:
                best, best_score = plan, total
        return best

    def _candidates(self, roster: Roster, battle: Battle, me: int, rng: Random) -> list[Plan]:
        greedy = greedy_plan(roster, battle, me)
        found = {greedy: None}
        for action in greedy:
            found.setdefault(greedy_plan(roster, battle, me, frozenset({action.card})), None)
        ranked = _ranked(roster, battle, me, frozenset())
        energy = battle.teams[me].energy
        per_energy = sorted(ranked, key=lambda va: -va[0] / (roster.cards[va[1].card].cost + 1))
        found.setdefault(_fill(roster, [a for _, a in per_energy], energy, lambda a: True), None)
        actions = legal_actions(roster, battle, me)
        for _ in range(self.randoms):
            rng.shuffle(actions)
            found.setdefault(_fill(roster, actions, energy, lambda a: rng.random() < 0.6), None)
        return list(found)

    def _world(self, roster: Roster, view: BattleView, rng: Random) -> Battle:
        """The battle with the opponent's hidden hand sampled from their deck's cards."""
        them = view.opponent
        hand = tuple(rng.sample(them.deck, min(them.hand_size, len(them.deck))))
        teams = list(view.battle.teams)
        teams[1 - view.player] = replace(them, hand=hand, hand_size=-1)
        return replace(view.battle, teams=(teams[0], teams[1]))


BOTS: dict[Level, type[RandomBot] | type[GreedyBot] | type[SearchBot]] = {
    Level.RANDOM: RandomBot,
    Level.GREEDY: GreedyBot,
    Level.SEARCH: SearchBot,
}


def bot(level: Level | str) -> Bot:
    """A player of ``level`` (``random``, ``greedy`` or ``search``)."""
    return BOTS[Level(level)]()
