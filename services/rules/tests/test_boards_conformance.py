"""Larger-board vectors (``vectors/boards.jsonl``): 4x4 and 5x5 boards with blocked cells.

Each vector's ``note`` works its outcome by hand from RULES.md sections 4 and 11: a
blocked cell's side as board edge for Same Wall, Same and Plus beside or beyond blocked
cells, Combo chains going round them, Elemental marks, every edge and corner, a move
walled in by blocked cells. A vector whose ``expect`` is ``{"error": true}`` is
malformed (blocked cell off the board, a card or the move on a blocked cell, a board
that is not rows x columns) and must get the format's error line. Every vector runs
through the function and through ``triad-rules resolve`` as a checker runs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.rules.errors import RuleViolation
from services.rules.tests.helpers import run_resolve
from services.rules.vectors import VectorError, parse_vector, result_json, run_vector

BOARDS = Path(__file__).parent / "vectors" / "boards.jsonl"
VECTORS = [json.loads(line) for line in BOARDS.read_text().splitlines() if line.strip()]


def _malformed(vector: dict[str, Any]) -> bool:
    return "error" in vector["expect"]


def _resolve(text: str) -> tuple[int, list[dict[str, Any]], str]:
    run = run_resolve(text)
    return run.returncode, [json.loads(line) for line in run.stdout.splitlines()], run.stderr


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in VECTORS])
def test_board_vector(vector: dict[str, Any]) -> None:
    if _malformed(vector):
        with pytest.raises((VectorError, RuleViolation)):
            parse_vector(vector)
        return
    board, placement = run_vector(parse_vector(vector))
    got = result_json(vector["name"], board, placement)
    assert got["owners"] == vector["expect"]["owners"]
    assert got["captures"] == vector["expect"]["captures"]


def test_every_board_vector_is_a_worked_larger_board() -> None:
    names = [v["name"] for v in VECTORS]
    assert len(set(names)) == len(names)
    for vector in VECTORS:
        assert vector["size"] in ([4, 4], [5, 5]) or _malformed(vector), vector["name"]
        assert len(vector["note"]) > 20, vector["name"]
    worked = [v for v in VECTORS if not _malformed(v)]
    assert len(worked) >= 30
    assert sum(bool(v.get("blocked")) for v in worked) >= 30


def test_resolve_command_reproduces_every_board_vector() -> None:
    """The whole file through the command: one line per vector in order, the error
    line for each malformed one (exit 1 because there are some), the outcome for the
    rest."""
    code, results, stderr = _resolve(BOARDS.read_text())
    assert code == 1
    assert "Traceback" not in stderr
    assert [r["name"] for r in results] == [v["name"] for v in VECTORS]
    for vector, result in zip(VECTORS, results, strict=True):
        if _malformed(vector):
            assert set(result) == {"name", "error"}, vector["name"]
            assert isinstance(result["error"], str) and result["error"], vector["name"]
        else:
            assert "error" not in result, (vector["name"], result)
            assert result["owners"] == vector["expect"]["owners"], vector["name"]
            assert result["captures"] == vector["expect"]["captures"], vector["name"]


def test_the_well_formed_board_vectors_alone_exit_zero() -> None:
    good = "".join(json.dumps(v) + "\n" for v in VECTORS if not _malformed(v))
    code, results, _ = _resolve(good)
    assert code == 0
    assert all("error" not in r for r in results)
