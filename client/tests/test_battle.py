"""The Skirmish screen and what is typed at it, without a server: views built by the
battle service's own presenter from an engine battle."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from triad.v1 import common_pb2 as pb

from client.battle import draw
from client.battle_log import log_lines
from client.battle_names import label
from client.battle_render import WIDTH, hand_lines, prompt, screen
from client.battle_typed import parse_plan, parse_squares
from client.connection import ClientError
from devtools.terminal import Terminal
from services.battle import handlers
from services.battle.presenter import battle_view
from services.battle.rules import Entry, Step
from services.battle.tests.builders import (
    ANN,
    BEA,
    ROSTER,
    commit,
    context,
    create,
    humans,
    key,
    start,
)

SIZE = {"COLUMNS": "80", "LINES": "24"}


async def views() -> tuple[pb.BattleView, pb.BattleView]:
    ctx, _, _ = context()
    await start(ctx)
    after = await commit(ctx, "b1", ANN)
    while after.turn < 3:
        await commit(ctx, "b1", BEA)
        after = await commit(ctx, "b1", ANN)
    return battle_view(after, 0, ROSTER), battle_view(after, 1, ROSTER)


async def test_the_screen_fits_80_by_24_and_shows_both_fields_hand_and_energy() -> None:
    mine, _ = await views()
    lines = screen(mine, now=mine.deadline.ToDatetime(tzinfo=UTC) - timedelta(seconds=10), rows=24)
    assert len(lines) <= 22 and all(len(line) <= WIDTH for line in lines)
    text = "\n".join(lines)
    assert text.startswith("Skirmish  turn 3/10  selection  10 s left")
    assert f"Energy {mine.you.energy}" in text and "col 0" in text
    assert mine.you.hand[0].name in text
    # A card names who plays it as the field does ('Kira', not the roster id 'volt').
    labels = {u.ref: u.name.split()[0][:6] for u in mine.you.units}
    for i, card in enumerate(mine.you.hand):
        assert f"{i} {labels[card.owner]}: {card.name} " in text, text
    # The last turn's actions name units and cards in the same words, not by their ids.
    ember = next(u for u in mine.you.units if u.ref == "ember")
    target = mine.opponent.units[0]
    mine.log.add(
        seat=mine.seat,
        actor=ember.uid,
        card="ember.flare",
        effects=[
            pb.BattleEffect(unit=target.uid, change="damage", amount=10),
            pb.BattleEffect(unit=f"team {mine.seat}", change="energy", amount=1),
        ],
    )
    text = "\n".join(screen(mine, rows=24))
    log = text.split("Last turn:", 1)[1]
    first = target.name.split()[0][:6]
    assert f"Ember Flare -> their {first} takes 10 damage, your team gains 1 Energy" in log, log
    assert log.strip(), text
    for unit in [*mine.you.units, *mine.opponent.units]:
        assert unit.uid not in log, log
    assert "team 0" not in log and "team 1" not in log, log


def test_a_plan_is_typed_as_cards_with_their_targets() -> None:
    view = pb.BattleView(
        you=pb.BattleTeamView(
            hand=[pb.BattleCard(id="a.x", owner="a"), pb.BattleCard(id="b.y", owner="b")]
        )
    )
    plan = parse_plan("0 1 2; 1 row 0", view)
    assert [(a.card, a.target.row, a.target.col) for a in plan] == [("a.x", 1, 2), ("b.y", 0, 0)]
    assert not plan[1].target.HasField("col")
    assert parse_plan("", view) == []
    with pytest.raises(ClientError, match=r"numbered 0\.\.1"):
        parse_plan("5", view)
    with pytest.raises(ClientError, match=r"0\.\.2"):
        parse_plan("0 3 1", view)


def test_a_formation_is_three_squares() -> None:
    squares = parse_squares("0 0 1 0 2 1")
    assert [(s.row, s.col) for s in squares] == [(0, 0), (1, 0), (2, 1)]
    with pytest.raises(ClientError, match="three squares"):
        parse_squares("0 0 1")


async def test_a_long_refusal_is_shown_whole_under_the_screen_in_24_rows(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's refusal of a plan ends with the legal targets: cut at 79 columns
    it lost them ('target {} is not one of')."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    mine, _ = await views()
    capsys.readouterr()  # what building the battle logged is not the screen
    note = (
        "invalid argument: your action 1 (Kira: Wildfire): no target refused: Wildfire "
        "targets an enemy row (send row alone): one of [{row 0}, {row 1}, {row 2}]"
    )
    draw(mine, note)
    lines = re.sub(r"\x1b\[[HKJ]", "", capsys.readouterr().out).splitlines()
    assert len(lines) <= 23 and all(len(line) <= 79 for line in lines), lines
    assert " ".join(lines[-2:]).endswith("[{row 0}, {row 1}, {row 2}]"), lines


async def test_off_a_terminal_the_screen_is_text_written_when_more_than_its_clock_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found from outside: `(echo; echo q) | triad-client battle > out` wrote the
    cursor's codes (ESC [2J, ESC [K) into the file, and the screen twice a second."""
    mine, _ = await views()
    drawn: list[str] = []
    draw(mine, "", "", drawn)
    draw(mine, "", "", drawn)  # the same screen, a moment on
    once = capsys.readouterr().out
    assert "\x1b" not in once and once.count("Skirmish") == 1, once
    assert once.endswith(f"{prompt(mine)}\n"), once
    draw(mine, "Your plan is in: waiting for the turn to resolve.", None, drawn)
    assert "Your plan is in" in capsys.readouterr().out


