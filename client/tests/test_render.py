"""The match screen drawn from hand-built views, as the client's frame draws it for a
terminal of a given size: every board (3x3, 4x4, 5x5 with blocked cells) beside hands
of 5, 8 and 13 cards within 80x24, the size a too small terminal needs, the round of a
Sudden Death match and the table's rules; a Realm table's modules, hands and state."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime

from rich.console import Console
from triad.v1 import common_pb2 as pb

from client.board import example_cell, open_cells
from client.frame import cell_problem, frame
from client.realm import parse_move, realm_attributes, realm_line
from client.render import round_line, status_line
from client.rules_text import rules_line, table_row
from client.tests import views
from client.tests.views import great_cloth, quintra, round_two, view


def drawn(
    shown: pb.MatchView, width: int = 80, height: int = 24, note: str = "", typing: str = "0 1"
) -> list[str]:
    """The lines ``triad-client play`` draws for ``shown`` in a width x height terminal
    (the view just arrived), ``typing`` after the prompt."""
    out = io.StringIO()
    console = Console(width=width, height=height, file=out, color_system=None)
    console.print(frame(shown, datetime.now(UTC), None, typing, note, None, console), end="")
    return out.getvalue().splitlines()


def fits(lines: list[str], width: int = 80, height: int = 24) -> None:
    assert len(lines) <= height, "\n".join(lines)
    assert max(len(line) for line in lines) <= width, "\n".join(lines)
    assert lines[-1].startswith("card cell > 0 1"), "the prompt is the last line"


def test_the_standard_board_keeps_its_named_cells_in_80x24() -> None:
    lines = drawn(view(placed={4: pb.SEAT_A}))
    fits(lines)
    screen = "\n".join(lines)
    assert "│ 2  Shiva  8 │" in screen, "the card's name in its cell"
    for cell in (0, 1, 2, 3, 5, 6, 7, 8):
        assert f"({cell})" in screen
    assert "Rules: All Open, Same, Plus (Custom)" in lines[0] and "─ No trade - match" in screen
    assert "Round" not in screen
    assert "Their hand" in screen and "hidden" not in screen, "All Open hides nothing"
    assert "0 4: your first card to cell 4" not in screen  # the centre is taken
    assert "(0 0: your first card to cell 0)" in screen
    noted = drawn(view(placed={4: pb.SEAT_A}), note="Not your turn yet.")
    assert noted[-2] == "Not your turn yet.", "a note takes the hint's line"


def test_a_5x5_board_with_blocked_cells_and_13_card_hands_fits_80x24() -> None:
    shown = quintra()
    lines = drawn(shown, note="Cell 3 is blocked: choose a numbered cell.")
    fits(lines)
    screen = "\n".join(lines)
    for cell in open_cells(shown):  # every open cell by its number, blocked ones never
        assert f"({cell})" in screen
    for cell in (3, 12, 13, 20):
        assert f"({cell})" not in screen
    # Each blocked cell fills its three lines: cells 12 and 13 side by side.
    assert screen.count("#####") == 4 * 3
    assert len(re.findall(r"│#####│#####│", screen)) == 3
    # Every card of both hands with its four sides whole; the indices 0..12 to type.
    assert len(re.findall(r"T[1-9A] ?R[1-9A] ?B[1-9A] ?L[1-9A]", screen)) == 26
    numbers = re.findall(r"(?:^|\s)(\d{1,2}) \S+ +(?:fir|-) +T", screen, re.MULTILINE)
    assert sorted(map(int, numbers)) == list(range(13))
    assert "fir" in screen and "wat" in screen, "card elements and the cell's mark"
    assert "All Open, Same, Plus, Combo, Elemental" in lines[0]
    assert "5x5, 4 blocked, Sudden Death, Trade Direct" in screen
    assert "Round 1 of at most 5" in screen


def test_every_card_number_of_a_13_card_hand_reads_in_full_at_every_terminal_size() -> None:
    """Found from outside: at 100x40 the wider layout cut cards 10-12 to '[1…'; the
    name gives way instead."""
    for width, height in ((80, 24), (100, 40), (120, 50), (200, 60)):
        screen = "\n".join(drawn(quintra(), width, height))
        assert "[1…" not in screen and not re.search(r"\b1…", screen), screen
        for n in (10, 11, 12):
            assert re.search(rf"(\[{n}\]|\s{n}) ", screen), (width, height, screen)


def test_a_4x4_board_with_8_card_hands_fits_80x24() -> None:
    lines = drawn(great_cloth(), note="a note")
    fits(lines)
    screen = "\n".join(lines)
    assert "Their hand (5 hidden)" in screen and "4x4" in screen
    assert len(re.findall(r"T[1-9A] ?R[1-9A] ?B[1-9A] ?L[1-9A]", screen)) == 8 + 3


def test_the_last_frame_of_a_4x4_match_leaves_a_row_for_the_shell_prompt() -> None:
    """Found from outside: the end of a 4x4 match switched to full cells, 24 rows on its
    own, and the shell's prompt under it scrolled the rules line away."""
    over = great_cloth()
    over.status = pb.MATCH_STATUS_FINISHED
    over.outcome.reason = pb.FINISH_REASON_BOARD_FULL
    lines = drawn(over)
    assert len(lines) <= 23, "\n".join(lines)
    assert "Rules:" in lines[0], "\n".join(lines)


