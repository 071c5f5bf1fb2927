"""Properties of any battle, on the real roster: whatever the teams, draws and plans,
Energy stays in 0..12 and HP in 0..max, the action log follows BATTLE.md 4.3's order,
a recorded battle replays to the same state, and JSON round-trips."""

from __future__ import annotations

import json
from dataclasses import replace
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.battle.bots.arena import random_teams
from services.battle.bots.levels import GreedyBot, RandomBot, formation
from services.battle.rules import (
    Action,
    Battle,
    Plan,
    Step,
    TurnOutcome,
    legal_actions,
    load_roster,
    new_battle,
    resolve_turn,
    shuffled_decks,
    view_for,
)
from services.battle.rules.codec import (
    decode_battle,
    decode_plan,
    encode_battle,
    encode_outcome,
    encode_plan,
)
from services.battle.rules.consistency import check_battle
from services.battle.rules.content import GROUP_RANK
from services.battle.rules.replay import (
    BattleRecord,
    TurnRecord,
    decode_record,
    encode_record,
    replay,
)
from services.battle.rules.state import MAX_ENERGY, effective_spd, unit_id

ROSTER = load_roster()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def _expected_order(battle: Battle, plans: tuple[Plan, Plan], first: int) -> list[tuple[str, str]]:
    """BATTLE.md 4.3 read literally: groups swift, normal, slow by each character's first
    set card; higher SPD first; same team: placement order; across teams: first committer."""
    rows = []
    for team in (0, 1):
        by_character: dict[str, list[str]] = {}
        for action in plans[team]:
            by_character.setdefault(action.character, []).append(action.card)
        for character, cards in by_character.items():
            unit = next(u for u in battle.teams[team].units if u.uid == unit_id(team, character))
            group = GROUP_RANK[ROSTER.cards[cards[0]].group]
            rows.append(((group, -effective_spd(unit), team != first, unit.order), unit.uid, cards))
    rows.sort(key=lambda r: r[0])
    return [(uid, card) for _, uid, cards in rows for card in cards]


def _check_bounds(battle: Battle) -> None:
    for team in battle.teams:
        assert 0 <= team.energy <= MAX_ENERGY
        for unit in team.units:
            assert 0 <= unit.hp <= unit.max_hp
            assert (unit.hp > 0) == unit.alive
        assert len(team.hand) <= 5 and len(team.specials) <= 3
        assert set(team.hand) <= set(team.deck)


