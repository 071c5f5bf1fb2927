"""``triad-client battle``: play a Skirmish battle (BATTLE.md) from the terminal.

Resumes your battle in progress, else starts one: practice against the CPU
(``--level random|greedy|search``, ``--characters a,b,c``), the Battle queue
(``--queue``: paired with the next player who queues), or a custom battle in the lobby
(``--challenge NAME`` opens a battle table for that player, who ``--join``s it).
Each screen (``battle_render``) shows both fields, HP, Energy, your hand and the last
turn's actions; you type your formation before turn 1, then each turn's plan: cards by
their number in the hand, each with its target (``0 1 0`` a square, ``2 row 1``,
``3 col 0``, ``4`` none), separated by ``;`` (``battle_typed``). Enter alone passes;
``q`` gives up; ``log`` shows the whole last turn a page at a time when the screen's rows
do not hold it. While the opponent chooses, the screen waits and counts the deadline down.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import grpc
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle_log import CUT, LOG_COMMAND, log_lines, log_page, page_prompt, ran_out
from client.battle_render import TAKEN_OVER, prompt, result_line, screen, too_small, waiting
from client.battle_start import LEVELS, Held, fetch_view, session_held, start
from client.battle_typed import parse_plan, parse_squares, refusal_words
from client.connection import Caller, ClientError, Holder, as_json
from client.failures import describe
from client.forfeit_question import BATTLE_KEPT, GIVE_UP_QUESTION, Step, step
from client.keys import LineReader
from client.leaving import battle_going_on

POLL = 0.5
HOME, CLEAR_LINE, CLEAR_BELOW = "\x1b[H", "\x1b[K", "\x1b[J"
LATE = 5.0
"""Seconds past a deadline with no newer view pushed before the screen reads it."""
STALE = "That line was typed for the turn before (its deadline passed): nothing was sent."


def draw(
    view: pb.BattleView,
    note: str = "",
    typing: str | None = None,
    last: list[str] | None = None,
    late: str = "",
    page: int | None = None,
) -> bool:
    """The screen, the note (wrapped: a refusal names the legal targets at its end) and,
    when it is your move, the prompt with the line being typed, in the terminal's rows
    (found from outside: 24 always, a taller terminal's rows left empty while the last
    turn's first actions were cut); drawn over the last one (each line cleared to its
    end), so a redraw every second does not flicker. ``late``: the turn passed for want
    of a plan; ``page``: the ``log`` command's page of the whole last turn from that
    line, shown instead, with its own prompt. Off a terminal (a pipe, a file) a screen
    is written as text, and again only when more than its clock changed since ``last``
    (found from outside: `battle | cat` wrote the cursor's codes into the text, and the
    whole screen twice a second). True when the last turn's actions did not all fit."""
    size = shutil.get_terminal_size()
    told = textwrap.wrap(note, 79)[:3] if page is None else []
    ask = prompt(view)
    rows = size.lines - max(0, len(told) - 1)
    lines = too_small(size.columns, size.lines)
    if lines is None and page is not None:
        lines, more = log_page(view, rows, page)
        ask, typing = page_prompt(more), typing or ""
    lines = lines or screen(view, rows=rows, late=late)
    if not sys.stdout.isatty():
        below_clock = "\n".join([*lines[1:], *told, ask if typing is not None else ""])
        if last is None or last[:1] != [below_clock]:
            sys.stdout.write("\n".join([lines[0], below_clock]).rstrip("\n") + "\n")
            sys.stdout.flush()
        if last is not None:
            last[:] = [below_clock]
        return any(line.startswith(CUT) for line in lines)
    text = "\n".join(f"{line}{CLEAR_LINE}" for line in [*lines, *told])
    end = f"\n{ask}{typing}{CLEAR_LINE}" if typing is not None else "\n"
    sys.stdout.write(HOME + text + end + CLEAR_BELOW)
    sys.stdout.flush()
    return any(line.startswith(CUT) for line in lines)


def next_page(view: pb.BattleView, page: int) -> int | None:
    """Where the ``log`` command's next page starts, None after its last (the battle's
    screen again)."""
    return log_page(view, shutil.get_terminal_size().lines, page)[1]


