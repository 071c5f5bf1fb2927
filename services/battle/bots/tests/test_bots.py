"""The CPU players: legal plans from their own view only, and each level stronger than
the one below in a short match (the 500-battle figures are in ``make bench``)."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest

from services.battle.bots.arena import play, random_teams
from services.battle.bots.levels import (
    GreedyBot,
    Level,
    RandomBot,
    SearchBot,
    bot,
    formation,
    greedy_plan,
)
from services.battle.bots.value import action_value
from services.battle.rules import (
    Battle,
    BattleError,
    check_plan,
    load_roster,
    new_battle,
    resolve_turn,
    shuffled_decks,
    view_for,
)
from services.battle.rules.replay import replay
from services.battle.rules.state import Reservation
from services.battle.rules.targets import Target

ROSTER = load_roster()


def _battle(seed: int) -> Battle:
    rng = Random(seed)
    teams = random_teams(ROSTER, rng)
    forms = (formation(ROSTER, teams[0]), formation(ROSTER, teams[1]))
    return new_battle(ROSTER, teams, shuffled_decks(ROSTER, teams, rng), forms)


@pytest.mark.parametrize("level", list(Level))
def test_every_level_plays_legal_plans_to_the_end(level: Level) -> None:
    for seed in range(3):
        battle, rng = _battle(seed), Random(seed)
        while battle.outcome is None:
            plans = []
            for player in (0, 1):
                plan = bot(level).choose(ROSTER, view_for(battle, player), rng)
                check_plan(ROSTER, battle, player, plan)
                plans.append(plan)
            battle = resolve_turn(ROSTER, battle, (plans[0], plans[1]), rng.randrange(2)).battle


def test_the_search_bot_decides_the_same_whatever_the_opponent_holds() -> None:
    """It sees only its view: changing the opponent's hidden hand and deck order changes
    nothing it does (the same seed gives the same plan)."""
    battle = _battle(7)
    theirs = battle.teams[1]
    shuffled = replace(
        theirs, deck=tuple(reversed(theirs.deck)), hand=tuple(reversed(theirs.deck))[:5]
    )
    other = replace(battle, teams=(battle.teams[0], shuffled))
    for level in (RandomBot(), GreedyBot(), SearchBot()):
        a = level.choose(ROSTER, view_for(battle, 0), Random(1))
        b = level.choose(ROSTER, view_for(other, 0), Random(1))
        assert a == b


def test_formation_puts_back_row_characters_behind_front_ones() -> None:
    members = ("ember", "sable", "bastion")  # front, back, front
    squares = formation(ROSTER, members)
    assert squares[0] == (0, 0) and squares[2] == (1, 0) and squares[1] == (0, 1)
    assert formation(ROSTER, ("sable", "wisp", "moss"))[0] == (0, 0)  # nobody in front


def test_a_played_battle_replays_from_its_record() -> None:
    played = play(ROSTER, random_teams(ROSTER, Random(3)), (GreedyBot(), RandomBot()), 3)
    assert replay(ROSTER, played.record) == played.battle


def test_a_record_replays_only_with_the_content_it_recorded() -> None:
    played = play(ROSTER, random_teams(ROSTER, Random(3)), (GreedyBot(), RandomBot()), 3)
    other = replace(ROSTER, version="skirmish-other")
    with pytest.raises(BattleError, match=f"the record uses content {ROSTER.version!r}"):
        replay(other, played.record)


@pytest.mark.parametrize(
    ("upper", "lower", "battles"),
    [(Level.GREEDY, Level.RANDOM, 30), (Level.SEARCH, Level.GREEDY, 12)],
)
def test_each_level_beats_the_one_below_more_often_than_not(
    upper: Level, lower: Level, battles: int
) -> None:
    wins = 0
    for i in range(battles):
        seats = (bot(upper), bot(lower)) if i % 2 == 0 else (bot(lower), bot(upper))
        outcome = play(ROSTER, random_teams(ROSTER, Random(i)), seats, i).battle.outcome
        assert outcome is not None
        wins += (outcome.winner == 0) == (i % 2 == 0)
    assert wins / battles > 0.55


def test_the_cpu_summons_onto_a_free_square_not_an_occupied_or_reserved_one() -> None:
    """Found from outside: the CPU summoned onto its own occupied square 0 0 turn after
    turn, each a reservation waiting behind the last (BATTLE.md 2), its Energy wasted."""
    teams = (("moss", "ember", "bastion"), ("sable", "wisp", "hollis"))
    forms = (formation(ROSTER, teams[0]), formation(ROSTER, teams[1]))
    battle = new_battle(ROSTER, teams, shuffled_decks(ROSTER, teams, Random(1)), forms)
    mine = replace(battle.teams[0], hand=("moss.sprout",), energy=5)
    battle = replace(battle, teams=(mine, battle.teams[1]))
    occupied = {u.square for u in mine.units if u.square is not None}
    [summon] = greedy_plan(ROSTER, battle, 0)
    free = summon.target.square
    assert summon.card == "moss.sprout" and free is not None and free not in occupied, summon

    def worth(square: tuple[int, int], held: Battle = battle) -> float:
        aimed = replace(summon, target=Target(*square))
        return action_value(ROSTER, held, 0, aimed)

    taken = next(iter(occupied))
    assert 0 < worth(taken) < worth(free)  # it waits for the square
    waiting = Reservation("thornling", free, "moss")
    reserved = replace(battle, teams=(replace(mine, reservations=(waiting,)), battle.teams[1]))
    assert worth(free, reserved) == 0  # behind a reservation already there
