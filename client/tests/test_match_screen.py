"""The match screen's words and highlights, drawn from hand-built views: the rules line,
the last move's captures with their causes (written on the cell and on a background of
the cause's colour), what an Elemental mark does to the card on it, why a match ended
and the summary at its end (result, rating change, trade)."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from rich.console import Console
from triad.v1 import common_pb2 as pb

from client.board import FULL, TIGHTEST, board
from client.frame import frame
from client.render import recent_moves, status_line
from client.rules_text import end_reason, match_rules_line, move_words, result_words
from client.summary import summary
from client.tests.views import quintra, view


def drawn(shown: pb.MatchView, rating: pb.RatingChange | None = None) -> list[str]:
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    console.print(
        frame(shown, datetime.now(UTC), None, "", "", None, console, rating=rating), end=""
    )
    return out.getvalue().splitlines()


def captured_by_ann() -> pb.MatchView:
    """Ann's Shiva on the centre took cell 1 by Same and cell 5 by Combo; cell 1 is
    marked water (Chocobo has no element: -1), the centre fire (Shiva has none: -1)."""
    shown = view(
        placed={1: pb.SEAT_A, 4: pb.SEAT_A, 5: pb.SEAT_A},
        rules=pb.Rules(
            visibility=pb.VISIBILITY_ALL_OPEN, same=True, plus=True, combo=True, elemental=True
        ),
    )
    shown.board[1].mark = pb.ELEMENT_WATER
    shown.board[4].mark = pb.ELEMENT_FIRE
    shown.board[1].card.placed_by_seat = shown.board[5].card.placed_by_seat = pb.SEAT_B
    shown.last_placement.CopyFrom(
        pb.Placement(
            turn_number=3,
            seat=pb.SEAT_A,
            card=shown.board[4].card.card,
            cell=4,
            captures=[
                pb.Capture(cell=1, cause=pb.CAPTURE_CAUSE_SAME),
                pb.Capture(cell=5, cause=pb.CAPTURE_CAUSE_COMBO),
            ],
        )
    )
    return shown


def finished(
    reason: pb.FinishReason.ValueType,
    winner: pb.Seat.ValueType | None,
    forfeits: pb.Seat.ValueType = pb.SEAT_UNSPECIFIED,
) -> pb.MatchView:
    shown = view(placed={4: pb.SEAT_A})
    shown.status = pb.MATCH_STATUS_FINISHED
    shown.turn_seat = pb.SEAT_UNSPECIFIED
    shown.players[0].score, shown.players[1].score = 6, 4
    shown.outcome.reason = reason
    shown.outcome.forfeiting_seat = forfeits
    if winner is None:
        shown.outcome.draw.SetInParent()
        shown.players[0].score = shown.players[1].score = 5
    else:
        shown.outcome.winner_seat = winner
    return shown


def test_the_rules_line_says_how_cards_are_placed_and_the_mode() -> None:
    shown = view(rules=pb.Rules(visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True))
    shown.mode = pb.MODE_RANKED
    shown.ladder.ladder = pb.LADDER_RANKED
    assert match_rules_line(shown) == "Rules: Closed, Same, Plus, Combo (Ranked, rated)"
    shown.mode, shown.origin_mode = pb.MODE_PRACTICE, pb.MODE_UNRANKED
    shown.ClearField("ladder")
    assert match_rules_line(shown) == "Rules: Closed, Same, Plus, Combo (Practice, Unranked rules)"
    assert "Rules: Closed, Same, Plus, Combo (Practice" in drawn(shown)[0]


def test_a_realm_tables_rules_line_fits_the_title_with_every_module() -> None:
    """Every Realm module named in full ran past the 80-column title, which was cut
    after 'Alignment Clash,': the modules then go by their short names."""
    rules = pb.Rules(
        visibility=pb.VISIBILITY_ALL_OPEN, same=True, plus=True, combo=True,
        family=pb.RULES_FAMILY_REALM,
        realm=pb.RealmModules(
            type_advantage=True, alignment_clash=True, lair=True, resistance=True, cursed=True
        ),
    )  # fmt: skip
    shown = view(rules=rules)
    line = "Rules: All Open, Same, Plus, Combo, Realm: all modules (Custom)"
    assert match_rules_line(shown) == line
    assert line in drawn(shown)[0]
    shown.rules.realm.cursed = False
    line = "All Open, Same, Plus, Combo, Realm: types,clash,lair,resistance (Custom)"
    assert match_rules_line(shown) == line, "without 'Rules: ' when even that is too long"
    assert line in drawn(shown)[0]
    shown.rules.realm.type_advantage = shown.rules.realm.alignment_clash = False
    assert match_rules_line(shown) == (
        "Rules: All Open, Same, Plus, Combo, Realm, Lair, Resistance (Custom)"
    ), "in full where it fits"


def test_the_last_move_names_each_capture_with_its_cause() -> None:
    screen = "\n".join(drawn(captured_by_ann()))
    assert "You put Shiva on 4: took 1 (Same), 5 (Combo)." in screen
    # On the board: the cause over the captured card's top side.
    assert "2 SAME" in screen and "6 COMBO" in screen
    assert "TAKEN" not in screen and "PLUS" not in screen


def test_captures_of_one_cause_in_a_row_name_it_once() -> None:
    """Found in review: a 4x4 Combo chain's "9 (Combo), 5 (Combo), ..." was cut at 80
    columns; a cause is now named after the last capture of its run."""
    shown = captured_by_ann()
    causes = [pb.CAPTURE_CAUSE_BASIC, *[pb.CAPTURE_CAUSE_COMBO] * 3, pb.CAPTURE_CAUSE_SAME]
    del shown.last_placement.captures[:]
    cells = (1, 5, 7, 3, 0)
    shown.last_placement.captures.extend(
        pb.Capture(cell=cell, cause=cause) for cell, cause in zip(cells, causes, strict=True)
    )
    words = "".join(text for text, _ in move_words(shown, shown.last_placement))
    assert words == "You put Shiva on 4: took 1 (higher side), 5, 7, 3 (Combo), 0 (Same).", words
    # Each captured cell keeps its cause's style.
    tags = [tag for text, tag in move_words(shown, shown.last_placement) if text[:1].isdigit()]
    assert tags == ["TAKEN", "COMBO", "COMBO", "COMBO", "SAME"], tags


def test_a_move_without_captures_and_an_auto_played_one_say_so() -> None:
    shown = view(placed={4: pb.SEAT_B})
    shown.last_placement.seat = pb.SEAT_B
    shown.last_placement.card.CopyFrom(shown.board[4].card.card)
    shown.last_placement.auto_played = True
    screen = "\n".join(drawn(shown))
    assert "[BOT] Bea put Shiva on 4 (time ran out: the server placed it): no capture." in screen


def styles_of(shown: pb.MatchView, words: str, compact: bool = False) -> list[str]:
    """The background colours under ``words`` where the board draws them."""
    console = Console(width=80, color_system="truecolor", file=io.StringIO())
    lines = console.render_lines(board(shown, TIGHTEST if compact else FULL))
    found = []
    for line in lines:
        for segment in line:
            if words in segment.text and segment.style is not None:
                found.append(segment.style.bgcolor.name if segment.style.bgcolor else "")
    return found


def test_captured_cards_stand_on_the_colour_of_their_cause() -> None:
    shown = captured_by_ann()
    assert styles_of(shown, "Chocobo") == ["dark_magenta"], "Same"
    assert styles_of(shown, "Cactuar") == ["dark_orange3"], "Combo"
    assert styles_of(shown, "Shiva") == [""], "the placed card is not a capture"
    shown.last_placement.captures[0].cause = pb.CAPTURE_CAUSE_PLUS
    assert styles_of(shown, "Chocobo") == ["dark_blue"], "Plus"


def test_an_elemental_mark_shows_plus_or_minus_one_on_the_card_it_touches() -> None:
    shown = captured_by_ann()
    screen = "\n".join(drawn(shown))
    assert "water-1" in screen and "fire-1" in screen, "no element: -1"
    ifrit = view(placed={3: pb.SEAT_A}, rules=pb.Rules(elemental=True))  # card 3: fire
    ifrit.board[3].mark = pb.ELEMENT_FIRE
    assert "fire+1" in "\n".join(drawn(ifrit)), "the same element: +1"
    # Compact cells: the +1/-1 between the left and the right side.
    five = quintra()  # cell 6: Tonberry King, fire, on a fire mark
    assert "│4+1 A│" in "\n".join(drawn(five))


@pytest.mark.parametrize(
    ("reason", "winner", "forfeits", "words"),
    [
        (
            pb.FINISH_REASON_BOARD_FULL,
            pb.SEAT_A,
            pb.SEAT_UNSPECIFIED,
            "You win 6-4: the board is full.",
        ),
        (pb.FINISH_REASON_BOARD_FULL, None, pb.SEAT_UNSPECIFIED, "Draw 5-5: the board is full."),
        (pb.FINISH_REASON_FORFEIT, pb.SEAT_B, pb.SEAT_A, "You lose at 6-4: you forfeited."),
        (pb.FINISH_REASON_FORFEIT, pb.SEAT_A, pb.SEAT_B, "You win at 6-4: [BOT] Bea forfeited."),
        (
            pb.FINISH_REASON_TURN_TIMEOUT,
            pb.SEAT_B,
            pb.SEAT_A,
            "You lose at 6-4: you missed two turns in a row.",
        ),
        (
            pb.FINISH_REASON_DISCONNECT,
            pb.SEAT_A,
            pb.SEAT_B,
            "You win at 6-4: [BOT] Bea stayed disconnected past the grace period.",
        ),
        (
            pb.FINISH_REASON_DISCONNECT,
            None,
            pb.SEAT_UNSPECIFIED,
            "Draw at 5-5: both players stayed disconnected past the grace period.",
        ),
    ],
)
def test_the_end_reason_is_told_in_words(
    reason: pb.FinishReason.ValueType,
    winner: pb.Seat.ValueType | None,
    forfeits: pb.Seat.ValueType,
    words: str,
) -> None:
    shown = finished(reason, winner, forfeits)
    assert result_words(shown) == words
    screen = "\n".join(drawn(shown))
    assert words in screen and "_" not in end_reason(shown)


def test_the_summary_gives_the_score_the_rating_change_and_the_trade() -> None:
    shown = finished(pb.FINISH_REASON_BOARD_FULL, pb.SEAT_A)
    shown.ladder.ladder = pb.LADDER_RANKED
    shown.rules.trade_rule = pb.TRADE_RULE_ONE
    change = pb.RatingChange(rating_before=1500, rating_after=1520, delta=20)
    trade = pb.Trade(
        match_id=shown.match_id,
        status=pb.TRADE_STATUS_COMPLETED,
        winner_name="ann",
        chosen_copy_id="c1",
        offered_copies=[pb.OwnedCopy(copy_id="c1", character=pb.Character(name="Ifrit"))],
    )
    assert [str(line) for line in summary(shown, change, trade)] == [
        "You win 6-4: the board is full.",
        "Rating (Ranked): 1500 -> 1520 (+20).",
        "Trade One: Ifrit moved to ann.",
    ]
    # A holographic copy is named so (found from outside: 'Reedling moved to ann' of a
    # holo Reedling, whose loser may own a plain one too).
    trade.offered_copies[0].holo = True
    assert str(summary(shown, change, trade)[2]) == "Trade One: Ifrit (holo) moved to ann."
    lines = drawn(shown, change)
    assert lines[-2:] == [
        "Rating (Ranked): 1500 -> 1520 (+20).",
        "Trade One: triad-client trade or collection shows what moved.",
    ]
    assert "card cell >" not in "\n".join(lines), "no prompt once over"
    unrated = finished(pb.FINISH_REASON_FORFEIT, pb.SEAT_B, pb.SEAT_A)
    assert [str(line) for line in summary(unrated, None, None)][1:] == [
        "Unrated: no rating change.",
        "No trade.",
    ]
    shown.outcome.winner_seat = pb.SEAT_B
    assert str(summary(shown, None, None)[2]) == (
        "Trade One: [BOT] Bea takes one of your cards; triad-client trade shows the "
        "offer until they choose, your collection after."
    )
    assert "not changed yet" in str(summary(shown, None, None)[1])
    # The loser's client ends before the winner chooses (it is not kept waiting): the
    # summary says what happens next, not a "Waiting" the client does not do.
    awaiting = pb.Trade(
        match_id=shown.match_id,
        status=pb.TRADE_STATUS_AWAITING_CHOICE,
        my_role=pb.TRADE_ROLE_GIVER,
        winner_name="[BOT] Bea",
    )
    assert str(summary(shown, None, awaiting)[2]) == (
        "Trade One: [BOT] Bea takes one of your cards; triad-client trade shows the "
        "offer until they choose, your collection after."
    )


def test_a_finished_5x5_match_with_its_summary_fits_80x24() -> None:
    shown = quintra()
    shown.status = pb.MATCH_STATUS_FINISHED
    shown.outcome.winner_seat = pb.SEAT_A
    shown.outcome.reason = pb.FINISH_REASON_BOARD_FULL
    lines = drawn(shown)
    # a row left for the shell's prompt (found from outside: at a Sudden Death table the
    # frame took all 24 and the prompt scrolled the rules line away): the round beside
    # the scores
    assert len(lines) <= 23 and max(map(len, lines)) <= 80, "\n".join(lines)
    assert "Rules:" in lines[0] and "Round 1 of at most 5" in lines[1], "\n".join(lines)
    assert "You win 13-13: the board is full." in "\n".join(lines)
    assert lines[-1] == "Trade Direct: no card on the board changed sides, so none moves."


def test_a_direct_match_whose_board_kept_its_colours_says_nothing_moves() -> None:
    """Found from outside: a Direct match that ended with every card its placer's said
    'triad-client trade or collection shows what moved', and `trade` then said 'No
    pending trade': the player went looking for a move there was none of."""
    shown = finished(pb.FINISH_REASON_BOARD_FULL, pb.SEAT_A)
    shown.rules.trade_rule = pb.TRADE_RULE_DIRECT
    assert str(summary(shown, None, None)[2]) == (
        "Trade Direct: no card on the board changed sides, so none moves."
    )
    taken = next(c for c in shown.board if c.WhichOneof("content") == "card")
    taken.card.owner_seat = pb.SEAT_B if taken.card.placed_by_seat == pb.SEAT_A else pb.SEAT_A
    assert str(summary(shown, None, None)[2]) == (
        "Trade Direct: triad-client trade or collection shows what moved."
    )