def moved(before: pb.BattleView, after: pb.BattleView) -> bool:
    """Whether ``after`` is another turn (or the formation over, or the battle)."""
    return (before.status, before.turn) != (after.status, after.turn)


async def _act(client: Caller, view: pb.BattleView, line: str, giving_up: bool) -> pb.BattleView:
    stub, key = client.stub, uuid.uuid4().hex
    if giving_up:
        request: Any = g.GiveUpRequest(request_id=key, battle_id=view.battle_id)
        return (await client.call(stub.GiveUp, request)).view  # type: ignore[no-any-return]
    if view.status == pb.BATTLE_STATUS_FORMATION:
        squares = parse_squares(line) if line.strip() else []
        if not squares:
            squares = [pb.BattleSquare(row=r, col=0) for r in range(3)]
        request = g.SetFormationRequest(request_id=key, battle_id=view.battle_id, squares=squares)
        return (await client.call(stub.SetFormation, request)).view  # type: ignore[no-any-return]
    actions = parse_plan(line, view)
    request = g.CommitPlanRequest(
        request_id=key, battle_id=view.battle_id, turn=view.turn, actions=actions
    )
    return (await client.call(stub.CommitPlan, request)).view  # type: ignore[no-any-return]


def _my_move(view: pb.BattleView) -> bool:
    return view.status != pb.BATTLE_STATUS_FINISHED and not view.you.committed and not view.you.cpu


async def play_battle(client: Holder, view: pb.BattleView) -> int:
    """The battle until it ends: the screen redrawn every second (the deadline counts
    down, the opponent's commit or giving up shows) and at each key, while the plan
    is typed at the prompt (client/keys.py: the keys one by one, drawn by us). The
    session stream is held meanwhile: without one the player counts as gone, and after
    30 s the CPU plays their seat (BATTLE.md 5)."""
    async with session_held(client) as held:
        return await _battle_screen(client, view, held)


def _read_again(view: pb.BattleView, held: Held, since: float) -> bool:
    """Whether the screen reads the battle itself, ``since`` seconds after it last did:
    each second while no session stream is open; with one, every ``LATE`` seconds once
    the deadline shown passed ``LATE`` seconds ago."""
    if not held.live:
        return since >= 1.0
    if not view.HasField("deadline") or view.status == pb.BATTLE_STATUS_FINISHED:
        return False
    overdue = datetime.now(UTC) - view.deadline.ToDatetime(tzinfo=UTC)
    return overdue.total_seconds() > LATE and since >= LATE


async def _battle_screen(client: Caller, view: pb.BattleView, held: Held) -> int:
    """The battle as ``held``'s session pushes it; its notices of battles that ended
    while the player was away, each the screen's note once it arrives (until the next
    note). Left unfinished (Ctrl-C, the input's end), it says what goes on."""
    latest = [view]
    try:
        return await _screen_loop(client, latest, held)
    finally:
        if latest[0].status != pb.BATTLE_STATUS_FINISHED:
            print(f"\n{textwrap.fill(battle_going_on(latest[0]), 79)}", flush=True)