def test_a_terminal_too_small_for_the_board_is_told_the_size_it_needs() -> None:
    lines = drawn(quintra(), width=60, height=20)
    screen = " ".join(lines)
    needed = re.search(r"This terminal is 60x20: the match needs at least (\d+)x(\d+)", screen)
    assert needed is not None, screen
    assert 60 < int(needed.group(1)) <= 80 and 20 < int(needed.group(2)) <= 24
    assert "#####" not in screen and "Your hand" not in screen, "no board cut to pieces"
    assert lines[-1].startswith("card cell > "), "q still forfeits"
    # The size it names is enough.
    wide, high = int(needed.group(1)), int(needed.group(2))
    fits(drawn(quintra(), width=wide, height=high), wide, high)


def test_too_few_lines_for_a_5x5_board_say_so_too() -> None:
    screen = " ".join(drawn(quintra(), width=120, height=18))
    assert "This terminal is 120x18: the match needs at least" in screen


def test_the_second_round_shows_the_round_and_how_the_first_ended() -> None:
    shown = round_two()
    assert round_line(shown) == "Round 2 of at most 5; round 1 ended 5-5"
    screen = "\n".join(drawn(shown))
    assert "Round 2 of at most 5; round 1 ended 5-5" in screen
    assert "─ Sudden Death, No trade - match 0f1e2d3c" in screen
    # Once the round's first card is down, the round alone.
    shown.last_placement.CopyFrom(pb.Placement(turn_number=10, cell=4))
    assert round_line(shown) == "Round 2 of at most 5"


def test_a_rounds_final_board_shows_as_the_next_round_starts_within_80x24() -> None:
    """RULES.md 12: views show each round's final board. Found from outside: the board
    emptied at once, the round-ending move and the full board never seen."""
    for start in (round_two(), quintra()):
        start.round_number, start.status = 2, pb.MATCH_STATUS_IN_PROGRESS
        start.ClearField("last_placement")
        full = view(start.rules.board.rows or 3, start.rules.board.columns or 3,
                    placed=dict.fromkeys(range(25), pb.SEAT_B))  # fmt: skip
        del start.earlier_rounds[:]
        start.earlier_rounds.add(round_number=1, board=full.board).scores.seat_a = 5
        start.earlier_rounds[0].scores.seat_b = 5
        lines = drawn(start, typing="")
        assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, "\n".join(lines)
        screen = "\n".join(lines)
        # The countdown runs on the wall clock from the view's arrival: 5 s, or less on a
        # machine slow enough that a second passed while the screen was drawn.
        assert re.search(
            r"Round 1's final board \(5-5\); round 2 in [1-5] s, or at a key", screen
        ), screen
        assert "(1)" not in screen, "the full board, not the empty one"
        assert "Round 1's final board" not in "\n".join(drawn(start)), "a key shows round 2"


def test_the_score_of_the_round_before_is_the_viewers_first() -> None:
    shown = view(rules=pb.Rules(sudden_death=True), round_number=3, earlier=((5, 5), (6, 4)))
    shown.my_seat = pb.SEAT_B
    shown.turn_seat = pb.SEAT_B
    assert round_line(shown) == "Round 3 of at most 5; round 2 ended 4-6"
    assert round_line(view()) == "", "no round without Sudden Death"