async def test_the_screen_shows_the_battle_end_while_the_player_sits_at_the_prompt() -> None:
    """The opponent gives up while nothing is typed: the screen says so at once (the
    prompt used to block on input() until Enter, the deadline frozen)."""
    terminal = Terminal([sys.executable, "-m", "client.tests.battling"], SIZE)
    try:
        first = await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        assert "selection" in first, first
        ended = await terminal.until(lambda s: "You won" in s, "the end, nothing typed")
        assert "You won (your opponent gave up)." in ended, ended
    finally:
        terminal.close()


async def test_a_battle_that_ended_while_the_player_was_away_is_told_on_the_screen() -> None:
    """Found from outside: `triad-client battle` said nothing of the player's battle the
    CPU had played out (and lost) after they left; it went on to a new battle silently.
    The session's BATTLE_ENDED_AWAY notice is the screen's note, in its words."""
    terminal = Terminal([sys.executable, "-m", "client.tests.battling", "away"], SIZE)
    try:
        shown = await terminal.until(lambda s: "while you were away" in s, "the notice")
        assert "plan (card" in shown, shown
        said = " ".join(shown.split())
        assert "you lost, the CPU played your side after you left." in said, shown
    finally:
        terminal.close()


async def test_ctrl_c_in_a_battle_says_it_goes_on_and_how_to_take_it_back() -> None:
    """Found from outside: Ctrl-C ended the battle's screen without a word (the shell's
    prompt on the plan's line), while the battle went on and, 30 s on, the CPU took the
    seat and the player lost it (BATTLE.md 5)."""
    terminal = Terminal([sys.executable, "-m", "client.tests.battling", "stays"], SIZE)
    try:
        await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        terminal.type("\x03")
        told = await terminal.until(lambda s: "battle plays on" in s, "what goes on")
        assert terminal.process.wait(timeout=30) == 130, told
        said = " ".join(told.split())
        assert "goes on: back within 30 s, triad-client battle plays on; after that the CPU" in said
        assert any(line.startswith("Battle b1 goes on") for line in told.splitlines()), told
    finally:
        terminal.close()


def test_a_summon_card_is_shown_aimed_at_a_square_not_at_self() -> None:
    """Found from outside: 'Raise Wraith 2E self' was refused without a square (a summon
    is placed on a square of your own field, BATTLE.md 1): the server says its range is
    'square' (common.proto's BattleCard.range), and the screen shows what it says."""
    view = pb.BattleView()
    view.you.hand.add(
        owner="hollis", name="Raise Wraith", cost=2, range="square", text="summon wraith"
    )
    view.you.hand.add(owner="bastion", name="Brace", cost=1, range="self", text="shield 8")
    raise_line, brace_line = hand_lines(view)
    assert " 2E square " in raise_line and " 1E self " in brace_line


async def test_every_effect_of_the_log_is_said_in_words() -> None:
    """Found from outside: the log showed the API's codes ("energy_steal", "team 1",
    a reserved summon as "1.thornling@0,0 reserved 1")."""
    mine, _ = await views()
    theirs = mine.opponent.units[0]
    them = f"team {1 - mine.seat}"
    effects = [
        pb.BattleEffect(unit=them, change="energy_steal", amount=1),
        pb.BattleEffect(unit=f"{mine.seat}.moss.thornling@0,2", change="reserved", amount=1),
        pb.BattleEffect(unit=theirs.uid, change="spd", amount=-1),
        pb.BattleEffect(unit=theirs.uid, change="defeated"),
    ]
    said = log_lines_of(mine, effects)
    name = theirs.name.split()[0][:6]
    assert said == (
        f"their team loses 1 Energy, a Thornling is reserved for square 0 2, "
        f"their {name} Spd -1, their {name} is defeated"
    )


