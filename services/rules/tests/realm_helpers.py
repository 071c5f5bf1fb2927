"""Cards and one-placement runs for the Realm rule tests (test_realm_*.py)."""

from __future__ import annotations

from typing import Any

from services.rules.realm import RealmBoard, RealmPlacement
from services.rules.realm.vectors import parse_realm_vector, run_realm_vector

N = ["neutral", "neutral"]


def card(
    sides: tuple[int, int, int, int],
    kind: str = "plant",
    owner: str | None = None,
    alignment: list[str] = N,
    legendary: bool = False,
    **state: Any,
) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "sides": list(sides),
        "type": kind,
        "alignment": alignment,
        "legendary": legendary,
        **state,
    }
    if owner is not None:
        raw["owner"] = owner
    return raw


def play(
    board: dict[int, dict[str, Any]],
    cell: int,
    placed: dict[str, Any],
    *modules: str,
    player: str = "A",
    size: tuple[int, int] = (3, 3),
    blocked: tuple[int, ...] = (),
    resistance_spent: dict[str, bool] | None = None,
    lair: bool = False,
) -> tuple[RealmBoard, RealmPlacement]:
    """One placement written as a Realm vector, parsed and resolved."""
    cells = size[0] * size[1]
    raw = {
        "name": "t",
        "family": "realm",
        "size": list(size),
        "blocked": list(blocked),
        "rules": dict.fromkeys(modules, True),
        "board": [board.get(i) for i in range(cells)],
        "resistance_spent": resistance_spent or {"A": False, "B": False},
        "move": {"player": player, "cell": cell, "card": placed, "lair": lair},
    }
    return run_realm_vector(parse_realm_vector(raw))


def caps(placement: RealmPlacement) -> dict[int, str]:
    return {c.cell: c.cause.value for c in placement.captures}


def owners(board: RealmBoard) -> list[str | None]:
    return [None if o is None else "AB"[o] for o in board.owners]
