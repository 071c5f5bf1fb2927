"""JSON for battles, plans and turn outcomes (the format is in ``FORMAT.md``).

Decoding checks every field and raises :class:`CodecError` naming the path of the first
bad one (``battle.teams[1].units[0].hp: ...``); ``encode`` then ``decode`` gives back an
equal value.
"""

from __future__ import annotations

from typing import Any

from services.battle.rules.content import Roster
from services.battle.rules.log import Entry, TurnOutcome
from services.battle.rules.plans import Action, Plan
from services.battle.rules.reading import Reader
from services.battle.rules.state import (
    COLS,
    LAST_TURN,
    MAX_ENERGY,
    ROWS,
    Battle,
    BattleError,
    Burn,
    Outcome,
    Reason,
    Reservation,
    SpdChange,
    Square,
    Team,
    Unit,
)
from services.battle.rules.targets import Target

JSON = dict[str, Any]


class CodecError(BattleError):
    """Input JSON that is not a battle, plan or outcome; the message names the field."""


_read = Reader(CodecError)
_obj, _list, _str, _int = _read.obj, _read.items, _read.text, _read.whole


# --------------------------------------------------------------------------- encode


def encode_battle(battle: Battle) -> JSON:
    return {
        "content_version": battle.content_version,
        "turn": battle.turn,
        "outcome": None
        if battle.outcome is None
        else {"winner": battle.outcome.winner, "reason": battle.outcome.reason.value},
        "last_actor": battle.last_actor,
        "teams": [_encode_team(t) for t in battle.teams],
    }


def _encode_team(team: Team) -> JSON:
    out: JSON = {
        "energy": team.energy,
        "deck": list(team.deck),
        "cursor": team.cursor,
        "hand": list(team.hand),
        "specials": list(team.specials),
        "used_specials": list(team.used_specials),
        "cooldowns": dict(team.cooldowns),
        "reservations": [
            {"summon": r.summon, "square": list(r.square), "by": r.by} for r in team.reservations
        ],
        "next_order": team.next_order,
        "units": [_encode_unit(u) for u in team.units],
    }
    if team.hand_size >= 0:
        out["hand_size"] = team.hand_size
    return out


def _encode_unit(unit: Unit) -> JSON:
    return {
        "uid": unit.uid,
        "ref": unit.ref,
        "summon": unit.summon,
        "hp": unit.hp,
        "max_hp": unit.max_hp,
        "spd": unit.spd,
        "square": None if unit.square is None else list(unit.square),
        "order": unit.order,
        "shield": unit.shield,
        "cover": unit.cover,
        "burns": [[b.damage, b.turns] for b in unit.burns],
        "spd_changes": [[c.delta, c.turns] for c in unit.spd_changes],
        "damage_dealt": unit.damage_dealt,
        **({"placed": unit.placed} if unit.placed else {}),
    }


def encode_target(target: Target | None) -> JSON | None:
    if target is None or (target.row is None and target.col is None):
        return None  # no target (all, allies, self): null
    return {k: v for k, v in (("row", target.row), ("col", target.col)) if v is not None}


def encode_plan(plan: Plan) -> list[JSON]:
    return [
        {"character": a.character, "card": a.card, "target": encode_target(a.target)} for a in plan
    ]


def encode_entry(entry: Entry) -> JSON:
    out: JSON = {"step": entry.step.value, "team": entry.team, "actor": entry.actor}
    if entry.card:
        out["card"] = entry.card
    if entry.target is not None:
        out["target"] = encode_target(entry.target)
    if entry.targets:
        out["targets"] = list(entry.targets)
    out["effects"] = [
        {"unit": e.unit, "change": e.change.value, "amount": e.amount} for e in entry.effects
    ]
    if entry.fizzled is not None:
        out["fizzled"] = entry.fizzled.value
    if entry.note:
        out["note"] = entry.note
    return out


def encode_outcome(outcome: TurnOutcome) -> JSON:
    return {
        "battle": encode_battle(outcome.battle),
        "first": outcome.first,
        "log": [encode_entry(e) for e in outcome.log],
    }


# --------------------------------------------------------------------------- decode


def decode_battle(raw: Any, roster: Roster | None = None, where: str = "battle") -> Battle:
    obj = _obj(raw, where)
    version = obj.get("content_version")
    if not isinstance(version, str):
        raise CodecError(f"{where}.content_version: expected a string")
    if roster is not None and version != roster.version:
        raise CodecError(f"{where}.content_version: {version!r}, the roster is {roster.version!r}")
    outcome = None
    if obj.get("outcome") is not None:
        o = _obj(obj["outcome"], f"{where}.outcome")
        try:
            reason = Reason(str(o.get("reason")))
        except ValueError as exc:
            raise CodecError(f"{where}.outcome.reason: one of {[r.value for r in Reason]}") from exc
        outcome = Outcome(_int(o, "winner", f"{where}.outcome", 0, 1), reason)
    last = obj.get("last_actor")
    if last is not None:
        last = _int(obj, "last_actor", where, 0, 1)
    teams = _list(obj.get("teams"), f"{where}.teams")
    if len(teams) != 2:
        raise CodecError(f"{where}.teams: expected 2 teams, got {len(teams)}")
    built = [_decode_team(t, f"{where}.teams[{i}]", roster) for i, t in enumerate(teams)]
    turn = _int(obj, "turn", where, 1, LAST_TURN)
    return Battle(version, turn, (built[0], built[1]), outcome, last)