def test_the_rules_line_names_the_board_house_hands_and_each_trade_rule() -> None:
    rules = pb.Rules(
        visibility=pb.VISIBILITY_THREE_OPEN,
        house_hands=True,
        board=pb.BoardShape(rows=5, columns=5, blocked_count=3),
    )
    assert rules_line(rules) == "Three Open, 5x5, 3 blocked, house hands, No trade"
    # The lobby's row says house hands once (the rules line says it already).
    table = pb.Table(table_id="0fe1a562-x", host_name="ann")
    table.settings.rules.CopyFrom(rules)
    assert table_row(table) == ("0fe1a562  ann: Three Open, 5x5, 3 blocked, house hands, No trade")
    table.settings.rules.house_hands = False
    table.settings.random_deck = True
    assert table_row(table).endswith("No trade, Random decks")
    for trade, name in (
        (pb.TRADE_RULE_ONE, "Trade One"),
        (pb.TRADE_RULE_DIRECT, "Trade Direct"),
        (pb.TRADE_RULE_DIFFERENCE, "Trade Difference"),
        (pb.TRADE_RULE_ALL, "Trade All"),
    ):
        assert rules_line(pb.Rules(visibility=pb.VISIBILITY_CLOSED, trade_rule=trade)) == (
            f"Closed, {name}"
        )


def test_blocked_and_taken_cells_are_never_offered_as_a_move() -> None:
    shown = view(5, 5, blocked=(12, 0), placed={1: pb.SEAT_B})
    assert example_cell(shown) == 2, "the centre is blocked: the first open cell"
    assert open_cells(shown) == [c for c in range(25) if c not in (0, 1, 12)]
    assert cell_problem(shown, 12) == "Cell 12 is blocked: choose a numbered cell."
    assert cell_problem(shown, 1) == "Cell 1 is taken: choose a numbered cell."
    assert cell_problem(shown, 25) == "The board's cells are 0..24."
    assert cell_problem(shown, 24) == ""


def test_a_characters_realm_attributes_read_in_full_and_short() -> None:
    legend = pb.Character(
        stars=5,
        creature_type=pb.CREATURE_TYPE_DRAGON,
        alignment=pb.Alignment(law=pb.ALIGNMENT_LAW_CHAOTIC, moral=pb.ALIGNMENT_MORAL_EVIL),
        legendary=True,
    )
    assert realm_attributes(legend) == "dragon, chaotic evil, legendary"
    # Found from outside: an 'L' for Legendary read as Lawful or the left side.
    assert realm_attributes(legend, short=True) == "Dra CE ★"
    assert realm_attributes(legend, short=True, cursed=True) == "Dra CE ★ ember"
    assert realm_attributes(legend, True, True, letter=True) == "Dra CE ★ E"
    assert realm_attributes(legend, cursed=True) == "dragon, chaotic evil, legendary, ember"
    assert realm_attributes(pb.Character(stars=2)) == "-"


def test_a_realm_view_reads_its_modules_state_and_last_comparisons_and_fits_80x24() -> None:
    shown = view(rows=4, cols=4, hand=8, placed={5: pb.SEAT_A, 6: pb.SEAT_B})
    shown.rules.family = pb.RULES_FAMILY_REALM
    shown.rules.realm.CopyFrom(pb.RealmModules(lair=True, cursed=True))
    shown.rules.sudden_death = True
    for card in shown.my_hand:
        card.card.character.creature_type = pb.CREATURE_TYPE_FIEND
        card.card.character.alignment.law = pb.ALIGNMENT_LAW_NEUTRAL
        card.card.character.alignment.moral = pb.ALIGNMENT_MORAL_NEUTRAL
    realm = shown.realm
    realm.cells.extend(pb.RealmCellState() for _ in range(16))
    realm.cells[6].pending_rot = 1
    realm.seats.add(seat=pb.SEAT_A, lair_spent=True)
    realm.seats.add(seat=pb.SEAT_B, resistance_spent=True)
    realm.draw_pile_left = 10
    realm.last_move.lair = True
    realm.last_move.comparisons.add(attacker_cell=5, defender_cell=6, attack=7, defence=4)
    realm.last_move.saved.add(cell=9, cause=pb.CAPTURE_CAUSE_BASIC, by=pb.PROTECTION_WARD)
    assert "Realm, Lair, Cursed" in rules_line(shown.rules)
    assert "Realm Sudden Death" in rules_line(shown.rules)
    line = realm_line(shown)
    for part in ("Lair spent: you", "Rot 6:-1", "pile 10"):
        assert part in line
    # Found from outside: 'Resistance spent: nobody' at a table without Resistance.
    assert "Resistance" not in line, line
    shown.rules.realm.resistance = True
    assert "Resistance spent: them" in realm_line(shown)
    assert "last: Lair; 5>6 7v4; 9 saved by ward" in line
    lines = drawn(shown, 100, 30)
    screen = "\n".join(lines)
    assert "Fie NN" in screen and "Lair spent" in screen
    # Too long for one line at 80 columns: broken between its parts (found from outside:
    # '| last: ...' began the second line, and a part could be cut in two).
    realm.cells[2].hex_spent = realm.cells[4].hex_spent = realm.cells[11].hex_spent = True
    realm.last_move.comparisons.add(attacker_cell=5, defender_cell=9, attack=2, defence=3)
    said = [line.strip("│ ") for line in drawn(shown) if "spent" in line or "last:" in line]
    assert len(said) == 2 and not any(line[:1] == "|" or line[-1:] == "|" for line in said), said
    assert "hex spent on 2,4,11" in said[0], said
    assert "last: Lair; 5>6 7v4; 5>9 2v3; 9 saved by ward" in said[1], said


