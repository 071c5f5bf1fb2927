"""The roster: the shipped file is valid and big enough; a bad file is a clear error."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from services.battle.rules import (
    ContentNotLoaded,
    Kind,
    RosterError,
    Unlock,
    load_roster,
    load_rosters,
    parse_roster,
)
from services.battle.rules.tests.helpers import RAW

SHIPPED = load_roster()


def test_the_shipped_roster_has_twelve_characters_within_the_vocabulary() -> None:
    assert SHIPPED.version
    assert len(SHIPPED.characters) >= 12
    for character in SHIPPED.characters.values():
        assert 40 <= character.hp <= 120 and 1 <= character.spd <= 20
        assert len(character.cards) == 4
        special = SHIPPED.cards[character.special]
        assert special.unlock is not None
        for cid in (*character.cards, character.special):
            card = SHIPPED.cards[cid]
            assert card.owner == character.id
            assert 0 <= card.cost <= 6 and 0 <= card.ct <= 3
    assert SHIPPED.summons and all(s.action in SHIPPED.cards for s in SHIPPED.summons.values())
    kinds = {e.kind for c in SHIPPED.cards.values() for e in c.effects}
    assert kinds == set(Kind)  # every effect of the vocabulary is used somewhere
    assert {c.unlock for c in SHIPPED.cards.values() if c.unlock} == set(Unlock)


def _mutate(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    raw = copy.deepcopy(RAW)
    change(raw)
    return raw


def _card(raw: dict[str, Any]) -> dict[str, Any]:
    card: dict[str, Any] = raw["characters"][0]["cards"][0]
    return card


BAD: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("no version", lambda r: r.pop("content_version"), "content_version"),
    ("hp too high", lambda r: r["characters"][0].update(hp=121), r"characters\[0\]\.hp"),
    ("spd zero", lambda r: r["characters"][0].update(spd=0), r"\.spd"),
    ("three cards", lambda r: r["characters"][0]["cards"].pop(), "exactly 4 skill cards"),
    ("cost 7", lambda r: _card(r).update(cost=7), r"cards\[0\]\.cost"),
    ("ct 4", lambda r: _card(r).update(ct=4), r"\.ct"),
    ("bad group", lambda r: _card(r).update(group="fast"), "fast"),
    ("bad range", lambda r: _card(r).update(range="line"), "line"),
    ("bad flag", lambda r: _card(r).update(flags=["pierce"]), "ignore_formation"),
    ("unknown effect", lambda r: _card(r).update(effects=[{"poison": 3}]), "one effect of"),
    ("burn without turns", lambda r: _card(r).update(effects=[{"burn": 3}]), r"\.turns"),
    ("no effects", lambda r: _card(r).update(effects=[]), "at least one effect"),
    ("unknown summon", lambda r: r["summons"].clear(), "unknown unit 'imp'"),
    ("duplicate card", lambda r: _card(r).update(id="a.swift"), "duplicate card id"),
    ("bad unlock", lambda r: r["characters"][0]["special"].update(unlock={"luck": 1}), "unknown"),
    ("bad prefers", lambda r: r["characters"][0].update(prefers="middle"), "prefers"),
    (
        "summon from range single",
        lambda r: r["characters"][2]["cards"][0].update(range="single"),
        "range 'self'",
    ),
]


@pytest.mark.parametrize(("name", "change", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_roster_is_refused_naming_the_place_and_the_rule(
    name: str, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(RosterError, match=message):
        parse_roster(_mutate(change))


def test_an_unreadable_file_is_a_roster_error(tmp_path: Path) -> None:
    path = tmp_path / "roster.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(RosterError, match="cannot read"):
        load_roster(path)
    path.write_text(json.dumps(RAW), encoding="utf-8")
    assert load_roster(path).version == "test-1"


def _write(path: Path, version: str) -> None:
    path.write_text(json.dumps({**RAW, "content_version": version}), encoding="utf-8")


def test_the_deployed_rosters_load_each_earlier_file_holding_its_own_version() -> None:
    rosters = load_rosters()
    assert rosters.current == load_roster()
    assert rosters.for_version(rosters.current.version) is rosters.current
    assert all(rosters.for_version(v).version == v for v in rosters.by_version)


def test_the_current_and_earlier_rosters_load_and_each_battle_finds_its_own(
    tmp_path: Path,
) -> None:
    (tmp_path / "rosters").mkdir()
    _write(tmp_path / "roster.json", "test-3")
    _write(tmp_path / "rosters" / "test-1.json", "test-1")
    _write(tmp_path / "rosters" / "test-2.json", "test-2")
    rosters = load_rosters(tmp_path / "roster.json", tmp_path / "rosters")
    assert rosters.current.version == "test-3"
    assert sorted(rosters.by_version) == ["test-1", "test-2", "test-3"]
    assert rosters.for_version("test-1").version == "test-1" and "test-2" in rosters
    with pytest.raises(ContentNotLoaded, match=r"'test-0' is not deployed .*'test-1'"):
        rosters.for_version("test-0")
    assert load_rosters(tmp_path / "roster.json", tmp_path / "none").by_version.keys() == {"test-3"}


@pytest.mark.parametrize(
    ("current", "earlier", "message"),
    [
        ("test-2", ("test-1", "test-9"), "named for 'test-1'"),
        ("test-1", ("test-1", "test-1"), "'test-1' is loaded twice"),
    ],
    ids=["misnamed earlier file", "current version also an earlier file"],
)
def test_rosters_whose_versions_do_not_add_up_are_refused(
    tmp_path: Path, current: str, earlier: tuple[str, str], message: str
) -> None:
    (tmp_path / "rosters").mkdir()
    _write(tmp_path / "roster.json", current)
    _write(tmp_path / "rosters" / f"{earlier[0]}.json", earlier[1])
    with pytest.raises(RosterError, match=message):
        load_rosters(tmp_path / "roster.json", tmp_path / "rosters")
