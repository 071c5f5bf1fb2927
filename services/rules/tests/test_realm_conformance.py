"""The public Realm vectors (``shared/conformance/realm.jsonl``), through the function
and through ``triad-rules resolve`` as a checker runs it, mixed with standard vectors;
and our own hand-worked Realm vectors (``vectors/realm_ours.jsonl``: module
interactions, Ward and Resistance then a later attempt, unclamped values, 4x4 with
blocked cells), each worked out from RULES.md section 17 in its ``note``.

shared/'s files are read when they are beside us (they may have grown); otherwise the
copies in ``vectors/`` (``realm_public.jsonl``, ``public.jsonl``), so a lone clone runs
them too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.rules.realm.vectors import (
    parse_realm_vector,
    realm_result_json,
    run_realm_vector,
)
from services.rules.tests.helpers import run_resolve

CONFORMANCE = Path(__file__).resolve().parents[3].parent / "shared" / "conformance"
VECTORS = Path(__file__).resolve().parent / "vectors"


def _source(shared: str, copy: str) -> Path:
    return CONFORMANCE / shared if (CONFORMANCE / shared).exists() else VECTORS / copy


REALM = _source("realm.jsonl", "realm_public.jsonl")
STANDARD = _source("placement.jsonl", "public.jsonl")
OURS = VECTORS / "realm_ours.jsonl"


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    "vector", [pytest.param(v, id=v["name"]) for v in _load(REALM) + _load(OURS)]
)
def test_realm_vector(vector: dict[str, Any]) -> None:
    board, placement = run_realm_vector(parse_realm_vector(vector))
    got = realm_result_json(vector["name"], board, placement)
    assert got["owners"] == vector["expect"]["owners"]
    assert got["captures"] == vector["expect"]["captures"]


def test_resolve_command_reproduces_every_public_realm_vector_among_standard_ones() -> None:
    """Realm and standard lines interleaved: each is resolved by its own family."""
    realm, standard = _load(REALM), _load(STANDARD)
    vectors = [v for pair in zip(realm, standard, strict=False) for v in pair]
    vectors += realm[len(standard) :] + standard[len(realm) :]
    run = run_resolve("".join(json.dumps(v) + "\n" for v in vectors))
    assert run.returncode == 0, run.stderr
    results = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["name"] for r in results] == [v["name"] for v in vectors]
    for vector, result in zip(vectors, results, strict=True):
        assert set(result) == {"name", "owners", "captures"}, vector["name"]
        assert result["owners"] == vector["expect"]["owners"], vector["name"]
        assert result["captures"] == vector["expect"]["captures"], vector["name"]