def _play(seed: int) -> tuple[BattleRecord, list[TurnOutcome], list[Battle]]:
    rng = Random(seed)
    teams = random_teams(ROSTER, rng)
    decks = shuffled_decks(ROSTER, teams, rng)
    formations = (formation(ROSTER, teams[0]), formation(ROSTER, teams[1]))
    battle = new_battle(ROSTER, teams, decks, formations)
    bots = (RandomBot() if rng.random() < 0.5 else GreedyBot(), RandomBot())
    turns, outcomes, before = [], [], []
    while battle.outcome is None:
        plans = (
            bots[0].choose(ROSTER, view_for(battle, 0), rng),
            bots[1].choose(ROSTER, view_for(battle, 1), rng),
        )
        first = rng.randrange(2)
        outcome = resolve_turn(ROSTER, battle, plans, first)
        turns.append(TurnRecord(plans, first))
        outcomes.append(outcome)
        before.append(battle)
        battle = outcome.battle
    return BattleRecord(ROSTER.version, teams, decks, formations, tuple(turns)), outcomes, before


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_energy_and_hp_stay_in_bounds_whatever_is_played(seed: int) -> None:
    _, outcomes, before = _play(seed)
    _check_bounds(before[0])
    for outcome in outcomes:
        _check_bounds(outcome.battle)
    assert outcomes[-1].battle.outcome is not None
    assert len(outcomes) <= 10


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_every_battle_play_reaches_passes_the_check_of_outside_input(seed: int) -> None:
    """``check_battle`` (what ``triad-battle resolve`` asks of a battle it is given)
    refuses nothing that play itself produces, over whole battles of bots."""
    _, outcomes, before = _play(seed)
    for battle in (*before, outcomes[-1].battle):
        check_battle(ROSTER, battle)


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_the_action_log_follows_the_rulebooks_order_for_any_plans(seed: int) -> None:
    record, outcomes, before = _play(seed)
    for turn, outcome, battle in zip(record.turns, outcomes, before, strict=True):
        logged = [(e.actor, e.card) for e in outcome.log if e.step is Step.CARD]
        expected = _expected_order(battle, turn.plans, turn.first)
        if outcome.battle.outcome is None or len(logged) == len(expected):
            assert logged == expected
        else:  # a wipeout ended the turn: the cards that did resolve came in order
            assert logged == expected[: len(logged)]


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_replaying_the_recorded_turns_gives_the_same_battle(seed: int) -> None:
    record, outcomes, _ = _play(seed)
    assert replay(ROSTER, record) == outcomes[-1].battle
    again = decode_record(json.loads(json.dumps(encode_record(record))))
    assert again == record
    assert replay(ROSTER, again) == outcomes[-1].battle
    # the outcomes as a service stores them (JSON): each stored battle, read back and
    # resolved with the recorded plans, gives the next stored battle
    stored = [json.loads(json.dumps(encode_outcome(o))) for o in outcomes]
    battle = replay(ROSTER, replace(record, turns=()))
    for turn, saved in zip(record.turns, stored, strict=True):
        battle = resolve_turn(ROSTER, battle, turn.plans, turn.first).battle
        assert battle == decode_battle(saved["battle"], ROSTER)
        battle = decode_battle(saved["battle"], ROSTER)


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_battles_plans_and_outcomes_round_trip_through_json(seed: int) -> None:
    record, outcomes, before = _play(seed)
    for battle in (*before, *(o.battle for o in outcomes)):
        assert decode_battle(json.loads(json.dumps(encode_battle(battle))), ROSTER) == battle
        for player in (0, 1):
            view = view_for(battle, player).battle
            assert decode_battle(json.loads(json.dumps(encode_battle(view))), ROSTER) == view
    for turn in record.turns:
        for plan in turn.plans:
            assert decode_plan(json.loads(json.dumps(encode_plan(plan)))) == plan
    for outcome in outcomes:
        json.dumps(encode_outcome(outcome))


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_a_view_never_holds_the_opponents_hand_or_deck_order(seed: int) -> None:
    _, _, before = _play(seed)
    for battle in before:
        for player in (0, 1):
            view = view_for(battle, player)
            theirs = battle.teams[1 - player]
            assert view.opponent.hand == () and view.opponent.hand_size == len(theirs.hand)
            assert view.opponent.deck == tuple(sorted(theirs.deck))
            assert view.me == battle.teams[player]
            assert view.battle.teams[1 - player].units == theirs.units


def _drawn_plan(data: st.DataObject, battle: Battle, player: int) -> Plan:
    """Any legal plan: a drawn ordered subset of the legal actions, within Energy."""
    actions = legal_actions(ROSTER, battle, player)
    if not actions:
        return ()
    drawn = data.draw(st.lists(st.sampled_from(actions), unique_by=lambda a: a.card, max_size=7))
    plan: list[Action] = []
    energy = battle.teams[player].energy
    for action in drawn:
        cost = ROSTER.cards[action.card].cost
        if cost <= energy:
            plan.append(action)
            energy -= cost
    return tuple(plan)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_for_any_drawn_plans_the_order_and_bounds_hold_turn_after_turn(data: st.DataObject) -> None:
    rng = Random(data.draw(SEEDS, label="seed"))
    teams = random_teams(ROSTER, rng)
    forms = (formation(ROSTER, teams[0]), formation(ROSTER, teams[1]))
    battle = new_battle(ROSTER, teams, shuffled_decks(ROSTER, teams, rng), forms)
    while battle.outcome is None:
        plans = (_drawn_plan(data, battle, 0), _drawn_plan(data, battle, 1))
        first = data.draw(st.integers(0, 1), label="first")
        outcome = resolve_turn(ROSTER, battle, plans, first)
        logged = [(e.actor, e.card) for e in outcome.log if e.step is Step.CARD]
        expected = _expected_order(battle, plans, first)
        assert logged == expected[: len(logged)]
        assert outcome.battle.outcome is not None or logged == expected
        _check_bounds(outcome.battle)
        battle = outcome.battle
