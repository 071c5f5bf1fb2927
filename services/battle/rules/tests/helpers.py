"""A small roster made for the rule tests (its numbers never change with balance tuning)
and helpers that build battles in the exact spots a test needs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.battle.rules import Action, Battle, Roster, Target, new_battle, parse_roster
from services.battle.rules.state import Square, Team, Unit


def _card(
    cid: str, cost: int, group: str, rng: str, *effects: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    card: dict[str, Any] = {
        "id": cid,
        "name": cid,
        "cost": cost,
        "ct": extra.pop("ct", 0),
        "group": group,
        "range": rng,
        "flags": ["ignore_formation"] if extra.pop("ign", False) else [],
        "effects": list(effects),
    }
    card.update(extra)
    return card


def _filler(cid: str, hp: int, spd: int, prefers: str = "front") -> dict[str, Any]:
    return {
        "id": cid,
        "name": cid,
        "hp": hp,
        "spd": spd,
        "prefers": prefers,
        "cards": [_card(f"{cid}.{n}", 0, "normal", "single", {"damage": n}) for n in (1, 2, 3, 4)],
        "special": _card(
            f"{cid}.ult", 0, "normal", "single", {"damage": 9}, unlock={"turn_at_least": 9}
        ),
    }


RAW: dict[str, Any] = {
    "content_version": "test-1",
    "summons": [
        {
            "id": "imp",
            "name": "Imp",
            "hp": 10,
            "action": _card("imp.bite", 0, "normal", "single", {"damage": 3}),
        }
    ],
    "characters": [
        {
            "id": "alpha",
            "name": "Alpha",
            "hp": 100,
            "spd": 10,
            "prefers": "front",
            "cards": [
                _card("a.hit", 0, "normal", "single", {"damage": 10}),
                _card("a.swift", 0, "swift", "single", {"damage": 5}),
                _card("a.slow", 0, "slow", "single", {"damage": 7}),
                _card("a.sweep", 0, "normal", "row", {"damage": 4}),
            ],
            "special": _card("a.ult", 0, "normal", "all", {"damage": 20}, unlock={"hp_below": 50}),
        },
        {
            "id": "bravo",
            "name": "Bravo",
            "hp": 100,
            "spd": 10,
            "prefers": "front",
            "cards": [
                _card("b.guard", 0, "swift", "self", {"cover": 1}),
                _card("b.shield", 0, "swift", "ally", {"shield": 8}),
                _card("b.snipe", 0, "normal", "single", {"damage": 6}, ign=True),
                _card("b.burn", 0, "normal", "single", {"burn": 5, "turns": 2}, ct=2),
            ],
            "special": _card(
                "b.ult", 0, "swift", "self", {"energy": 3}, unlock={"turn_at_least": 3}
            ),
        },
        {
            "id": "charlie",
            "name": "Charlie",
            "hp": 60,
            "spd": 15,
            "prefers": "back",
            "cards": [
                _card("c.summon", 2, "normal", "self", {"summon": "imp"}),
                _card("c.heal", 1, "normal", "ally", {"heal": 20}),
                _card("c.steal", 1, "normal", "single", {"energy_steal": 2}, ign=True),
                _card("c.haste", 1, "swift", "ally", {"spd": 10, "turns": 1}),
            ],
            "special": _card(
                "c.ult",
                0,
                "normal",
                "single",
                {"damage": 50},
                ign=True,
                unlock={"ally_defeated": True},
            ),
        },
        {
            "id": "delta",
            "name": "Delta",
            "hp": 40,
            "spd": 5,
            "prefers": "front",
            "cards": [
                _card("d.nuke", 6, "slow", "all", {"damage": 40}),
                _card("d.cross", 1, "normal", "cross", {"damage": 10}),
                _card("d.col", 1, "normal", "column", {"damage": 5}),
                _card("d.charge", 0, "normal", "self", {"energy": 2}, ct=1),
            ],
            "special": _card(
                "d.ult", 1, "normal", "single", {"damage": 1}, unlock={"damage_dealt_at_least": 30}
            ),
        },
        _filler("echo", 80, 10, "back"),
        _filler("fox", 80, 20),
    ],
}

ROSTER: Roster = parse_roster(RAW, "test roster")
A = ("alpha", "bravo", "charlie")
B = ("delta", "echo", "fox")


def battle(
    teams: tuple[tuple[str, ...], tuple[str, ...]] = (A, B),
    hands: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
    formations: tuple[tuple[Square, ...] | None, tuple[Square, ...] | None] = (None, None),
) -> Battle:
    """A battle at turn 1 whose hands start with ``hands`` (the rest in card order)."""
    decks = []
    for members, hand in zip(teams, hands, strict=True):
        cards = [c for m in members for c in ROSTER.characters[m].cards]
        decks.append(tuple(hand) + tuple(c for c in cards if c not in hand))
    return new_battle(ROSTER, teams, (decks[0], decks[1]), formations)


def act(card: str, row: int | None = None, col: int | None = None) -> Action:
    return Action(ROSTER.cards[card].owner, card, Target(row, col))


def team(b: Battle, t: int, **changes: Any) -> Battle:
    teams = list(b.teams)
    teams[t] = replace(teams[t], **changes)
    return replace(b, teams=(teams[0], teams[1]))


def unit(b: Battle, uid: str, **changes: Any) -> Battle:
    t = int(uid.split(".", maxsplit=1)[0])
    units = tuple(replace(u, **changes) if u.uid == uid else u for u in b.teams[t].units)
    return team(b, t, units=units)


def get(b: Battle, uid: str) -> Unit:
    return next(u for t in b.teams for u in t.units if u.uid == uid)


def side(b: Battle, t: int) -> Team:
    return b.teams[t]
