"""``triad-battle``: the Skirmish engine from the command line (format: ``rules/FORMAT.md``).

- ``triad-battle new --teams a,b,c d,e,f [--seed N]``: a battle at turn 1 (decks shuffled
  from the seed, formations from the characters' preferences) as ``resolve``'s input,
  with empty plans to fill in.
- ``triad-battle resolve [FILE]``: reads ``{"battle", "plans", "first"}`` from FILE or
  standard input and writes ``{"battle", "first", "log"}``: the next battle and the
  ordered action log. Bad input writes ``{"error": "..."}`` and exits 1.
- ``triad-battle simulate [--battles N] [--levels greedy,search] [--seed S] [--records]``:
  CPU battles in random teams, one JSON line each, then a summary line.

The content is ``data/roster.json`` (``new`` and ``simulate`` use it) and the earlier
versions in ``data/rosters/``: ``resolve`` takes the one its battle's
``content_version`` names. ``--roster FILE`` loads that one file alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from random import Random
from typing import Any, TextIO

from services.battle.bots.arena import play, random_teams
from services.battle.bots.levels import Level, bot, formation
from services.battle.rules.codec import (
    CodecError,
    decode_battle,
    decode_plan,
    encode_battle,
    encode_outcome,
)
from services.battle.rules.consistency import check_battle
from services.battle.rules.content import (
    Roster,
    RosterError,
    Rosters,
    load_roster,
    load_rosters,
    rosters_of,
)
from services.battle.rules.draws import shuffled_decks
from services.battle.rules.replay import encode_record
from services.battle.rules.resolve import resolve_turn
from services.battle.rules.state import BattleError, new_battle


def resolve_json(roster: Roster, raw: Any) -> dict[str, Any]:
    """One turn: ``{"battle", "plans": [p0, p1], "first"}`` -> the outcome's JSON."""
    if not isinstance(raw, dict):
        raise CodecError("input: expected an object with battle, plans and first")
    battle = decode_battle(raw.get("battle"), roster)
    check_battle(roster, battle)
    plans = raw.get("plans")
    if not isinstance(plans, list) or len(plans) != 2:
        raise CodecError("plans: expected a list of two plans (player 0's, player 1's)")
    first = raw.get("first")
    if first not in (0, 1) or isinstance(first, bool):
        raise CodecError("first: the player who committed first, 0 or 1")
    pair = (decode_plan(plans[0], "plans[0]"), decode_plan(plans[1], "plans[1]"))
    return encode_outcome(resolve_turn(roster, battle, pair, first))


def _content(rosters: Rosters, raw: Any) -> Roster:
    """The roster of the input battle's ``content_version``."""
    battle = raw.get("battle") if isinstance(raw, dict) else None
    version = battle.get("content_version") if isinstance(battle, dict) else None
    if not isinstance(version, str):
        return rosters.current  # decoding names what is wrong
    if version not in rosters:
        raise CodecError(
            f"battle.content_version: {version!r} is none of the rosters loaded "
            f"{sorted(rosters.by_version)}"
        )
    return rosters.for_version(version)


def _resolve(args: argparse.Namespace, rosters: Rosters, out: TextIO) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8") if args.file else sys.stdin.read()
        raw = json.loads(text)
        reply = resolve_json(_content(rosters, raw), raw)
    except json.JSONDecodeError as exc:
        reply = {"error": f"input is not JSON: {exc}"}
    except RecursionError:
        reply = {"error": "input is not JSON this command reads: nested too deeply"}
    except (BattleError, OSError) as exc:
        reply = {"error": str(exc)}
    return _reply(args, reply, out)


def _new(args: argparse.Namespace, rosters: Rosters, out: TextIO) -> int:
    roster = rosters.current
    try:
        teams = (tuple(args.teams[0].split(",")), tuple(args.teams[1].split(",")))
        unknown = [m for t in teams for m in t if m not in roster.characters]
        if unknown:
            raise BattleError(f"unknown characters {unknown}; known: {sorted(roster.characters)}")
        decks = shuffled_decks(roster, teams, Random(args.seed))
        forms = (formation(roster, teams[0]), formation(roster, teams[1]))
        battle = encode_battle(new_battle(roster, teams, decks, forms))
        # ready for ``resolve``: fill in the plans (and who committed first)
        reply: dict[str, Any] = {"battle": battle, "plans": [[], []], "first": 0}
    except BattleError as exc:
        reply = {"error": str(exc)}
    return _reply(args, reply, out)


def _reply(args: argparse.Namespace, reply: dict[str, Any], out: TextIO) -> int:
    """Write a command's one JSON reply; exit status 1 when it is an error."""
    out.write(json.dumps(reply, indent=None if args.compact else 1) + "\n")
    return 1 if "error" in reply else 0


def _simulate(args: argparse.Namespace, rosters: Rosters, out: TextIO) -> int:
    roster = rosters.current
    names = args.levels.split(",")
    known = [lv.value for lv in Level]
    if len(names) != 2 or any(n not in known for n in names) or args.battles < 0:
        error = (
            f"--levels takes two of {known} (e.g. greedy,search) and --battles a count "
            f">= 0, got {args.levels!r} and {args.battles}"
        )
        out.write(json.dumps({"error": error}) + "\n")
        return 1
    levels = [Level(n) for n in names]
    wins = [0, 0]
    for i in range(args.battles):
        seed = args.seed + i
        teams = random_teams(roster, Random(seed))
        played = play(roster, teams, (bot(levels[0]), bot(levels[1])), seed)
        outcome = played.battle.outcome
        assert outcome is not None
        wins[outcome.winner] += 1
        line: dict[str, Any] = {
            "seed": seed,
            "teams": [list(t) for t in teams],
            "levels": [lv.value for lv in levels],
            "winner": outcome.winner,
            "reason": outcome.reason.value,
            "turns": len(played.record.turns),
        }
        if args.records:
            line["record"] = encode_record(played.record)
        out.write(json.dumps(line) + "\n")
    out.write(json.dumps({"battles": args.battles, "wins": wins}) + "\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="triad-battle", description="the Skirmish engine")
    parser.add_argument(
        "--roster",
        type=Path,
        help="one content file (default: data/roster.json and the earlier data/rosters/)",
    )
    parser.add_argument("--compact", action="store_true", help="one-line JSON")
    sub = parser.add_subparsers(dest="command", required=True)
    resolve = sub.add_parser("resolve", help="resolve one turn (JSON in, JSON out)")
    resolve.add_argument("file", nargs="?", help="input file (default: standard input)")
    new = sub.add_parser("new", help="a battle at turn 1")
    new.add_argument("--teams", nargs=2, required=True, metavar="A,B,C")
    new.add_argument("--seed", type=int, default=0)
    simulate = sub.add_parser("simulate", help="CPU battles")
    simulate.add_argument("--battles", type=int, default=10)
    simulate.add_argument("--levels", default="greedy,greedy", help="two of random, greedy, search")
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--records", action="store_true", help="add each battle's record")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = _parser().parse_args(argv)
    stream = out or sys.stdout
    try:
        rosters = rosters_of(load_roster(args.roster)) if args.roster else load_rosters()
    except RosterError as exc:
        stream.write(json.dumps({"error": str(exc)}) + "\n")
        return 1
    commands = {"resolve": _resolve, "new": _new, "simulate": _simulate}
    return commands[args.command](args, rosters, stream)


if __name__ == "__main__":
    sys.exit(main())
