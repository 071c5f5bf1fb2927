"""The Skirmish benchmark (issue 23): turn resolution speed, the roster's balance and the
CPU players' strength.

- ``turn_resolve``: turns resolved per second on one core, a typical turn: six living
  characters and eight set cards in all (four a side), from positions of real battles
  (target >= 10,000 turns/s).
- Balance: every character's win rate in random teams (six different characters per
  battle) over 5,000 battles between two ``greedy`` players, the seats alternating;
  none may fall outside 40-60%.
- Strength: each level against the one below over 500 battles (seats alternating, the
  same random teams for both seatings' seeds): each must score >= 65%.

The battles are not timings: they run in worker processes on every core this process
may use. ``python -m bench.battle --battles N`` runs it alone with N battles per figure
(``--quick``: a smoke run).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from random import Random
from typing import Any

from bench.report import Options, Report, Target, Workload, baseline_workload, measure
from services.battle.bots.arena import play, random_teams
from services.battle.bots.levels import Level, RandomBot, bot, formation
from services.battle.rules import (
    Action,
    Battle,
    Plan,
    legal_actions,
    load_roster,
    new_battle,
    resolve_turn,
    shuffled_decks,
    view_for,
)
from services.battle.rules.content import Roster

NAME = "battle"
TURN_TARGET = 10_000
"""Turns resolved per second issue 23 asks, a typical turn, one core."""
CASES, QUICK_CASES = 512, 32
BALANCE_BATTLES, QUICK_BALANCE = 5_000, 40
STRENGTH_BATTLES, QUICK_STRENGTH = 500, 8
BALANCE_BAND = (0.40, 0.60)
STRENGTH_TARGET = 0.65
PAIRS = ((Level.GREEDY, Level.RANDOM), (Level.SEARCH, Level.GREEDY))
"""(level, the level below it)."""
CARDS_PER_SIDE = 4
BATTLES_ENV = "TRIAD_BENCH_BATTLES"
"""Battles per balance and strength figure (``--battles``; unset: the defaults above)."""


def typical_turns(
    roster: Roster, count: int, seed: int
) -> list[tuple[Battle, tuple[Plan, Plan], int]]:
    """Positions with six living characters and plans of four cards a side: battles a few
    random turns in, Energy topped up so four cards are affordable."""
    rng, cases = Random(seed), list[tuple[Battle, tuple[Plan, Plan], int]]()
    while len(cases) < count:
        teams = random_teams(roster, rng)
        forms = (formation(roster, teams[0]), formation(roster, teams[1]))
        battle = new_battle(roster, teams, shuffled_decks(roster, teams, rng), forms)
        for _ in range(rng.randrange(4)):
            plans = tuple(RandomBot().choose(roster, view_for(battle, p), rng) for p in (0, 1))
            battle = resolve_turn(roster, battle, (plans[0], plans[1]), rng.randrange(2)).battle
            if battle.outcome is not None:
                break
        if battle.outcome is not None or any(u.hp == 0 for t in battle.teams for u in t.units):
            continue
        battle = _topped_up(battle)
        plans = tuple(_four(roster, battle, p, rng) for p in (0, 1))
        if all(len(p) == CARDS_PER_SIDE for p in plans):
            cases.append((battle, (plans[0], plans[1]), rng.randrange(2)))
    return cases


def _topped_up(battle: Battle) -> Battle:
    a, b = (replace(t, energy=12) for t in battle.teams)
    return replace(battle, teams=(a, b))


def _four(roster: Roster, battle: Battle, player: int, rng: Random) -> Plan:
    actions = legal_actions(roster, battle, player)
    rng.shuffle(actions)
    plan, used, energy = list[Action](), set[str](), battle.teams[player].energy
    for action in actions:
        cost = roster.cards[action.card].cost
        if action.card not in used and cost <= energy and len(plan) < CARDS_PER_SIDE:
            plan.append(action)
            used.add(action.card)
            energy -= cost
    return tuple(plan)


def turn_workload(roster: Roster, cases: list[tuple[Battle, tuple[Plan, Plan], int]]) -> Workload:
    def run(loops: int) -> int:
        for _ in range(loops):
            for battle, plans, first in cases:
                resolve_turn(roster, battle, plans, first)
        return loops * len(cases)

    return Workload(
        "turn_resolve",
        "turns/s",
        "a typical turn resolved (plans checked, six characters, four cards a side, the "
        "summons, the turn end and the next start), from positions of random battles",
        run,
    )


def _battle(job: tuple[str, str, int]) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """One CPU battle (in a worker): the teams and which seat won."""
    first, second, seed = job
    roster = load_roster()
    teams = random_teams(roster, Random(seed))
    played = play(roster, teams, (bot(first), bot(second)), seed)
    assert played.battle.outcome is not None
    return teams[0], teams[1], played.battle.outcome.winner


def _run_jobs(
    jobs: list[tuple[str, str, int]], workers: int
) -> list[tuple[tuple[str, ...], tuple[str, ...], int]]:
    if workers <= 1:
        return [_battle(j) for j in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_battle, jobs, chunksize=8))


def balance(battles: int, seed: int, workers: int) -> dict[str, Any]:
    jobs = [(Level.GREEDY.value, Level.GREEDY.value, seed + i) for i in range(battles)]
    games, won = Counter[str](), Counter[str]()
    for team0, team1, winner in _run_jobs(jobs, workers):
        for side, members in enumerate((team0, team1)):
            for m in members:
                games[m] += 1
                won[m] += winner == side
    rates = {m: round(won[m] / games[m], 4) for m in sorted(games)}
    low, high = BALANCE_BAND
    return {
        "battles": battles,
        "players": "greedy vs greedy, random teams of three (six different characters)",
        "win_rate": rates,
        "games": dict(sorted(games.items())),
        "min": min(rates.values()),
        "max": max(rates.values()),
        "band": [low, high],
        "met": all(low <= r <= high for r in rates.values()),
    }


def strength(battles: int, seed: int, workers: int) -> dict[str, Any]:
    out = {}
    for upper, lower in PAIRS:
        jobs = [
            (upper.value, lower.value, seed + i)
            if i % 2 == 0
            else (lower.value, upper.value, seed + i)
            for i in range(battles)
        ]
        results = _run_jobs(jobs, workers)
        wins = sum(1 for i, (_, _, w) in enumerate(results) if (w == 0) == (i % 2 == 0))
        out[f"{upper.value}_vs_{lower.value}"] = {
            "battles": battles,
            "score": round(wins / battles, 4),
            "target": STRENGTH_TARGET,
            "met": wins / battles >= STRENGTH_TARGET,
        }
    return out


def _workers(options: Options) -> int:
    cpus = list(options.affinity.get("allowed_before") or [])
    return max(1, len(cpus) or (os.cpu_count() or 1))


def run(options: Options) -> Report:
    roster = load_roster()
    cases = typical_turns(roster, QUICK_CASES if options.quick else CASES, options.seed)
    measurements = measure(
        [baseline_workload(), turn_workload(roster, cases)], options.repeats, options.seconds
    )
    battles = int(os.environ.get(BATTLES_ENV, "0")) or None
    balance_n = battles or (QUICK_BALANCE if options.quick else BALANCE_BATTLES)
    strength_n = battles or (QUICK_STRENGTH if options.quick else STRENGTH_BATTLES)
    workers = _workers(options)
    print(
        f"  balance: {balance_n} greedy battles; strength: {strength_n} per pair "
        f"({workers} workers)"
    )
    return Report(
        benchmark=NAME,
        parameters={
            "content_version": roster.version,
            "turn_cases": len(cases),
            "cards_per_turn": 2 * CARDS_PER_SIDE,
            "balance_battles": balance_n,
            "strength_battles": strength_n,
        },
        measurements=measurements,
        targets=[
            Target(
                "turn_resolve", TURN_TARGET, "turns/s", "issue 23: >= 10,000 turns/s on one core"
            )
        ],
        notes=[
            "turn_resolve: each case is a position of a random battle 0-3 turns in, all six "
            "characters alive, Energy set to 12 and four random legal cards a side.",
            "balance: every character's share of battles won by its team (band 40-60%).",
            "strength: the upper level's share of wins, seats alternating; search samples "
            "the opponent's hand from their deck's cards (it never sees it).",
        ],
        extra={
            "balance": balance(balance_n, options.seed, workers),
            "strength": strength(strength_n, options.seed, workers),
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench.battle [--battles N] [--quick]``: this benchmark alone."""
    from bench.__main__ import main as bench_main

    parser = argparse.ArgumentParser(prog="python -m bench.battle")
    parser.add_argument("--battles", type=int, help="battles per balance and strength figure")
    parser.add_argument("--quick", action="store_true")
    args, rest = parser.parse_known_args(argv)
    if args.battles is not None:
        os.environ[BATTLES_ENV] = str(args.battles)
    return bench_main(["battle", *(["--quick"] if args.quick else []), *rest])


if __name__ == "__main__":
    sys.exit(main())