async def _screen_loop(client: Caller, latest: list[pb.BattleView], held: Held) -> int:
    """The screen until the battle ends (0) or the input does (1); ``latest[0]``: the
    battle as last shown. Its views come on the session (found from outside: the screen
    asked for the battle every second, a query of the battle service each time); it
    reads the battle itself only while no session stream is open, or when a turn's
    deadline passed ``LATE`` seconds ago and no view came since (a push lost).

    A line is sent for the turn (or the formation) it was begun at: one finished after
    the turn resolved (its deadline passed while the player typed) is not sent, and the
    player types it again for the hand now shown. Its card numbers were read from the
    hand of the turn before: found from outside, "4 row 0" typed for turn 1 was committed
    for turn 2 when Enter came after the deadline."""
    note, view, drawn = "", latest[0], list[str]()
    late, page = "", None  # the turn passed for want of a plan; the log command's page
    if sys.stdout.isatty():
        sys.stdout.write("\x1b[2J")
    with LineReader() as reader:
        polled = time.monotonic()
        begun = noted = (view.status, view.turn)
        seen = view  # as last drawn: a turn gone by since, and no commit of hers, ran out
        while True:
            if (pushed := held.newer(view)) is not None:
                view = pushed
            if held.away:
                note = held.away.pop(0)
            elif note and (view.status, view.turn) != noted:
                note = ""  # said of a turn (or the formation) gone by: no longer true
            if moved(seen, view):
                late, page = ran_out(seen, view), None
            noted, seen = (view.status, view.turn), view
            if not note and view.you.cpu and view.status != pb.BATTLE_STATUS_FINISHED:
                note = TAKEN_OVER  # said at once (found from outside: only once a line was typed)
            mine, latest[0] = _my_move(view), view
            if not reader.typing:
                begun = (view.status, view.turn)
            shown = reader.typing if mine or page is not None else None
            cut = draw(view, note, shown, drawn, late, page)
            if view.status == pb.BATTLE_STATUS_FINISHED:  # the screen says the result
                if cut:  # no prompt to type log at: the whole turn under the screen
                    print("\n".join(["The last turn in full:", *log_lines(view)]), flush=True)
                return 0
            if mine and reader.done:
                return 1
            line = await reader.line(timeout=POLL)
            if line is None:
                if _read_again(view, held, time.monotonic() - polled):
                    view, polled = await fetch_view(client, view.battle_id), time.monotonic()
                continue
            if page is not None or line.strip().lower() == LOG_COMMAND:
                page = 0 if page is None else next_page(view, page)  # nothing is sent
                continue
            if not mine:
                note = waiting(view)
                continue
            if (view.status, view.turn) != begun:
                note = STALE
                continue
            taken = step(note == GIVE_UP_QUESTION, line)
            if taken in (Step.ASK, Step.DECLINE):
                note = GIVE_UP_QUESTION if taken is Step.ASK else BATTLE_KEPT
                continue
            try:
                view, note = await _act(client, view, line, taken is Step.CONFIRM), ""
                if moved(seen, view):  # her own commit resolved the turn: nothing ran out
                    late, seen = "", view
            except ClientError as error:
                note = str(error)
            except grpc.aio.AioRpcError as error:
                note = refusal_words(describe(error), line)
                view = await fetch_view(client, view.battle_id)
                noted = (view.status, view.turn)  # the refusal is said of the battle now


async def give_up(client: Caller) -> pb.BattleView:
    """``battle --give-up``: the battle in progress given up, lost (BATTLE.md 5), from a
    script too (found from outside: `battle --json` started a battle that only the
    screen's q could end; `forfeit` knows matches only)."""
    active = (await client.call(client.stub.GetActiveBattle, g.GetActiveBattleRequest())).battle_id
    if not active:
        raise ClientError("you have no battle in progress")
    request = g.GiveUpRequest(request_id=uuid.uuid4().hex, battle_id=active)
    return (await client.call(client.stub.GiveUp, request)).view  # type: ignore[no-any-return]


async def battle(client: Holder, args: argparse.Namespace, console: Console) -> int:
    if getattr(args, "give_up", False):  # accept and join come here too
        ended = await give_up(client)
        print(
            as_json(ended) if args.json else f"Battle {ended.battle_id[:8]}: {result_line(ended)}"
        )
        return 0
    if args.json:
        print(as_json(await start(client, args, console)))
        return 0
    async with session_held(client) as held:  # from the queue on: you are here
        view = await start(client, args, console, held)
        return await _battle_screen(client, view, held)


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    cmd = sub.add_parser(
        "battle", parents=[common], help="play a Skirmish battle (practice, or --queue)"
    )
    cmd.add_argument("--level", choices=sorted(LEVELS), default="greedy", help="the CPU's level")
    cmd.add_argument("--queue", action="store_true", help="the Battle queue: another player")
    cmd.add_argument("--challenge", metavar="NAME", help="a battle table only NAME may join")
    cmd.add_argument(
        "--host", action="store_true", help="a battle table anyone may join (tables --battles)"
    )
    cmd.add_argument("--join", metavar="TABLE", help="join a battle table (its id or its start)")
    cmd.add_argument("--give-up", action="store_true", help="give up your battle: you lose it")
    cmd.add_argument("--characters", help="three characters, comma-separated; default random")
