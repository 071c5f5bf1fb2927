"""``triad-battle``: new, resolve (JSON in, outcome out, errors named) and simulate."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from services.battle.cli import main
from services.battle.rules import load_roster, parse_roster, rosters_of
from services.battle.rules.content import ROSTER_PATH


def _run(
    argv: list[str], stdin: str | None = None, monkeypatch: Any = None
) -> tuple[int, list[Any]]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = main(["--compact", *argv], out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def _new() -> dict[str, Any]:
    code, lines = _run(["new", "--teams", "ember,bastion,wisp", "sable,moss,volt", "--seed", "3"])
    assert code == 0
    battle: dict[str, Any] = lines[0]["battle"]
    return battle


def test_resolve_reads_a_battle_and_both_plans_and_writes_the_next_battle_and_the_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    battle = _new()
    card = next(
        c for c in battle["teams"][0]["hand"] if c in ("ember.spark", "bastion.slam", "wisp.needle")
    )
    plan = [{"character": card.split(".")[0], "card": card, "target": {"row": 0, "col": 0}}]
    front = next(u["uid"] for u in battle["teams"][1]["units"] if u["square"] == [0, 0])
    code, lines = _run(
        ["resolve"], json.dumps({"battle": battle, "plans": [plan, []], "first": 1}), monkeypatch
    )
    assert code == 0
    reply = lines[0]
    assert reply["battle"]["turn"] == 2 and reply["first"] == 1
    entry = reply["log"][0]
    assert (entry["step"], entry["actor"], entry["card"], entry["targets"]) == (
        "card",
        f"0.{plan[0]['character']}",
        card,
        [front],
    )
    assert entry["effects"][0]["change"] == "damage" and entry["effects"][0]["amount"] > 0


def test_resolve_reads_a_file_too(tmp_path: Path) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps({"battle": _new(), "plans": [[], []], "first": 0}), encoding="utf-8")
    code, lines = _run(["resolve", str(path)])
    assert code == 0 and lines[0]["battle"]["turn"] == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(first=2), "first"),
        (lambda d: d.update(plans=[[]]), "two plans"),
        (lambda d: d["battle"]["teams"][0].update(energy=13), r"battle.teams\[0\].energy"),
        (lambda d: d["battle"].update(content_version="old"), "content_version"),
        (
            lambda d: d.update(plans=[[{"character": "ember", "card": "ember.nope"}], []]),
            "no such card",
        ),
        (lambda d: d["battle"]["teams"][1]["units"][0].update(hp=999), r"units\[0\]\.hp"),
    ],
)
def test_resolve_names_what_is_wrong_with_bad_input_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, change: Any, message: str
) -> None:
    _refused(monkeypatch, change, message)


def _refused(monkeypatch: pytest.MonkeyPatch, change: Any, message: str) -> None:
    """``resolve`` of a new battle after ``change``: one error line matching ``message``."""
    data = {"battle": _new(), "plans": [[], []], "first": 0}
    change(data)
    code, lines = _run(["resolve"], json.dumps(data), monkeypatch)
    assert code == 1
    assert set(lines[0]) == {"error"}
    assert re.search(message, lines[0]["error"]), lines[0]["error"]


ROSTER = load_roster()


def _unit(d: dict[str, Any], i: int) -> dict[str, Any]:
    unit: dict[str, Any] = d["battle"]["teams"][0]["units"][i]
    return unit


def _team(d: dict[str, Any]) -> dict[str, Any]:
    team: dict[str, Any] = d["battle"]["teams"][0]
    return team


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: _unit(d, 0).update(square=_unit(d, 2)["square"]), "two units stand on one"),
        (lambda d: _team(d).update(hand=_team(d)["deck"][:6]), r"hand: at most 5 cards"),
        (lambda d: _unit(d, 2).update(hp=0, square=None), "deck: the cards of the living"),
        (lambda d: _unit(d, 0).update(square=None), "exactly while its HP is above 0"),
        (lambda d: _unit(d, 0).update(burns=[[-5, 2]]), "a Burn deals at least 1"),
        (lambda d: _team(d)["units"].pop(), "three different characters"),
        (lambda d: _unit(d, 0).update(max_hp=500, hp=400), "has max_hp"),
        (lambda d: _team(d)["deck"].pop(), "deck: the cards of the living"),
        (lambda d: _team(d).update(specials=["ember.spark"]), "Specials of living characters"),
        (
            lambda d: _team(d).update(specials=[ROSTER.characters["sable"].special]),
            "Specials of living characters",
        ),
        (
            lambda d: _team(d).update(
                reservations=[{"summon": "dragon", "square": [2, 2], "by": "0.ember"}]
            ),
            r"reservations\[0\]: a summon of the roster",
        ),
        (lambda d: _unit(d, 1).update(uid=_unit(d, 0)["uid"]), "appear more than once"),
        (
            lambda d: _team(d).update(cooldowns={ROSTER.characters["moss"].cards[0]: 1}),
            "not this team's cards",
        ),
        (lambda d: (_unit(d, 0).update(order=2), _unit(d, 2).update(order=0)), "placement order"),
    ],
)
def test_resolve_refuses_a_battle_no_play_reaches_naming_what_is_wrong(
    monkeypatch: pytest.MonkeyPatch, change: Any, message: str
) -> None:
    """A hand-edited battle gets an error line, never a traceback or a turn resolved
    from a state BATTLE.md does not allow (found by an outside read of the command)."""
    _refused(monkeypatch, change, message)


def test_resolve_answers_json_nested_too_deeply_with_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, lines = _run(["resolve"], "[" * 100_000, monkeypatch)
    assert code == 1 and "nested too deeply" in lines[0]["error"]


def test_resolve_refuses_text_that_is_not_json(monkeypatch: pytest.MonkeyPatch) -> None:
    code, lines = _run(["resolve"], "{oops", monkeypatch)
    assert code == 1 and "not JSON" in lines[0]["error"]


def test_simulate_plays_cpu_battles_to_their_end() -> None:
    code, lines = _run(
        ["simulate", "--battles", "3", "--levels", "random,greedy", "--seed", "5", "--records"]
    )
    assert code == 0
    assert lines[-1]["battles"] == 3 and sum(lines[-1]["wins"]) == 3
    for line in lines[:-1]:
        assert line["reason"] in ("wipeout", "decision") and 1 <= line["turns"] <= 10
        assert len(line["record"]["turns"]) == line["turns"]


@pytest.mark.parametrize("levels", ["greedy", "greedy,hard", "greedy,greedy,greedy"])
def test_simulate_refuses_unknown_levels_naming_the_known_ones(levels: str) -> None:
    code, lines = _run(["simulate", "--battles", "1", "--levels", levels])
    assert code == 1 and "random" in lines[0]["error"] and "search" in lines[0]["error"]


def test_resolve_takes_the_roster_its_battle_recorded_and_new_the_current_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    earlier = _new()  # under the shipped content
    current = load_roster()
    raw = json.loads(ROSTER_PATH.read_text(encoding="utf-8"))
    raw["content_version"] = "skirmish-next"
    monkeypatch.setattr(
        "services.battle.cli.load_rosters", lambda: rosters_of(parse_roster(raw), current)
    )
    assert _new()["content_version"] == "skirmish-next"
    turn = {"battle": earlier, "plans": [[], []], "first": 0}
    code, lines = _run(["resolve"], json.dumps(turn), monkeypatch)
    assert code == 0 and lines[0]["battle"]["content_version"] == current.version
    turn["battle"] = {**earlier, "content_version": "skirmish-0"}
    code, lines = _run(["resolve"], json.dumps(turn), monkeypatch)
    assert code == 1 and "'skirmish-0' is none of the rosters loaded" in lines[0]["error"]
