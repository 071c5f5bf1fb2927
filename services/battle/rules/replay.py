"""A battle as a record of what was drawn and decided, and its replay.

A :class:`BattleRecord` holds everything random or chosen: the teams, the drawn deck
orders, the formations, and per turn both plans and who committed first. Folding
:func:`~services.battle.rules.resolve.resolve_turn` over it (:func:`replay`) gives the
same battle every time: replay never draws. It needs the roster of the record's
``content_version`` (``Rosters.for_version``): another raises :class:`BattleError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.battle.rules.codec import CodecError, decode_plan, encode_plan
from services.battle.rules.content import Roster
from services.battle.rules.plans import Plan
from services.battle.rules.resolve import resolve_turn
from services.battle.rules.state import Battle, BattleError, Square, new_battle

Pair = tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class TurnRecord:
    plans: tuple[Plan, Plan]
    first: int


@dataclass(frozen=True, slots=True)
class BattleRecord:
    content_version: str
    teams: Pair
    decks: Pair
    formations: tuple[tuple[Square, ...], tuple[Square, ...]]
    turns: tuple[TurnRecord, ...] = ()


def start(roster: Roster, record: BattleRecord) -> Battle:
    if roster.version != record.content_version:
        raise BattleError(
            f"the record uses content {record.content_version!r}, not {roster.version!r}"
        )
    return new_battle(roster, record.teams, record.decks, record.formations)


def replay(roster: Roster, record: BattleRecord) -> Battle:
    """The battle after every recorded turn."""
    battle = start(roster, record)
    for turn in record.turns:
        battle = resolve_turn(roster, battle, turn.plans, turn.first).battle
    return battle


def encode_record(record: BattleRecord) -> dict[str, Any]:
    return {
        "content_version": record.content_version,
        "teams": [list(t) for t in record.teams],
        "decks": [list(d) for d in record.decks],
        "formations": [[list(s) for s in f] for f in record.formations],
        "turns": [
            {"plans": [encode_plan(p) for p in t.plans], "first": t.first} for t in record.turns
        ],
    }


def decode_record(raw: Any) -> BattleRecord:
    if not isinstance(raw, dict):
        raise CodecError("record: expected an object")
    try:
        teams = tuple(tuple(str(m) for m in t) for t in raw["teams"])
        decks = tuple(tuple(str(c) for c in d) for d in raw["decks"])
        formations = tuple(tuple((int(s[0]), int(s[1])) for s in f) for f in raw["formations"])
        turns = tuple(
            TurnRecord(
                (
                    decode_plan(t["plans"][0], f"record.turns[{i}].plans[0]"),
                    decode_plan(t["plans"][1], f"record.turns[{i}].plans[1]"),
                ),
                int(t["first"]),
            )
            for i, t in enumerate(raw.get("turns", []))
        )
        return BattleRecord(
            str(raw["content_version"]),
            (teams[0], teams[1]),
            (decks[0], decks[1]),
            (formations[0], formations[1]),
            turns,
        )
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise CodecError(f"record: missing or malformed field ({exc!r})") from exc
