"""The views ``SeatViews`` keeps: within a turn it reuses what the commit did not change,
and every view equals the one built from scratch (``battle_view``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from random import Random

from services.battle import domain, handlers
from services.battle.bots.levels import GreedyBot
from services.battle.domain import BattleState
from services.battle.presenter import SeatViews, battle_view, card_text
from services.battle.rules import Entry, Step, rosters_of, view_for
from services.battle.rules.state import Burn, Reservation, SpdChange, Unit
from services.battle.tests.builders import ANN, BEA, ROSTER, context, create, humans, key, start
from services.platform.pushes import RecordedPushes


def _states(state: BattleState, turns: int) -> list[BattleState]:
    """The states one process goes through (each decided on the one before, as the
    service's kept states are): both seats commit greedy plans, turn after turn; seat 1
    is taken over by the CPU in the middle of turn 2."""
    ctx, _, _ = context()
    seen: list[BattleState] = []
    for turn in range(turns):
        for seat in domain.SEATS:
            if state.over:
                return seen
            assert state.battle is not None
            if turn == 1 and seat == 1:
                state = domain.take_over(state, 1, "greedy", ctx.clock()).state
                seen.append(state)
            assert state.battle is not None
            plan = GreedyBot().choose(ROSTER, view_for(state.battle, seat), Random(turn))
            decision = domain.commit_plan(
                state, seat, state.battle.turn, plan, ROSTER, ctx.clock(), ctx.timing
            )
            state = decision.state
            seen.append(state)
    return seen


async def test_every_kept_view_equals_the_view_built_from_scratch() -> None:
    ctx, _, _ = context()
    first = await start(ctx)
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    states = [first, *_states(first, 5)]
    assert len({id(s.battle) for s in states}) < len(states), "some states share a turn"
    for state in states:
        for seat in domain.SEATS:
            kept = views.view(state, seat)
            assert kept == battle_view(state, seat, ROSTER)
            assert kept.you.committed == (state.plans[seat] is not None)
            assert kept.opponent.committed == (state.plans[1 - seat] is not None)
            assert not kept.opponent.hand, "never the opponent's hand"


async def test_a_reused_turn_does_not_carry_one_views_flags_into_the_next() -> None:
    ctx, _, _ = context()
    first = await start(ctx)
    assert first.battle is not None
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    before = views.view(first, 1)
    plan = GreedyBot().choose(ROSTER, view_for(first.battle, 0), Random(1))
    after = domain.commit_plan(first, 0, 1, plan, ROSTER, ctx.clock(), ctx.timing).state
    assert after.battle is first.battle  # the same turn: the teams are reused
    theirs = views.view(after, 1)
    assert theirs.opponent.committed and not before.opponent.committed
    assert not theirs.plan, "the opponent's plan stays hidden"
    assert views.view(after, 0).plan and not views.view(first, 0).plan


async def test_the_opponents_unlocked_special_is_not_named_in_my_log_but_mine_is() -> None:
    """BATTLE.md 6: the opponent's hand stays hidden, and an unlocked Special goes to it;
    the unlock itself is shown (its conditions are on the field), not the card."""
    ctx, _, _ = context()
    state = replace(
        await start(ctx),
        log=(
            Entry(Step.UNLOCK, 0, "0.ember", ROSTER.characters["ember"].special),
            Entry(Step.UNLOCK, 1, "1.volt", ROSTER.characters["volt"].special),
        ),
    )
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    for seat in (1, 0):  # the kept views are built from one log: neither takes the other's
        for view in (views.view(state, seat), battle_view(state, seat, ROSTER)):
            mine, theirs = (view.log[seat], view.log[1 - seat])
            assert (mine.step, mine.card) == ("unlock", state.log[seat].card)
            assert (theirs.step, theirs.actor, theirs.card) == (
                "unlock",
                state.log[1 - seat].actor,
                "",
            )


async def test_a_hand_holding_an_unlocked_special_counts_as_much_for_both_seats() -> None:
    """With a Special unlocked, a player's hand read 6 on their own screen and 5 on their
    opponent's (the opponent's count left the Special out, though its unlock is in both
    logs); ``hand_size`` is how many cards the hand holds."""
    ctx, _, _ = context()
    state = await start(ctx)
    assert state.battle is not None
    special = ROSTER.characters[state.seats[1].characters[0]].special
    teams = (state.battle.teams[0], replace(state.battle.teams[1], specials=(special,)))
    state = replace(state, battle=replace(state.battle, teams=teams))
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    for build in (views.view, lambda s, seat: battle_view(s, seat, ROSTER)):
        theirs, mine = build(state, 1), build(state, 0)
        assert theirs.you.hand_size == len(theirs.you.hand) == 6
        assert mine.opponent.hand_size == 6 and not mine.opponent.hand


async def test_both_seats_see_the_summons_waiting_for_a_square() -> None:
    """Found from outside: a summon sent to a taken square (a reservation, BATTLE.md 2)
    was said once in that turn's log, then shown nowhere: neither player could tell a
    Thornling waited for square 0 0 until it appeared."""
    ctx, _, _ = context()
    state = await start(ctx)
    assert state.battle is not None
    waiting = Reservation("thornling", (0, 0), "0.moss")
    teams = (replace(state.battle.teams[0], reservations=(waiting,)), state.battle.teams[1])
    state = replace(state, battle=replace(state.battle, teams=teams))
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    for build in (views.view, lambda s, seat: battle_view(s, seat, ROSTER)):
        mine, theirs = build(state, 0).you, build(state, 1).opponent
        for team in (mine, theirs):
            assert [(r.summon, r.name, r.square.row, r.square.col) for r in team.reservations] == [
                ("thornling", ROSTER.summons["thornling"].name, 0, 0)
            ]
        assert not build(state, 0).opponent.reservations


async def test_a_units_burn_and_spd_change_say_how_long_they_last() -> None:
    """Found from outside: "Tor burns for 2 a turn" and a slowed SPD were shown without
    how long either lasts, and an opponent's card text is never shown: whether a Burn
    would strike again at the turn end could not be told."""
    ctx, _, _ = context()
    state = await start(ctx)
    assert state.battle is not None
    # A burn 2 for 2 turns struck at the last turn end (1 turn end left), one for 3 more;
    # a spd -4 for 2 turns played last turn (both turns to come).
    burned = replace(state.battle.teams[0].units[0], burns=(Burn(2, 1), Burn(3, 3)))
    slowed = replace(state.battle.teams[1].units[0], spd_changes=(SpdChange(-4, 2),))
    teams = (
        replace(state.battle.teams[0], units=(burned, *state.battle.teams[0].units[1:])),
        replace(state.battle.teams[1], units=(slowed, *state.battle.teams[1].units[1:])),
    )
    state = replace(state, battle=replace(state.battle, teams=teams))
    for seat in (0, 1):
        view = battle_view(state, seat, ROSTER)
        units = {u.uid: u for u in (*view.you.units, *view.opponent.units)}
        assert (units[burned.uid].burn, units[burned.uid].burn_turns) == (5, 3)
        assert units[slowed.uid].spd_turns == 2 and units[slowed.uid].spd == slowed.spd - 4
        assert units[burned.uid].spd_turns == 0 and units[slowed.uid].burn_turns == 0


async def test_the_opponents_formation_is_hidden_until_the_battle_begins() -> None:
    """Found from outside (the browser): during the formation the opponent's characters
    stood on the default squares, which were not where they were placed; at turn 1 they
    jumped. Until both formations stand, the opponent's units come without squares."""
    ctx, _, _ = context()
    await create(ctx, "b1", humans())
    placed = ((0, 2), (1, 2), (2, 1))
    seen = await handlers.set_formation(ctx, key(ANN), "b1", ANN, placed)
    theirs = battle_view(seen.state, 1, ROSTER)
    assert theirs.opponent.units and not any(u.HasField("square") for u in theirs.opponent.units)
    mine = battle_view(seen.state, 0, ROSTER)
    assert [(u.square.row, u.square.col) for u in mine.you.units] == list(placed)
    begun = await handlers.set_formation(ctx, key(BEA), "b1", BEA, ((0, 0), (1, 0), (2, 0)))
    theirs = battle_view(begun.state, 1, ROSTER)
    assert [(u.square.row, u.square.col) for u in theirs.opponent.units] == list(placed)