def test_realm_sudden_death_shows_the_tying_move_and_the_card_replaced() -> None:
    """Found from outside: after Realm Sudden Death the screen told only the last
    replacement's comparisons, "the weakest card replaced from the pile": not the move
    that tied the full board (its captures), nor which card left, and the result said
    only "the board is full"."""
    shown = view(
        hand=0, revealed=0, placed={c: pb.SEAT_A if c < 5 else pb.SEAT_B for c in range(9)}
    )
    shown.rules.family = pb.RULES_FAMILY_REALM
    shown.rules.sudden_death = True
    shown.status = pb.MATCH_STATUS_FINISHED
    shown.outcome.reason = pb.FINISH_REASON_BOARD_FULL
    shown.outcome.winner_seat = pb.SEAT_A
    realm = shown.realm
    realm.cells.extend(pb.RealmCellState() for _ in range(9))
    realm.draw_pile_left = 9
    removed, drawn_card = views.card(7, "b"), views.card(8, "pile")
    tying = realm.tying_placement
    tying.CopyFrom(pb.Placement(turn_number=9, seat=pb.SEAT_B, card=views.card(6, "b"), cell=8))
    tying.captures.add(cell=5, cause=pb.CAPTURE_CAUSE_BASIC)
    realm.replacements.add(cell=0, removed=removed, drawn=drawn_card, seat=pb.SEAT_A)
    shown.last_placement.CopyFrom(
        pb.Placement(turn_number=9, seat=pb.SEAT_A, card=drawn_card, cell=0)
    )
    realm.last_move.replaced_card_id = removed.card_id
    screen = "\n".join(drawn(shown, 100, 30))
    assert f"[BOT] Bea put {views.card(6).character.name} on 8: took 5 (higher side)." in screen, (
        screen
    )
    said = f"Pile: {drawn_card.character.name} on 0 for you, {removed.character.name} out"
    assert said + ": no capture." in screen, screen
    assert "You win 0-0: the board is full; Sudden Death drew 1 card from the pile." in screen
    # Found from outside: of five replacements only the last was told. Each before it is
    # a part of the Realm line, under the board.
    first_removed, first_drawn = views.card(5, "b"), views.card(4, "pile")
    realm.replacements.insert(
        0, pb.RealmReplacement(cell=3, removed=first_removed, drawn=first_drawn, seat=pb.SEAT_B)
    )
    said = f"pile on 3: {first_removed.character.name} out, {first_drawn.character.name} in"
    assert said in "\n".join(drawn(shown, 100, 30))
    # Found on the way: a Realm table's Sudden Death was drawn as rounds ("Round 1 of at
    # most 5"), which it does not play.
    assert "Round" not in screen, screen


def test_a_move_with_lair_parses_and_is_refused_where_there_is_none() -> None:
    assert parse_move(["0", "5", "lair"], True) == ("0", 5, True)
    assert parse_move(["1", "3"], True) == ("1", 3, False)
    assert "no Lair" in str(parse_move(["0", "5", "lair"], False))
    assert parse_move(["0", "x"], True) == ""


