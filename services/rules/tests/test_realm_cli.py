"""`triad-rules resolve` with malformed Realm vectors: one error line naming the problem
each, and the command goes on (shared/conformance/README.md, "Realm vectors")."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from services.rules.cli import resolve_lines
from services.rules.tests.helpers import run_resolve

PLANT = {"sides": [1, 1, 5, 1], "type": "plant", "alignment": ["neutral", "neutral"]}
GOOD: dict[str, Any] = {
    "name": "realm-good",
    "family": "realm",
    "size": [3, 3],
    "rules": {"cursed": True, "resistance": True},
    "board": [None, {**PLANT, "legendary": False, "owner": "B"}, *([None] * 7)],
    "resistance_spent": {"A": False, "B": False},
    "move": {
        "player": "A",
        "cell": 4,
        "card": {**PLANT, "sides": [6, 1, 1, 1], "type": "ooze", "legendary": False},
    },
}


def broken(path: str, value: object) -> str:
    vector = json.loads(json.dumps(GOOD))
    *parents, leaf = path.split(".")
    target: Any = vector
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is ...:
        del target[leaf]
    elif isinstance(target, list):
        target[int(leaf)] = value
    else:
        target[leaf] = value
    return json.dumps(vector)


def answer(lines: list[str]) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    failed = resolve_lines([line + "\n" for line in lines], out)
    return failed, [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_good_vector_resolves() -> None:
    failed, [result] = answer([json.dumps(GOOD)])
    assert failed == 0
    assert result == {
        "name": "realm-good",
        "owners": [None, "A", None, None, "A", None, None, None, None],
        "captures": {"1": "basic"},
    }


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (broken("family", "chess"), "unknown family 'chess'"),
        (broken("rules", {"cursed": True, "elemental_fury": True}), "unknown Realm rule"),
        (broken("rules", {"lair": 1}), "rule 'lair' must be true or false"),
        (broken("board.1.type", "goblin"), "board[1].type: unknown creature type 'goblin'"),
        (broken("board.1.type", ...), "board[1].type: unknown creature type None"),
        (broken("move.card.type", "Dragon"), "move.card.type: unknown creature type"),
        (broken("board.1.alignment", ["good", "lawful"]), "board[1].alignment must be two words"),
        (broken("board.1.alignment", "lawful good"), "board[1].alignment must be two words"),
        (broken("move.card.legendary", "yes"), "move.card.legendary must be true or false"),
        (broken("board.1.hex_spent", 1), "board[1].hex_spent must be true or false"),
        (broken("board.1.rot", -1), "board[1].rot must be a whole number"),
        (broken("board.1.rot", 1.5), "board[1].rot must be a whole number"),
        (broken("resistance_spent", {"A": "no"}), "resistance_spent.A must be true or false"),
        (broken("resistance_spent", {"C": True}), "resistance_spent has unknown seats"),
        (broken("resistance_spent", [False, False]), "'resistance_spent' must be an object"),
        (broken("move.lair", "yes"), "move.lair must be true or false"),
        (broken("move.cell", 1), "cell 1 already holds a card"),
        (broken("board.1.sides", [1, 1, 11, 1]), "board[1].sides [1, 1, 11, 1] must each be"),
        (broken("board", [None] * 16), "'board' has 16 entries; the board has 9 cells"),
        (broken("move.player", "C"), 'move.player must be "A" or "B"'),
        (broken("cells", "fire"), "'cells' must be a list of 9 entries"),
        (broken("cells", [None] * 4), "'cells' has 4 entries; the board has 9 cells"),
        (broken("cells", ["lava"] * 9), "cells[0]: unknown element 'lava'"),
    ],
)
def test_a_malformed_realm_vector_gets_an_error_line_naming_the_problem(
    line: str, words: str
) -> None:
    failed, [result] = answer([line])
    assert failed == 1
    assert result["name"] == "realm-good"
    assert words in result["error"]


@pytest.mark.parametrize("mark", ["legendary", "alignment"])
def test_a_card_without_a_mark_is_the_plain_card(mark: str) -> None:
    """As a missing ``element`` is no element: no ``legendary`` is not Legendary (the
    resistance cancels nothing) and no ``alignment`` is Neutral Neutral."""
    line = broken(f"board.1.{mark}", ...)
    failed, [result] = answer([line])
    assert failed == 0
    assert result["captures"] == {"1": "basic"}


def test_a_legendary_card_resists_where_the_plain_one_is_taken() -> None:
    """The counterpart of the test above: the same capture with the mark given."""
    failed, [result] = answer([broken("board.1.legendary", True)])
    assert failed == 0
    assert result["captures"] == {}


def test_well_formed_cells_and_the_standard_rules_do_nothing_at_a_realm_table() -> None:
    """Realm plays instead of Elemental and has no Same Wall (RULES.md section 17): marks
    on the cells and the standard rules' keys are accepted and change nothing."""
    vector = json.loads(broken("cells", ["fire"] * 9))
    vector["rules"].update(elemental=True, same_wall=True)
    failed, [result] = answer([json.dumps(vector)])
    assert failed == 0
    assert result["captures"] == {"1": "basic"}


def test_a_byte_order_mark_before_the_first_line_is_no_error() -> None:
    failed, [result] = answer(["\ufeff" + json.dumps(GOOD)])
    assert failed == 0
    assert result["captures"] == {"1": "basic"}


def test_the_command_exits_non_zero_and_goes_on_after_a_bad_realm_line() -> None:
    bad = broken("board.1.type", "goblin")
    run = run_resolve("\n".join([bad, json.dumps(GOOD)]) + "\n")
    assert run.returncode == 1
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert "error" in first
    assert second["captures"] == {"1": "basic"}
    assert "Traceback" not in run.stderr


def test_an_optional_realm_field_written_null_reads_as_left_out() -> None:
    """As for standard vectors: a null ``resistance_spent`` (or seat in it),
    ``hex_spent``, ``rot``, ``legendary``, ``lair`` or rule is the field left out."""
    nulls = json.loads(json.dumps(GOOD))
    nulls["resistance_spent"] = None
    nulls["rules"]["lair"] = None
    nulls["board"][1].update(hex_spent=None, rot=None, legendary=None)
    nulls["move"]["lair"] = None
    seat_null = json.loads(broken("resistance_spent", {"A": None, "B": None}))
    failed, results = answer([json.dumps(nulls), json.dumps(seat_null), json.dumps(GOOD)])
    assert failed == 0
    assert results[0] == results[1] == results[2]