async def test_a_cover_note_names_the_unit_not_its_id() -> None:
    """Found from outside: the browser's log read "(covered by 0.bastion)": the API's
    unit id in a player's words."""
    ctx, _, _ = context()
    card = ROSTER.characters["volt"].cards[0]
    hit = Entry(Step.CARD, 1, "1.volt", card, targets=("0.bastion",), note="covered by 0.bastion")
    state = replace(await start(ctx), log=(hit,))
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    for seat in (0, 1):
        for view in (views.view(state, seat), battle_view(state, seat, ROSTER)):
            assert view.log[0].note == "covered by Tor Bastion", view.log[0]


async def test_a_reserved_summons_appearing_names_its_summoner_not_its_id() -> None:
    """A reserved Thornling's appearing read "(reserved by 0.moss)"
    on the terminal: the API's unit id in a player's words."""
    ctx, _, _ = context()
    appeared = Entry(Step.APPEAR, 1, "1.s3", note="reserved by 1.moss")
    state = replace(await start(ctx), log=(appeared,))
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    for seat in (0, 1):
        for view in (views.view(state, seat), battle_view(state, seat, ROSTER)):
            assert view.log[0].note == "reserved by Moss Warden", view.log[0]


async def test_a_card_in_the_log_is_named_as_the_roster_names_it_for_both_seats() -> None:
    """Found from outside: a card the viewer never held was named from its id, so one
    player read "Barkskin" and the other "Bark" for the same action."""
    ctx, _, _ = context()
    bark = Entry(Step.CARD, 1, "1.moss", "moss.bark", targets=("1.moss",))
    state = replace(await start(ctx), log=(bark,))
    views = SeatViews(RecordedPushes(), rosters_of(ROSTER), lambda: datetime.now(UTC))
    for seat in (0, 1):
        for view in (views.view(state, seat), battle_view(state, seat, ROSTER)):
            assert view.log[0].card_name == "Barkskin" == ROSTER.cards["moss.bark"].name


