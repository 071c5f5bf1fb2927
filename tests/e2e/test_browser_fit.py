"""What fits a desk's 1280x720 window without scrolling, in a real browser
(web/e2e/fit.mjs): the board, the hand and Forfeit on every board, with a missed turn's
banner too, and the winner's pick after a reload; and a 5x5 board across a phone. The
backend's turn lasts 4 s (a missed turn comes quickly). The helpers (and what is skipped
where Chromium or npm are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from devtools.stack import Overrides, Stack
from tests.e2e.sessions import granted_deck, join
from tests.e2e.test_browser import backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

STACK_OVERRIDES: Overrides = {
    "match": {"TRIAD_TURN_SECONDS": "4", "TRIAD_TIMER_POLL_SECONDS": "0.2"}
}
"""This module's settings for its backend (test_browser.py's ``backend``)."""


def in_window(seen: dict[str, Any], *parts: str) -> None:
    """Each part ends inside the window, and the page does not scroll."""
    for part in parts:
        assert 0 < seen[part] <= seen["height"], (part, seen)
    assert seen["scrollHeight"] <= seen["height"], seen


def test_board_hand_and_forfeit_fit_a_1280x720_window_on_5x5_and_4x4(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: on 5x5 the hand started below the window (y=737), on 4x4 its
    second row and Forfeit were off it."""
    played = play(backend, "fits", tmp_path / "browser-fits.png")
    for board in ("5", "4"):
        for seen in played[board]:
            in_window(seen, "board", "hand", "forfeit")
            assert seen["boardWidth"] >= 250, seen  # still a board to play on
    phone = played["phone"]  # and nothing breaks on a phone
    assert phone["scrollWidth"] <= phone["width"] and phone["right"] <= phone["width"], phone


def test_a_missed_turns_banner_leaves_board_and_hand_in_the_window(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "missedFit", tmp_path / "browser-missed-fit.png")
    assert "missed your turn" in played["notice"], played
    in_window(played, "board", "hand", "forfeit")


