"""Golden placement vectors: the public ones, our own, and shared/'s when it is beside us.

Each vector is one test named after it. Every rules bug found becomes a new vector in
``vectors/ours.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.rules.tests.helpers import run_resolve
from services.rules.vectors import parse_vector, result_json, run_vector

HERE = Path(__file__).parent / "vectors"
SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "placement.jsonl"


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _all_vectors() -> list[Any]:
    seen: dict[str, dict[str, Any]] = {}
    for path in (HERE / "public.jsonl", HERE / "ours.jsonl"):
        for vector in _load(path):
            seen[vector["name"]] = vector
    if SHARED.exists():
        for vector in _load(SHARED):
            seen[vector["name"]] = vector
    return [pytest.param(v, id=name) for name, v in seen.items()]


@pytest.mark.parametrize("vector", _all_vectors())
def test_vector(vector: dict[str, Any]) -> None:
    board, placement = run_vector(parse_vector(vector))
    got = result_json(vector["name"], board, placement)
    assert got["owners"] == vector["expect"]["owners"]
    assert got["captures"] == vector["expect"]["captures"]


def test_resolve_command_reproduces_every_public_vector() -> None:
    """The command as a checker runs it: JSON Lines in, one result line per vector out."""
    source = SHARED if SHARED.exists() else HERE / "public.jsonl"
    vectors = _load(source)
    run = run_resolve(source.read_text())
    assert run.returncode == 0, run.stderr
    results = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["name"] for r in results] == [v["name"] for v in vectors]
    for vector, result in zip(vectors, results, strict=True):
        assert result["owners"] == vector["expect"]["owners"], vector["name"]
        assert result["captures"] == vector["expect"]["captures"], vector["name"]