async def test_a_cover_taken_is_said_as_taking_the_allies_hits() -> None:
    """Found from outside: Bulwark read "Tor is covered, Tor gains a 10 shield", as if Tor
    were shielded by another; Cover makes Tor take the single-target hits aimed at its
    allies (BATTLE.md 1, 2)."""
    mine, _ = await views()
    bastion = next(u for u in mine.you.units if u.ref == "bastion")
    said = log_lines_of(mine, [pb.BattleEffect(unit=bastion.uid, change="cover", amount=1)])
    assert said == "Tor takes the hits aimed at its allies"


async def test_a_summon_defeated_in_the_turn_is_still_named_in_its_log() -> None:
    """Found in CI: a summon that acted and then fell in the same turn had left the
    view's units, and the log named it by its uid ("1.thornling Thorn -> ...")."""
    mine, _ = await views()
    gone = f"{1 - mine.seat}.thornling"
    said = log_lines_of(mine, [pb.BattleEffect(unit=gone, change="damage", amount=4)])
    assert said == "their Thornling takes 4 damage"
    mine.ClearField("log")
    mine.log.add(seat=1 - mine.seat, actor=gone, card="thornling.thorn")
    assert log_lines(mine)[0].startswith("their Thornling Thorn -> "), log_lines(mine)


def log_lines_of(view: pb.BattleView, effects: list[pb.BattleEffect]) -> str:
    view.ClearField("log")
    view.log.add(seat=view.seat, card="moss.sap", effects=effects)
    lines = log_lines(view)
    assert all(len(line) <= WIDTH for line in lines)  # wrapped, not cut
    return " ".join(line.strip() for line in lines).split(" -> ", 1)[1]


async def test_a_terminal_too_small_for_the_battle_says_the_size_it_needs() -> None:
    """Found from outside: in a 60x20 terminal the battle screen's lines wrapped and
    scrolled, each redraw a new smear; the match screen says the size it needs."""
    small = {"COLUMNS": "60", "LINES": "20"}
    terminal = Terminal([sys.executable, "-m", "client.tests.battling"], small, 60, 20)
    try:
        shown = await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        assert "needs at least 80x24" in " ".join(shown.split()), shown
        assert "Skirmish  turn" not in shown, shown
    finally:
        terminal.close()


async def test_an_unlocked_special_is_shown_going_to_the_hand_not_played() -> None:
    """Found from outside: an unlock showed as 'Kira Thunderclap -> nothing', as if the
    card had been played to no effect. Mine names the card; the opponent's does not (the
    server leaves it out: their hand is hidden)."""
    ctx, _, _ = context()
    state = replace(
        await start(ctx),
        log=(
            Entry(Step.UNLOCK, 0, "0.ember", "ember.inferno"),
            Entry(Step.UNLOCK, 1, "1.volt", "volt.thunderclap"),
        ),
    )
    lines = log_lines(battle_view(state, 0, ROSTER))
    assert lines == [
        "Ember's Inferno is now in your hand",
        "their Kira's Special is now in their hand",
    ]


async def test_the_opponents_hidden_formation_is_not_shown_as_down() -> None:
    """Before turn 1 the opponent's units come without squares (their formation is
    hidden): the screen shows none of them on the field, and none as down."""
    ctx, _, _ = context()
    await create(ctx, "b1", humans())
    seen = await handlers.set_formation(ctx, key(ANN), "b1", ANN, ((0, 2), (1, 2), (2, 1)))
    theirs = battle_view(seen.state, 1, ROSTER)
    text = "\n".join(screen(theirs, rows=24))
    assert "down:" not in text, text
    assert all(u.name.split()[0][:6] not in text.split("|", 1)[1] for u in theirs.opponent.units)
    # The prompt names the characters in the order the squares go to (found from outside).
    names = ", ".join(label(u) for u in theirs.you.units)
    assert prompt(theirs) == f"squares r c for {names} (Enter: front column) > "
    assert len(prompt(theirs)) + len("0 0 1 0 2 0") < WIDTH, prompt(theirs)


async def test_a_log_cut_to_the_screen_starts_at_an_action_not_mid_way() -> None:
    """Found from outside: "Last turn: (last 8)" began with "  Ember takes 8 damage,
    their Ember is defeated": the tail of a wrapped action whose head (who acted, with
    which card) was cut off."""
    mine, _ = await views()
    mine.ClearField("log")
    them = [u.uid for u in mine.opponent.units]
    for _ in range(8):  # each action wraps onto a second line
        hits = [pb.BattleEffect(unit=uid, change="damage", amount=10) for uid in them]
        mine.log.add(seat=mine.seat, actor=mine.you.units[0].uid, card="ember.flare", effects=hits)
    lines = screen(mine, rows=24)
    at = next(i for i, line in enumerate(lines) if line.startswith("Last turn"))
    shown = lines[at + 1 :]
    assert shown and not shown[0].startswith(" "), "\n".join(lines)
    assert len(lines) <= 22, "\n".join(lines)


