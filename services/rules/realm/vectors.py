"""Realm vectors: the ``"family": "realm"`` lines of ``shared/conformance/`` (the format
is in its README, "Realm vectors").

Beside the standard fields (``name``, ``size``, ``blocked``, ``cells``, ``board``,
``move``; ``cells`` is checked but Realm plays no Elemental), a
Realm vector carries the Realm modules in ``rules``, each card's ``type``,
``alignment`` and ``legendary``, the state earlier placements left (``hex_spent`` and
``rot`` on board cards, ``resistance_spent`` at the top) and ``lair`` on the move.
:func:`parse_realm_vector` checks every field and raises :class:`VectorError` naming the
first problem.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from services.rules.game import Seat
from services.rules.realm.board import RealmBoard
from services.rules.realm.cards import NEUTRAL, Alignment, CreatureType, Law, Moral, RealmCard
from services.rules.realm.outcome import RealmPlacement, RealmRules
from services.rules.vectors import (
    VectorError,
    _card,
    _is_int,
    _object,
    board_entries,
    given,
    parse_geometry,
    parse_marks,
    parse_move,
    placement_json,
)

REALM_RULE_NAMES = frozenset(f.name for f in fields(RealmRules))
NOT_REALM_RULES = frozenset({"same_wall", "elemental"})
"""Standard rules a Realm table does not play (Same Wall is not a Realm module; Realm
replaces Elemental): accepted as true or false and without effect."""
TYPE_NAMES = tuple(t.value for t in CreatureType)
LAW_NAMES = tuple(w.value for w in Law)
MORAL_NAMES = tuple(w.value for w in Moral)


@dataclass(frozen=True, slots=True)
class RealmVector:
    name: str | None
    board: RealmBoard
    player: Seat
    cell: int
    card: RealmCard
    lair: bool


def is_realm(raw: dict[str, Any]) -> bool:
    """Whether a vector belongs to the Realm family (``"family": "realm"``); a vector
    without ``family`` (or ``"standard"``) is a standard one."""
    family = raw.get("family")
    if family is None or family == "standard":
        return False
    if family == "realm":
        return True
    raise VectorError(f'unknown family {family!r}; families are "realm" and "standard"')


def parse_realm_vector(raw: dict[str, Any]) -> RealmVector:
    name, geometry = parse_geometry(raw)
    board = RealmBoard.empty(geometry, _realm_rules(given(raw, "rules", {})))
    parse_marks(raw, geometry)  # checked as in every vector; Realm plays no Elemental
    for entry in board_entries(raw, geometry):
        where, card_raw = entry.where, entry.raw
        hex_spent = given(card_raw, "hex_spent", False)
        if not isinstance(hex_spent, bool):
            raise VectorError(f"{where}.hex_spent must be true or false, got {hex_spent!r}")
        rot = given(card_raw, "rot", 0)
        if not _is_int(rot) or rot < 0:
            raise VectorError(
                f"{where}.rot must be a whole number of pending -1s (0 or more), got {rot!r}"
            )
        card = _realm_card(card_raw, where)
        board = board.with_card(entry.index, card, entry.owner, hex_spent, rot)
    spent = _resistance_spent(given(raw, "resistance_spent", {}))
    board = board.with_state(board.state._replace(resistance_spent=spent))
    move, player, cell = parse_move(raw, board.board.check_free)
    card = _realm_card(_object(move.get("card"), "move.card"), "move.card")
    lair = given(move, "lair", False)
    if not isinstance(lair, bool):
        raise VectorError(f"move.lair must be true or false, got {lair!r}")
    return RealmVector(name, board, player, cell, card, lair)


def run_realm_vector(vector: RealmVector) -> tuple[RealmBoard, RealmPlacement]:
    return vector.board.place(vector.cell, vector.card, vector.player, vector.lair)


def realm_result_json(name: Any, board: RealmBoard, placement: RealmPlacement) -> dict[str, Any]:
    """The output line of ``triad-rules resolve`` for one Realm vector (as for a
    standard one: the owners and the captures; cancelled captures are not listed)."""
    return placement_json(name, board.owners, placement.captures)


def _realm_rules(value: object) -> RealmRules:
    if not isinstance(value, dict):
        raise VectorError('\'rules\' must be an object such as {"same": true, "cursed": true}')
    # Null is off, and a rule off needs no knowing: an unknown name is refused only
    # where it is asked for (found from outside: {"cursed": false} failed the vector).
    value = {key: flag for key, flag in value.items() if flag is not None and flag is not False}
    unknown = sorted(set(value) - REALM_RULE_NAMES - NOT_REALM_RULES)
    if unknown:
        known = ", ".join(sorted(REALM_RULE_NAMES))
        raise VectorError(
            f"unknown Realm rule {', '.join(map(repr, unknown))}; Realm rules: {known}"
        )
    for key, flag in value.items():
        if not isinstance(flag, bool):
            raise VectorError(f"rule {key!r} must be true or false, got {flag!r}")
    return RealmRules(**{k: v for k, v in value.items() if k in REALM_RULE_NAMES})


def _resistance_spent(value: object) -> tuple[bool, bool]:
    if not isinstance(value, dict):
        raise VectorError('\'resistance_spent\' must be an object such as {"A": false, "B": true}')
    unknown = sorted(str(k) for k in set(value) - {"A", "B"})
    if unknown:
        raise VectorError(f"resistance_spent has unknown seats {unknown}; seats are A and B")
    spent = (given(value, "A", False), given(value, "B", False))
    for seat, flag in zip("AB", spent, strict=True):
        if not isinstance(flag, bool):
            raise VectorError(f"resistance_spent.{seat} must be true or false, got {flag!r}")
    return spent


def _realm_card(raw: dict[str, Any], field: str) -> RealmCard:
    sides = _card(raw, field).sides
    kind = raw.get("type")
    if kind not in TYPE_NAMES:
        raise VectorError(
            f"{field}.type: unknown creature type {kind!r}; types are {', '.join(TYPE_NAMES)}"
        )
    # A missing mark is the plain card, as a missing element is (conformance README):
    # not Legendary, and Neutral Neutral (which clashes with nothing).
    legendary = given(raw, "legendary", False)
    if not isinstance(legendary, bool):
        raise VectorError(f"{field}.legendary must be true or false, got {legendary!r}")
    alignment = raw.get("alignment")
    return RealmCard(
        sides,
        kind=CreatureType(kind),
        alignment=NEUTRAL if alignment is None else _alignment(alignment, f"{field}.alignment"),
        legendary=legendary,
    )


def _alignment(value: object, field: str) -> Alignment:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or value[0] not in LAW_NAMES
        or value[1] not in MORAL_NAMES
    ):
        raise VectorError(
            f"{field} must be two words, [{' | '.join(LAW_NAMES)}, {' | '.join(MORAL_NAMES)}], "
            f'such as ["lawful", "evil"]; got {value!r}'
        )
    return Alignment(Law(value[0]), Moral(value[1]))
