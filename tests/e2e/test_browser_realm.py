"""What an outside review of Realm matches in the browser found, played in a real browser
(web/e2e/realm_view.mjs) on a phone (390x844) and at a desk (1280x800). The helpers (and
what is skipped where Chromium or npm are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from devtools.stack import Stack
from tests.e2e.test_browser import RESULTS, backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

TAG = re.compile(r"\w{3} [LNC][GNE]( ★)?")
HEXES = {"ward", "ember", "rot", "silence", "bind"}


def check_tags(seen: dict[str, Any]) -> None:
    """Every Realm tag on the page reads as one ("Dra CE ★"), in type of 9 px or more,
    whole, inside its card and over none of its values, name, hex or Rot."""
    for tag in seen["tags"]:
        assert TAG.fullmatch(tag["text"]), tag
        assert tag["px"] >= 9, (seen["width"], tag)
        assert tag["whole"] and tag["contained"], (seen["width"], tag)
        assert tag["overlaps"] == [], f"{seen['width']} {tag}"


def test_realm_cards_keep_a_readable_tag_in_hand_and_on_the_board(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: the type and alignment tag was 5.6 px on a phone (6.8 at a
    desk) and ran out of its 14 px box; placed cards lost it (and the Legendary ★), so
    nobody could tell whether Type Advantage, Clash or Resistance applied on the board;
    the rules line said "Sudden Death" where RULES.md 17 plays Realm Sudden Death; the
    cards showed their element, which no Realm table plays."""
    played = play(backend, "realmFaces", tmp_path / "browser-realm-faces.png")
    assert played["placed"] == 6, played
    for moment in ("start", "played"):
        for seen in played[moment]:
            check_tags(seen)
            assert seen["elements"] == [], seen
            rules = seen["rules"]
            assert "Realm Sudden Death" in rules, rules
            assert "Sudden Death" not in rules.replace("Realm Sudden Death", ""), rules
    for seen in played["start"]:  # eight cards a hand, each tagged
        assert sum(tag["where"] == "hand" for tag in seen["tags"]) == 8, seen
    for seen in played["played"]:  # every placed card keeps its tag on the board
        assert seen["placed"] == 6, seen
        assert sum(tag["where"] == "board" for tag in seen["tags"]) == 6, seen
        assert sum(tag["where"] == "hand" for tag in seen["tags"]) == 5, seen
    assert [seen["width"] for seen in played["played"]] == [390, 1280]


def test_a_practice_against_a_bot_plays_a_realm_table_with_the_modules_ticked(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: the browser's practice was always Unranked, where the API
    takes a practice with Realm rules (Custom). Without a saved deck it deals house hands
    (RULES.md 11, 17: a Realm table plays no Random decks)."""
    played = play(backend, "realmPractice", tmp_path / "browser-realm-practice.png")
    rules = played["rules"]
    assert all(word in rules for word in ("Realm", "Lair", "Cursed", "house hands")), rules
    assert "Type Advantage" not in rules and "Resistance" not in rules, rules
    assert played["hand"] == 5 and len(played["tags"]) == 5, played
    assert all(TAG.fullmatch(tag) for tag in played["tags"]), played
    assert played["lairOffered"] == 1, played  # the module ticked is played
    assert played["hexes"] and set(played["hexes"]) <= HEXES, played
    assert any(line.startswith("Lair spent:") for line in played["lines"]), played
    assert played["result"].startswith("You lost") and "forfeited" in played["result"], played


COMPARISON = re.compile(r", (-?\d+) v (-?\d+)(?: \(([^()]*)\))?")
MODIFIER = re.compile(r"([+−]\d+) (Type|Guard|Lair|Ember|Rot|Bind|Clash)")


def modifiers_add_up(line: str) -> list[str]:
    """Each comparison told in ``line`` ("Ifrit beat Shiva, 12 v 8 (10 +1 Lair +1 Clash
    v 8)"): each side's printed value and its modifiers add up to the value compared.
    The modifiers named, in order."""
    named: list[str] = []
    for attack, defence, said in COMPARISON.findall(line):
        if not said:
            continue
        sides = said.split(" v ")
        assert len(sides) == 2, line
        for value, side in zip((attack, defence), sides, strict=True):
            printed, _, rest = side.partition(" ")
            amounts = MODIFIER.findall(rest)
            assert MODIFIER.sub("", rest).strip() == "", line  # nothing else said
            total = int(printed) + sum(int(amount.replace("−", "-")) for amount, _ in amounts)
            assert total == int(value), line
            named += [word for _, word in amounts]
    return named


def test_a_comparisons_modifiers_are_told_and_no_hex_covers_a_value(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: the last move said "Ifrit beat Shiva, 12 v 8" and not which
    modifiers made it 12 (the terminal: '6>5 11v4 (9 +1 type +1 clash v 4)'); and on a
    4×4 board a hex ("silence") or Rot mark covered the card's top value, on a phone and
    at a desk. Lair declared beside an enemy card makes a comparison with +1 Lair certain."""
    played = play(backend, "realmTold", tmp_path / "browser-realm-told.png")
    desk = "browser-realm-told-desk.png"
    shutil.copyfile(tmp_path / desk, RESULTS / desk)
    assert played["moves"] == 16, played
    for seen in played["lair"]:  # the Lair's comparison, on the phone and at the desk
        last = [line for line in seen["lines"] if line.startswith("Last move: Lair")]
        assert last and "Lair" in modifiers_add_up(last[0]), seen["lines"]
    for line in played["lines"]:
        modifiers_add_up(line)
    for seen in played["lair"] + played["end"]:  # a desk's match is in its window
        assert seen["across"] and (seen["inWindow"] or seen["width"] < 1280), seen
    assert [seen["width"] for seen in played["end"]] == [390, 1280, 1280, 390]
    marks = played["marks"] + [mark for seen in played["end"] for mark in seen["marks"]]
    assert {mark["width"] for mark in marks} == {390, 1280}, marks
    for mark in marks:
        assert mark["text"] in HEXES or re.fullmatch(r"rot −\d+", mark["text"]), mark
        assert mark["whole"] and mark["contained"], mark
        assert mark["overlaps"] == [], mark