def test_a_card_too_long_for_the_screen_wraps_and_keeps_its_last_words() -> None:
    """Found from outside: "0 Sable: Mark 1E single normal - damage 6, spd -4 for 2
    turns, ignores formatio": the line was cut at 80 columns, and with it the flag that
    says where the card may aim."""
    view = pb.BattleView()
    view.you.units.add(ref="sable", name="Sable Quill")
    text = "damage 6, spd -4 for 2 turns, ignores formation"
    view.you.hand.add(owner="sable", name="Mark", cost=1, range="single", group="normal", text=text)
    view.you.hand[0].cooling = 1
    lines = hand_lines(view)
    assert all(len(line) <= WIDTH for line in lines), lines
    assert " ".join(line.strip() for line in lines).endswith("ignores formation"), lines


async def test_a_hit_a_cover_unit_took_says_so() -> None:
    """Found from outside: a hit aimed at one unit and taken by a Cover unit (or sent to
    another when its target was gone) read as if aimed there: the note was not shown."""
    mine, _ = await views()
    mine.ClearField("log")
    bastion = next(u for u in mine.you.units if u.ref == "bastion")
    mine.log.add(
        seat=1 - mine.seat,
        actor=mine.opponent.units[0].uid,
        card="volt.jolt",
        effects=[pb.BattleEffect(unit=bastion.uid, change="damage", amount=9)],
        note="covered by Tor Bastion",
    )
    said = " ".join(line.strip() for line in log_lines(mine))
    assert said.endswith("Tor takes 9 damage (covered by Tor)"), said


async def test_a_plan_finished_after_its_turn_resolved_is_not_sent_for_the_next(
    tmp_path: Path,
) -> None:
    """Found from outside: a plan typed while the deadline passed, Enter coming after,
    was read against the next turn's hand and committed for that turn ("4 row 0" typed
    for turn 1, Cleave played in turn 2)."""
    log = tmp_path / "commits"
    terminal = Terminal([sys.executable, "-m", "client.tests.battle_turned", str(log)], SIZE)
    try:
        await terminal.until(lambda s: "turn 2/10" in s and "plan (card" in s, "turn 2")
        terminal.type("2")  # Kindle, in turn 2's hand
        await terminal.until(lambda s: "> 2" in s, "the card typed")
        log.with_suffix(".turned").touch()  # the deadline passes: turn 3
        await terminal.until(lambda s: "turn 3/10" in s, "turn 3")
        terminal.type("\r")
        told = await terminal.until(lambda s: "turn before" in s, "the line not sent")
        assert "nothing was sent" in " ".join(told.split()), told
        assert not log.exists(), log.read_text()
        terminal.type("2\r")  # typed at turn 3: sent for turn 3
        await terminal.until(lambda s: log.exists() and log.read_text() != "", "the plan sent")
        assert log.read_text() == "3 ember.kindle\n"
    finally:
        terminal.close()


async def test_the_players_committed_plan_is_shown_on_their_screen() -> None:
    """Found from outside: once a plan was committed the screen said "ready" and no
    more, though a player sees their own plan (BATTLE.md 6)."""
    mine, _ = await views()
    first, second = mine.you.hand[0], mine.you.hand[1]
    mine.plan.add(character=first.owner, card=first.id, target=pb.BattleTarget(row=0, col=1))
    mine.plan.add(character=second.owner, card=second.id, target=pb.BattleTarget(row=2))
    mine.you.committed = True
    said = " ".join(" ".join(screen(mine, rows=24)).split())
    assert f"Your plan: {first.name} 0 1; {second.name} row 2" in said, said


async def test_a_card_played_from_the_hand_is_named_in_the_log_as_it_was_in_the_hand() -> None:
    """Found from outside: the log named a card by its id once it had left the hand
    (Barkskin as "Bark", Raise Wraith as "Raise")."""
    selecting, _ = await views()
    resolved = pb.BattleView()
    resolved.CopyFrom(selecting)  # the next turn's view: the card has left the hand
    selecting.you.hand.add(id="moss.bark", name="Barkskin", owner="moss")
    screen(selecting, rows=24)  # the hand shown while the plan is typed
    resolved.ClearField("log")
    resolved.log.add(seat=resolved.seat, actor=resolved.you.units[0].uid, card="moss.bark")
    said = " ".join(line.strip() for line in log_lines(resolved))
    assert "Barkskin" in said, said