def test_card_text_counts_turns_in_words() -> None:
    """A timed effect of one turn reads "for 1 turn", of two "for 2 turns": a roster may
    give a burn or a speed change any length from 1 to 9 (rules/FORMAT.md)."""
    card = next(c for c in ROSTER.cards.values() if any(e.turns for e in c.effects))
    timed = next(e for e in card.effects if e.turns)
    once = replace(card, effects=(replace(timed, turns=1),))
    twice = replace(card, effects=(replace(timed, turns=2),))
    assert card_text(once).endswith("for 1 turn")
    assert card_text(twice).endswith("for 2 turns")


def test_a_cards_energy_effects_are_said_in_battle_mds_words() -> None:
    """Found from outside: the hand read "damage 6, energy_steal 1" and "energy 1" where
    BATTLE.md (and BattleCard.text's comment) say ``energy +N`` and ``energy steal N``."""
    assert card_text(ROSTER.cards["volt.overcharge"]) == "energy +1"
    assert card_text(ROSTER.cards["moss.sap"]) == "damage 6, energy steal 1"
    assert card_text(ROSTER.cards["mirth.heist"]) == "damage 12, energy steal 4"


async def test_a_slowed_summon_is_not_shown_faster() -> None:
    """Found from outside: a Thornling (SPD 0: a summon has none) hit by Mark's spd -4
    showed SPD 1, the engine's floor for a character."""
    ctx, _, _ = context()
    state = await start(ctx)
    assert state.battle is not None
    mine, theirs = state.battle.teams
    slowed = (SpdChange(-4, 2),)
    thorn = Unit("0.s3", "thornling", True, 26, 26, 0, (1, 1), 3, spd_changes=slowed, placed=1)
    battle = replace(state.battle, teams=(replace(mine, units=(*mine.units, thorn)), theirs))
    view = battle_view(replace(state, battle=battle), 0, ROSTER)
    assert [u.spd for u in view.you.units if u.summon] == [0]