def test_an_opponent_without_a_session_is_shown_with_their_forfeit_time_in_80x24() -> None:
    """Found from outside: an opponent who never opened a session after the match began
    was told nowhere until their forfeit 120 s later; the view's connected flag and
    forfeit time were drawn by neither client."""
    shown = view(names=("ann", "bea"))
    them = shown.players[1]
    them.is_bot = False
    them.disconnect_forfeit_time.FromDatetime(datetime(2026, 12, 6, 1, 2, 3))
    lines = drawn(shown)
    fits(lines)
    assert "(bea away: forfeits at 01:02:03 UTC)" in "\n".join(lines)
    # Whole on the status line with a 20-letter name on their turn (found from outside:
    # "...forfeits at 01:2…" with a 9-letter one).
    them.player_name = "b" * 20
    shown.turn_seat = them.seat
    shown.turn_deadline_time.FromDatetime(datetime(2026, 12, 6, 1, 1, 0))
    shown.server_time.FromDatetime(datetime(2026, 12, 6, 1, 0, 1))
    line = next(line for line in drawn(shown) if "'s turn" in line)
    assert f"{'b' * 20}'s turn - 59 s left  (away: forfeits at 01:02:03 UTC)" in line, line
    shown.turn_seat = shown.my_seat  # on her turn the opponent is named
    line = next(line for line in drawn(shown) if "Your turn" in line)
    assert f"Your turn - 59 s left  ({'b' * 20} away: forfeits at 01:02:03 UTC)" in line, line
    them.connected = True
    them.ClearField("disconnect_forfeit_time")
    assert "away: forfeits" not in "\n".join(drawn(shown))


def test_a_rounds_final_board_shows_the_move_that_filled_it() -> None:
    """The round's last move on its final board, its captures by cause, as the board
    showed it when that move was made (before: the final board had no last move)."""
    start = round_two()
    start.round_number, start.status = 2, pb.MATCH_STATUS_IN_PROGRESS
    start.ClearField("last_placement")
    full = view(3, 3, placed=dict.fromkeys(range(9), pb.SEAT_B))
    del start.earlier_rounds[:]
    ended = start.earlier_rounds.add(round_number=1, board=full.board)
    ended.scores.seat_a = ended.scores.seat_b = 5
    plain = "\n".join(drawn(start, typing=""))
    assert "SAME" not in plain, plain
    ended.last_placement.CopyFrom(
        pb.Placement(
            turn_number=9,
            seat=pb.SEAT_B,
            card=full.board[4].card.card,
            cell=4,
            captures=[pb.Capture(cell=1, cause=pb.CAPTURE_CAUSE_SAME)],
        )
    )
    screen = "\n".join(drawn(start, typing=""))
    assert "Round 1's final board (5-5)" in screen and "SAME" in screen, screen


def test_a_missed_turn_warning_on_the_opponents_turn_names_whose_it_is() -> None:
    """Found from outside: after the player's turn was played for them, the opponent's
    turn read "b1p's turn - 45 s left  (one more missed turn forfeits)", as if the
    opponent (b1p) would forfeit; the warning is the viewer's (RULES.md 5)."""
    shown = view()
    shown.turn_seat = pb.SEAT_B
    shown.players[0].missed_turn_warning = True
    line = status_line(shown, None)
    assert line.startswith("[BOT] Bea's turn") and "you missed a turn" in line, line


def test_a_challenge_in_the_lobby_list_says_it_is_one_to_the_viewer() -> None:
    """Found from outside: ``tables`` listed a challenge to the player like any public
    table ("e2650a60  b3p: All Open, 4x4, ..."), with nothing saying only they may join it
    and that they can decline it (RULES.md 14)."""
    table = pb.Table(table_id="e2650a60-x", host_name="ann", challenged_player_name="bea")
    table.settings.rules.CopyFrom(pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN))
    table.settings.random_deck = True
    assert table_row(table).startswith("e2650a60  ann (challenges you): All Open"), table_row(table)


def test_an_opponent_one_miss_from_forfeiting_is_said_on_the_status_line() -> None:
    """Found from outside: the opponent's missed turn was told only in their move's line
    (cut at 80 columns), and never that one more miss forfeits."""
    shown = view(names=("ann", "b" * 20))
    them = shown.players[1]
    them.missed_turn_warning = True
    shown.turn_deadline_time.FromDatetime(datetime(2026, 12, 6, 1, 1, 0))
    shown.server_time.FromDatetime(datetime(2026, 12, 6, 1, 0, 1))
    shown.turn_seat = them.seat
    line = next(line for line in drawn(shown) if "'s turn" in line)
    assert "'s turn - 59 s left  (one more miss forfeits)" in line, line
    shown.turn_seat = shown.my_seat
    line = next(line for line in drawn(shown) if "Your turn" in line)
    assert f"Your turn - 59 s left  ({'b' * 20}: one more miss forfeits)" in line, line
