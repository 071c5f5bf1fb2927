"""`triad-rules solve` as an operator or a test runs it, with malformed input."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

from services.rules import Position, Seat
from services.rules.tests.helpers import Answers, all_at_once, check_error_line
from services.rules.tests.test_solver import brute_force, random_position


def position_json(position: Position, name: str = "p") -> dict[str, Any]:
    board = position.board

    def card(c: Any) -> dict[str, Any]:
        return {"sides": list(c.sides), "element": None if c.element is None else c.element.value}

    return {
        "name": name,
        "rules": {
            "same": board.rules.same,
            "plus": board.rules.plus,
            "combo": board.rules.combo,
            "elemental": board.rules.elemental,
            "same_wall": board.rules.same_wall,
        },
        "cells": [None if m is None else m.value for m in board.marks],
        "board": [
            None if c is None or o is None else card(c) | {"owner": Seat(o).name}
            for c, o in zip(board.cards, board.owners, strict=True)
        ],
        "hands": {s.name: [card(c) for c in position.hands[s]] for s in Seat},
        "to_move": position.to_move.name,
    }


def solve(stdin: str, *flags: str) -> tuple[int, list[dict[str, Any]], str]:
    run = subprocess.run(
        [sys.executable, "-m", "services.rules.cli", "solve", *flags],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    return run.returncode, [json.loads(line) for line in run.stdout.splitlines()], run.stderr


POSITIONS = [random_position(random.Random(100 + i), 4) for i in range(4)]
GOOD = position_json(POSITIONS[0])


def test_solve_prints_the_exact_value_scores_result_and_a_best_move() -> None:
    lines = "\n".join(json.dumps(position_json(p, f"p{i}")) for i, p in enumerate(POSITIONS))
    code, results, stderr = solve(lines + "\n")
    assert code == 0, stderr
    for i, (position, result) in enumerate(zip(POSITIONS, results, strict=True)):
        expected = brute_force(position)
        mover = position.to_move
        assert result["name"] == f"p{i}" and result["to_move"] == mover.name
        assert result["value"] == expected
        assert result["result"] == ("win" if expected > 0 else "loss" if expected < 0 else "draw")
        scores = result["scores"]
        assert scores[mover.name] - scores[mover.other.name] == expected
        assert scores["A"] + scores["B"] == position.score(Seat.A) + position.score(Seat.B)
        best = result["best"]
        after, _ = position.play(best["hand_index"], best["cell"])
        assert -brute_force(after) == expected
        assert best["card"]["sides"] == list(position.hand(mover)[best["hand_index"]].sides)


def test_wdl_gives_the_result_only_and_moves_gives_every_move() -> None:
    position = POSITIONS[1]
    code, (wdl,), _ = solve(json.dumps(position_json(position)), "--wdl")
    assert code == 0
    assert "value" not in wdl and "scores" not in wdl
    expected = brute_force(position)
    assert wdl["result"] == ("win" if expected > 0 else "loss" if expected < 0 else "draw")
    code, (full,), _ = solve(json.dumps(position_json(position)), "--moves")
    assert code == 0
    values = [m["value"] for m in full["moves"]]
    assert values == sorted(values, reverse=True) and values[0] == expected
    for entry in full["moves"]:
        after, _ = position.play(entry["hand_index"], entry["cell"])
        assert entry["value"] == -brute_force(after)


def test_a_pretty_printed_object_or_an_array_of_positions_is_accepted() -> None:
    code, results, _ = solve(json.dumps(GOOD, indent=2))
    assert code == 0 and len(results) == 1 and "value" in results[0]
    code, results, _ = solve(json.dumps([GOOD, GOOD]))
    assert code == 0 and len(results) == 2


def test_card_ids_are_echoed_with_the_best_move() -> None:
    position = dict(GOOD, hands={s: [dict(c, id=f"{s}{i}") for i, c in enumerate(h)]
                                 for s, h in GOOD["hands"].items()})  # fmt: skip
    code, (result,), _ = solve(json.dumps(position))
    assert code == 0
    assert result["best"]["card"]["id"] == f"{GOOD['to_move']}{result['best']['hand_index']}"


def broken(**changes: Any) -> str:
    position = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            position.pop(key, None)
        else:
            position[key] = value
    return json.dumps(position)


MOVER = GOOD["to_move"]
OTHER = "B" if MOVER == "A" else "A"


MALFORMED: list[tuple[str, str]] = [
    ("{not json", "not JSON"),
    # found running these as one file: a line not an object was called "a vector"
    ("[1]", "a position is a JSON object, got list"),
    ('"text"', "a position is a JSON object, got str"),
    (broken(hands=None), "'hands' must be an object"),
    (broken(hands=[]), "'hands' must be an object"),
    (broken(hands={"A": [], "B": [], "C": []}), "seats A and B only, not 'C'"),
    (broken(hands={"A": "five", "B": []}), "'hands.A' must be a list of cards"),
    (
        broken(hands={MOVER: [], OTHER: GOOD["hands"][OTHER]}),
        f"hands.{MOVER} holds 0 cards but must place",
    ),
    (
        broken(hands={MOVER: [{"sides": [1, 1, 1, 11]}] * 3, OTHER: [{"sides": [1] * 4}] * 3}),
        f"hands.{MOVER}[0].sides [1, 1, 1, 11] must each be within 1..10",
    ),
    (
        broken(hands={MOVER: [{"sides": [1, 1, 1, 1], "id": 7}] * 3, OTHER: []}),
        f"hands.{MOVER}[0].id must be a string",
    ),
    (broken(to_move=None), 'to_move must be "A" or "B"'),
    (broken(to_move="C"), 'to_move must be "A" or "B"'),
    (broken(board=[None] * 8), "'board' has 8 entries; the board has 9 cells"),
    (broken(rules={"reverse": True}), "unknown rule 'reverse'"),
    # a Realm position would otherwise be solved silently by the standard rules
    (broken(family="realm"), "solve plays the standard rules only"),
    (broken(family="reallm"), "unknown family 'reallm'"),
    (
        broken(size=[4, 4], board=[None] * 16, cells=None),
        "16 empty cells; solve takes at most 9",
    ),
    (broken(name=3), "'name' must be a string"),
    # json.loads raises a plain ValueError (not JSONDecodeError) past 4300 digits
    (broken(name=4321).replace("4321", "9" * 4400), "not JSON"),
]
"""Malformed lines and words of the error each gets."""


@pytest.fixture(scope="module")
def malformed_run() -> Answers:
    return all_at_once(solve, MALFORMED)


@pytest.mark.parametrize("index", range(len(MALFORMED)), ids=[w for _, w in MALFORMED])
def test_a_malformed_position_gets_an_error_line_naming_the_problem(
    malformed_run: Answers, index: int
) -> None:
    check_error_line(malformed_run, MALFORMED, index)


def test_an_array_of_positions_holding_something_else_names_it() -> None:
    code, results, _ = solve("[1]\n")  # one JSON document: an array of positions
    assert code == 1
    assert [r["error"] for r in results] == ["position 1: a position is a JSON object, got int"]


def test_the_command_goes_on_after_a_bad_line_and_keeps_the_name() -> None:
    bad = broken(to_move="C")
    code, results, _ = solve("\n".join([json.dumps(GOOD), bad, "%%%", json.dumps(GOOD)]) + "\n")
    assert code == 1
    assert [r.get("name") for r in results] == [GOOD["name"], GOOD["name"], None, GOOD["name"]]
    assert "error" in results[1] and "error" in results[2]
    assert results[3]["value"] == results[0]["value"]


def test_json_lines_split_only_at_line_feeds_not_inside_a_string() -> None:
    """JSON allows a raw U+2028 (or form feed) inside a string, and writers that keep
    non-ASCII text (``ensure_ascii=False``) print it so: the line is still one position."""
    lines = [json.dumps(GOOD | {"name": f"p\u2028{i}\x0c"}, ensure_ascii=False) for i in range(2)]
    code, results, _ = solve("\n".join(lines) + "\n")
    assert code == 0
    assert [r["name"] for r in results] == ["p\u20280\x0c", "p\u20281\x0c"]
