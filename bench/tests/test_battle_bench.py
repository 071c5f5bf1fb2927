"""Smoke test of the Skirmish benchmark: a quick run writes a complete report (turn rate,
balance per character, strength per level pair). The figures mean nothing at this size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS, main
from bench.battle import BATTLES_ENV
from services.battle.rules import load_roster


def test_quick_battle_run_writes_turns_balance_and_strength(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert BENCHMARKS["battle"] == "bench.battle"
    monkeypatch.setenv(BATTLES_ENV, "6")
    assert main(["battle", "--quick", "--out", str(tmp_path), "--no-pin"]) == 0
    data = json.loads((tmp_path / "battle-latest-quick.json").read_text(encoding="utf-8"))
    assert data["results"]["turn_resolve"]["best"] > 0
    assert (
        data["targets"][0]["metric"] == "turn_resolve" and data["targets"][0]["minimum"] == 10_000
    )
    balance = data["extra"]["balance"]
    assert balance["battles"] == 6 and set(balance["win_rate"]) <= set(load_roster().characters)
    assert sum(balance["games"].values()) == 6 * 6
    assert set(data["extra"]["strength"]) == {"greedy_vs_random", "search_vs_greedy"}
    assert all(0 <= s["score"] <= 1 for s in data["extra"]["strength"].values())