def _decode_team(raw: Any, where: str, roster: Roster | None) -> Team:
    obj = _obj(raw, where)
    cards = {k: _strs(obj, k, where, roster) for k in ("deck", "hand", "specials", "used_specials")}
    cool = _obj(obj.get("cooldowns", {}), f"{where}.cooldowns")
    cooldowns = tuple(sorted((c, _int(cool, c, f"{where}.cooldowns", 1, 4)) for c in cool))
    reservations = tuple(
        _reservation(r, f"{where}.reservations[{i}]")
        for i, r in enumerate(_list(obj.get("reservations", []), f"{where}.reservations"))
    )
    units = tuple(
        _decode_unit(u, f"{where}.units[{i}]")
        for i, u in enumerate(_list(obj.get("units"), f"{where}.units"))
    )
    deck = cards["deck"]
    if not set(cards["hand"]) <= set(deck) and "hand_size" not in obj:
        raise CodecError(f"{where}.hand: every card in hand is one of the deck's")
    return Team(
        units,
        _int(obj, "energy", where, 0, MAX_ENERGY),
        deck,
        _int(obj, "cursor", where, 0, max(0, len(deck) - 1)),
        cards["hand"],
        cards["specials"],
        cards["used_specials"],
        cooldowns,
        reservations,
        _int(obj, "next_order", where, 0, 10_000),
        _int(obj, "hand_size", where, 0, 5) if "hand_size" in obj else -1,
    )


def _reservation(raw: Any, where: str) -> Reservation:
    obj = _obj(raw, where)
    return Reservation(
        _str(obj, "summon", where),
        _square(obj.get("square"), f"{where}.square"),
        _str(obj, "by", where),
    )


def _decode_unit(raw: Any, where: str) -> Unit:
    obj = _obj(raw, where)
    max_hp = _int(obj, "max_hp", where, 1, 999)
    square = None if obj.get("square") is None else _square(obj["square"], f"{where}.square")
    summon = obj.get("summon")
    if not isinstance(summon, bool):
        raise CodecError(f"{where}.summon: expected true or false")
    return Unit(
        _str(obj, "uid", where),
        _str(obj, "ref", where),
        summon,
        _int(obj, "hp", where, 0, max_hp),
        max_hp,
        _int(obj, "spd", where, 0, 99),
        square,
        _int(obj, "order", where, 0, 10_000),
        _int(obj, "shield", where, 0, 9_999),
        _int(obj, "cover", where, 0, 99),
        tuple(Burn(d, t) for d, t in _pairs(obj.get("burns", []), f"{where}.burns")),
        tuple(
            SpdChange(d, t) for d, t in _pairs(obj.get("spd_changes", []), f"{where}.spd_changes")
        ),
        _int(obj, "damage_dealt", where, 0, 1_000_000),
        _int(obj, "placed", where, 0, 1_000_000) if "placed" in obj else 0,
    )


def decode_target(raw: Any, where: str) -> Target:
    if raw is None:
        return Target()
    obj = _obj(raw, where)
    extra = set(obj) - {"row", "col"}
    if extra:
        raise CodecError(f"{where}: a target has only 'row' and 'col', not {sorted(extra)}")
    row = _int(obj, "row", where, 0, ROWS - 1) if "row" in obj else None
    col = _int(obj, "col", where, 0, COLS - 1) if "col" in obj else None
    return Target(row, col)


def decode_plan(raw: Any, where: str = "plan") -> Plan:
    return tuple(
        Action(
            _str(_obj(a, f"{where}[{i}]"), "character", f"{where}[{i}]"),
            _str(a, "card", f"{where}[{i}]"),
            decode_target(a.get("target"), f"{where}[{i}].target"),
        )
        for i, a in enumerate(_list(raw, where))
    )


def _square(raw: Any, where: str) -> Square:
    if (
        not isinstance(raw, list)
        or len(raw) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
        or not (0 <= raw[0] < ROWS and 0 <= raw[1] < COLS)
    ):
        raise CodecError(f"{where}: expected [row, col] within 0..2, got {raw!r}")
    return (raw[0], raw[1])


def _pairs(raw: Any, where: str) -> list[tuple[int, int]]:
    out = []
    for i, pair in enumerate(_list(raw, where)):
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(v) is int for v in pair)):
            raise CodecError(f"{where}[{i}]: expected [amount, turns], got {pair!r}")
        if pair[1] < 1:
            raise CodecError(f"{where}[{i}]: turns left must be at least 1")
        out.append((pair[0], pair[1]))
    return out


def _strs(obj: JSON, key: str, where: str, roster: Roster | None) -> tuple[str, ...]:
    items = _list(obj.get(key, []), f"{where}.{key}")
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise CodecError(f"{where}.{key}[{i}]: expected a card id")
        if roster is not None and item not in roster.cards:
            raise CodecError(f"{where}.{key}[{i}]: unknown card {item!r}")
    if len(set(items)) != len(items):
        raise CodecError(f"{where}.{key}: a card appears twice")
    return tuple(items)