def test_the_winners_pick_is_in_the_window_at_the_end_and_after_a_reload(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: after a reload the Difference pick sat below Log out."""
    played = play(backend, "pickFit", tmp_path / "browser-pick-fit.png")
    in_window(played["atEnd"], "pick", "board")
    # Reloaded, the lobby (long as it is) comes with the pick on top, in view at once.
    reloaded = played["reloaded"]
    assert 0 < reloaded["pick"] <= reloaded["height"], reloaded


def test_the_winners_pick_counts_down_its_two_minutes(backend: Stack, tmp_path: Path) -> None:
    """RULES.md 7 and 13: the winner has 2 minutes, then the server picks at random;
    found from outside: no clock was shown."""
    played = play(backend, "pickFit", tmp_path / "browser-pick-clock.png")
    clock = played["clock"]
    assert clock and "at random" in clock["text"], played
    left = int(clock["left"].removesuffix(" s"))
    assert 100 < left <= 120, clock


def test_the_match_rules_line_names_the_board_blocked_cells_and_house_hands(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: a 4x4 house-hands table played under "three open · Same ·
    Plus · Combo · Elemental · No trade", where the lobby's listing said it all."""
    played = play(backend, "fits", tmp_path / "browser-fits-rules.png")
    # The mode first (found from outside: a practice from the Ranked queue looked Ranked).
    assert played["rules5"].startswith("Custom · 5×5 · 2 blocked · three open"), played
    assert played["rules4"].startswith("Custom · 4×4 · three open"), played
    for board in ("5", "4"):
        assert played[f"rules{board}"].endswith("No trade · house hands"), played


def test_a_card_on_a_marked_cell_shows_both_elements_and_its_plus_or_minus_one(
    backend: Stack, tmp_path: Path
) -> None:
    """RULES.md 4: a card on a marked cell gains 1 on every side when the elements match,
    loses 1 otherwise. Found from outside: the cell's element was drawn over the card's,
    and nothing told an adjusted value from a printed one."""
    played = play(backend, "elementalCell", tmp_path / "browser-elemental.png")
    mark, element = played["mark"], played["cardElement"]
    words = played["text"].split()
    assert mark in words, played
    assert (element in words) if element else True, played
    assert ("+1" if element == mark else "-1") in words, played
    assert played["overlaps"] == [], played


def test_a_capture_badge_leaves_the_cards_values_readable(backend: Stack, tmp_path: Path) -> None:
    """Found from outside: on 4x4 cells the "combo" and "basic" badges covered the card's
    top value."""
    played = play(backend, "badges", tmp_path / "browser-badges.png")
    assert played["badges"] > 0, played  # a capture was made, and marked
    assert played["found"] == [], played
    # Found from outside: a capture by a higher side read "basic", a word of the code.
    assert set(played["words"]) <= {"same", "plus", "combo", "taken"}, played


def test_card_names_in_a_5x5_elemental_hand_are_whole_on_a_phone(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: on a phone a 5x5 hand's card names were cut to three to five
    letters and an ellipsis ("Gloo...", "The Pa..."), the full name only a title no touch
    shows. A name now wraps over the lines its card has."""
    played = play(backend, "names", tmp_path / "browser-names.png")
    assert {"hand", "theirs", "board"} <= set(played["shown"]), played
    assert played["cut"] == [], played
    # Found from outside: a 20-letter name wrapped the scores line, and Bea's own score
    # fell next to the opponent's. Each score now stays on its name's line.
    scores = played["scores"]
    assert scores["paired"] and scores["apart"], played
    assert played["widths"] == [0, 0], played  # neither page wider than the phone
    mine, theirs = scores["text"]
    assert re.fullmatch(r"web\w{8} \d+", mine) and re.fullmatch(r"\d+ Wm{11}\w{8}", theirs), played


LONG_NAMES = (
    # The catalog's longest names, two 5x5 decks of them (RULES.md 11: two 5-star and
    # five 4-star-or-higher at most): 28 letters ("Vaskarath the Glacier Throne") to 17.
    ["chr-102", "chr-109", "chr-087", "chr-100", "chr-085", "chr-076", "chr-044",
     "chr-043", "chr-082", "chr-050", "chr-081", "chr-036", "chr-063"],
    ["chr-105", "chr-111", "chr-093", "chr-088", "chr-095", "chr-040", "chr-045",
     "chr-053", "chr-062", "chr-064", "chr-065", "chr-066", "chr-069"],
)  # fmt: skip


def test_the_longest_names_are_whole_and_clear_of_the_values_at_a_desk_and_on_a_phone(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: "Aldebrand the Unsleeping" on a 5x5 board's marked cell at a
    desk ran over its card's values above and below. Two players bring decks of the
    catalog's longest names (granted by an operator) to a 5x5 Elemental table; on the
    board and in the hands, at a desk's window and a phone's, every name is shown whole
    and no text of a card or its cell covers another."""

    async def registered() -> list[str]:
        async with backend.channel() as channel:
            players = [await join(backend.api(channel)) for _ in LONG_NAMES]
            for player, deck in zip(players, LONG_NAMES, strict=True):
                await granted_deck(backend, player, deck, name="Long names")
            return [player.name for player in players]

    played = play(backend, "longNames", tmp_path / "browser-long-names.png",
                  {"names": asyncio.run(registered())})  # fmt: skip
    assert played["placed"] >= 3, played  # long names on the board, not only in hands
    for size in ("desk", "phone"):
        seen = played[size]
        assert seen["faces"] >= 13 + 3, seen
        assert seen["cut"] == [] and seen["overlaps"] == [], (size, seen)
        # Found from outside: words broke mid-word ("Lightning Cartograp/her").
        assert seen["broken"] == [], (size, seen)