def test_the_players_move_stays_told_after_the_opponents_quick_answer() -> None:
    """A bot answers within a second: the screen tells both moves, the player's first,
    the board highlighting the newest only; a move of an earlier round is not told."""
    mine = captured_by_ann().last_placement  # turn 3: took 1 (Same), 5 (Combo)
    shown = captured_by_ann()
    answer = view(placed={0: pb.SEAT_B}).board[0]
    shown.board[0].CopyFrom(answer)
    shown.board[0].index = 0
    shown.last_placement.CopyFrom(
        pb.Placement(turn_number=4, seat=pb.SEAT_B, card=answer.card.card, cell=0)
    )
    old_round = pb.Placement(turn_number=1, seat=pb.SEAT_B, card=answer.card.card, cell=8)
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    console.print(
        frame(shown, datetime.now(UTC), None, "", "", None, console, seen=[old_round, mine])
    )
    lines = out.getvalue().splitlines()
    told = [line.strip("│ ").rstrip(" │") for line in lines if " put " in line]
    assert told == [
        "You put Shiva on 4: took 1 (Same), 5 (Combo).",
        "[BOT] Bea put Quistis Trepe on 0: no capture.",
    ], "\n".join(lines)
    assert "SAME" not in "\n".join(lines), "the board highlights the newest move only"
    # Round 2 of a Sudden Death match, two cards down (turns 10 and 11): turn 9 was
    # round 1's last move.
    second = view(placed={0: pb.SEAT_A, 4: pb.SEAT_B}, rules=pb.Rules(sudden_death=True))
    second.last_placement.turn_number = 11
    moves = [pb.Placement(turn_number=n) for n in (9, 10)]
    assert [m.turn_number for m in recent_moves(second, moves)] == [10, 11]


