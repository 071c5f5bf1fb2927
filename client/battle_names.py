"""How the Skirmish screen names units and cards: a unit by its first name cut to 6
letters, as the fields, the hand, the marks and the log all say it; two units of one
team whose names cut alike (two summons of one kind: "Thornl" twice) numbered apart
("Thorn3", "Thorn5"), and a card id in words."""

from __future__ import annotations

import re
from collections import Counter

from triad.v1 import common_pb2 as pb

LETTERS = 6
"""A unit's name on the screen: at most this many letters."""

_SUMMON = re.compile(r"\d+\.s(\d+)")


def label(unit: pb.BattleUnit) -> str:
    """A unit as the field and the hand name it: its first name, at most 6 letters."""
    return unit.name.split()[0][:LETTERS] if unit.name else ""


def team_labels(team: pb.BattleTeamView) -> dict[str, str]:
    """Each unit of a team on the screen, by uid: its ``label``, or, where two of the
    team's units would read alike, the label with a number after it that stays with the
    unit (found from outside: two Thornlings both read "Thornl"). A summon's number is
    its uid's ("<team>.s<n>"), so it keeps its number while the other leaves the field;
    any other is numbered in placement order."""
    named = [u for u in team.units if u.name]
    counts = Counter(label(u) for u in named)
    said: dict[str, str] = {}
    for order, unit in enumerate(named, 1):
        plain = label(unit)
        if counts[plain] < 2:
            said[unit.uid] = plain
            continue
        summon = _SUMMON.fullmatch(unit.uid)
        number = summon.group(1) if summon else str(order)
        said[unit.uid] = unit.name.split()[0][: max(1, LETTERS - len(number))] + number
    return said


def fit(said: str, room: int) -> str:
    """A label cut to ``room`` letters, keeping its number: "Thorn12" in 5 is "Thor12"
    cut from the name, not "Thorn" (which two summons would share)."""
    if len(said) <= room:
        return said
    number = re.search(r"\d*$", said)
    digits = number.group(0) if number else ""
    stem = said[: len(said) - len(digits)]
    return stem[: max(1, room - len(digits))] + digits


def card_words(card_id: str) -> str:
    """A card id as words: 'rime.ice_wall' -> 'Ice Wall'."""
    return card_id.rsplit(".", 1)[-1].replace("_", " ").title()
