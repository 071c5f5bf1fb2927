"""Golden turns: each file in ``golden/`` holds a turn's input (battle, plans, first) on
the test roster and the exact output ``triad-battle resolve`` gave when its log was
checked by hand. Any change to the rules' results or to the JSON shows up here; a bug
found later becomes a new file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.battle.cli import resolve_json
from services.battle.rules.tests.helpers import ROSTER

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_golden_turn_resolves_to_its_recorded_output(path: Path) -> None:
    vector = _load(path)
    assert resolve_json(ROSTER, vector["input"]) == vector["expect"], vector["name"]


def test_there_is_at_least_one_golden_turn() -> None:
    assert GOLDEN