@pytest.mark.parametrize(
    "note",
    [
        "You missed your turn and a card was played for you; miss the next one too and "
        "you forfeit.",
        "annabelle-the-bold lost their connection; they forfeit unless they are back by "
        "01:02:03 UTC.",
    ],
)
def test_a_5x5_match_with_a_long_notice_still_shows_its_board_in_80x24(note: str) -> None:
    """Found from outside: on a 5x5 board the turn-missed notice (or an opponent's
    disconnection, with a name longer than six letters) took two lines, and the board
    gave way to 'This terminal is 80x24: the match needs at least 78x25'."""
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    console.print(frame(quintra(), datetime.now(UTC), None, "", note, None, console), end="")
    lines = out.getvalue().splitlines()
    assert "needs at least" not in out.getvalue(), "\n".join(lines)
    assert len(lines) <= 24 and max(map(len, lines)) <= 80, "\n".join(lines)
    assert any(line.startswith(note[:40]) for line in lines), "\n".join(lines)


def test_a_draw_after_the_last_round_of_sudden_death_says_that_round_tied_too() -> None:
    """RULES.md 12: at most five rounds, a tie after the fifth is a draw. Found from
    outside: "Draw 13-13: the board is full." did not say why no round followed."""
    ties = ((5, 5),) * 4
    last = view(rules=pb.Rules(sudden_death=True), round_number=5, earlier=ties)
    last.status = pb.MATCH_STATUS_FINISHED
    last.outcome.CopyFrom(pb.MatchOutcome(reason=pb.FINISH_REASON_BOARD_FULL))
    last.outcome.draw.SetInParent()
    said = status_line(last, None)
    assert said.endswith("the board is full; round 5 tied too: the draw stands."), said
    assert len(said) <= 80, said
    del last.earlier_rounds[:]  # no Sudden Death round before: a plain draw
    assert status_line(last, None).endswith("the board is full."), status_line(last, None)
