"""``triad-client battle``: play a Skirmish battle (BATTLE.md) from the terminal.

Resumes your battle in progress, else starts one: practice against the CPU
(``--level random|greedy|search``, ``--characters a,b,c``), the Battle queue
(``--queue``: paired with the next player who queues), or a custom battle in the lobby
(``--challenge NAME`` opens a battle table for that player, who ``--join``s it).
Each screen (``battle_render``) shows both fields, HP, Energy, your hand and the last
turn's actions; you type your formation before turn 1, then each turn's plan: cards by
their number in the hand, each with its target (``0 1 0`` a square, ``2 row 1``,
``3 col 0``, ``4`` none), separated by ``;``. Enter alone passes; ``q`` gives up. While
the opponent chooses, the screen waits and counts the deadline down.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shutil
import sys
import textwrap
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle_render import prompt, result_line, screen, too_small, waiting
from client.connection import Caller, ClientError, Holder, as_json, pages
from client.failures import describe
from client.keys import LineReader
from client.session import BATTLE_ENDED_AWAY

LEVELS = {n.removeprefix("BATTLE_BOT_LEVEL_").lower(): v for n, v in pb.BattleBotLevel.items() if v}
POLL = 0.5
HOME, CLEAR_LINE, CLEAR_BELOW = "\x1b[H", "\x1b[K", "\x1b[J"
REOPEN_SECONDS = 2.0
"""How long the battle screen waits to open its session stream again after it failed."""
STALE = "That line was typed for the turn before (its deadline passed): nothing was sent."


def parse_squares(line: str) -> list[pb.BattleSquare]:
    """``r c r c r c``: one square per character, in the team's order."""
    numbers = line.replace(",", " ").split()
    if len(numbers) != 6 or not all(n in "012" and n for n in numbers):
        raise ClientError("type three squares as row and column, 0..2 each: 0 0 1 0 2 1")
    values = [int(n) for n in numbers]
    return [pb.BattleSquare(row=values[i], col=values[i + 1]) for i in range(0, 6, 2)]


def _target(words: list[str], where: str) -> pb.BattleTarget:
    def number(text: str) -> int:
        if text not in ("0", "1", "2"):
            raise ClientError(f"{where}: rows and columns are 0..2, not {text!r}")
        return int(text)

    if not words:
        return pb.BattleTarget()
    if len(words) == 2 and words[0] in ("row", "col"):
        value = number(words[1])
        return pb.BattleTarget(row=value) if words[0] == "row" else pb.BattleTarget(col=value)
    if len(words) == 2:
        return pb.BattleTarget(row=number(words[0]), col=number(words[1]))
    raise ClientError(f"{where}: a target is 'r c', 'row R', 'col C' or nothing")


def parse_plan(line: str, view: pb.BattleView) -> list[pb.BattleAction]:
    """``card [target]; card [target]; ...`` with cards by their number in the hand."""
    actions = []
    for part in (p.strip() for p in re.split(r"[;]", line)):
        if not part:
            continue
        words = part.split()
        hand = view.you.hand
        if not words[0].isdigit() or not 0 <= int(words[0]) < len(hand):
            raise ClientError(f"{words[0]!r}: your cards are numbered 0..{len(hand) - 1}")
        card = hand[int(words[0])]
        target = _target(words[1:], f"card {words[0]} ({card.name})")
        actions.append(pb.BattleAction(character=card.owner, card=card.id, target=target))
    return actions


def draw(
    view: pb.BattleView, note: str = "", typing: str | None = None, last: list[str] | None = None
) -> None:
    """The screen, the note (wrapped: a refusal names the legal targets at its end) and,
    when it is your move, the prompt with the line being typed, in 24 rows; drawn over
    the last one (each line cleared to its end), so a redraw every second does not
    flicker. Off a terminal (a pipe, a file) a screen is written as text, and again only
    when more than its clock changed since ``last`` (found from outside: `battle | cat`
    wrote the cursor's codes into the text, and the whole screen twice a second)."""
    size = shutil.get_terminal_size()
    told = textwrap.wrap(note, 79)[:3]
    lines = too_small(size.columns, size.lines) or screen(view, rows=24 - max(0, len(told) - 1))
    if not sys.stdout.isatty():
        below_clock = "\n".join([*lines[1:], *told, prompt(view) if typing is not None else ""])
        if last is None or last[:1] != [below_clock]:
            sys.stdout.write("\n".join([lines[0], below_clock]).rstrip("\n") + "\n")
            sys.stdout.flush()
        if last is not None:
            last[:] = [below_clock]
        return
    text = "\n".join(f"{line}{CLEAR_LINE}" for line in [*lines, *told])
    end = f"\n{prompt(view)}{typing}{CLEAR_LINE}" if typing is not None else "\n"
    sys.stdout.write(HOME + text + end + CLEAR_BELOW)
    sys.stdout.flush()


async def _view(client: Caller, battle_id: str) -> pb.BattleView:
    reply = await client.call(
        client.stub.GetBattleView, g.GetBattleViewRequest(battle_id=battle_id)
    )
    return reply.view  # type: ignore[no-any-return]


async def _battle_table(client: Caller, given: str) -> str:
    """The open battle table (a challenge to you, or one open to anyone) whose id starts
    with ``given``, as join and accept take it (found from outside: `battle --join 712a`,
    the start `challenges` shows first, was refused 'no table 712a'). A whole id is sent
    as it is: the server judges it."""
    if len(given) >= 32:  # a whole id: 32 hex digits, 36 with its dashes
        return given
    ids: set[str] = set()
    for wanted in (
        pb.TableFilter(battles=True, challenges_only=True),
        pb.TableFilter(battles=True),
    ):

        def listing(token: str, wanted: pb.TableFilter = wanted) -> Any:
            request = g.ListTablesRequest(filter=wanted, page_token=token)
            return client.call(client.stub.ListTables, request)

        ids |= {t.table_id for page in await pages(listing) for t in page.tables}
    matching = sorted(i for i in ids if i.startswith(given))
    if len(matching) != 1:
        raise ClientError(
            f"no single open battle table starts with {given!r}: see triad-client challenges"
        )
    return str(matching[0])


async def start(client: Caller, args: argparse.Namespace, console: Console) -> pb.BattleView:
    """Your battle in progress, else a new one (practice or the Battle queue)."""
    stub = client.stub
    active = (await client.call(stub.GetActiveBattle, g.GetActiveBattleRequest())).battle_id
    if active:
        console.print(f"You have a battle in progress ({active[:8]}): resuming it.")
        return await _view(client, active)
    if args.join:
        table_id = await _battle_table(client, args.join)
        joined = await client.call(
            stub.JoinTable, g.JoinTableRequest(request_id=uuid.uuid4().hex, table_id=table_id)
        )
        return await _view(client, joined.match_id)
    if args.queue or args.challenge or args.host:
        leave: Any
        if args.challenge or args.host:
            made = await client.call(
                stub.CreateTable,
                g.CreateTableRequest(
                    request_id=uuid.uuid4().hex,
                    settings=pb.TableSettings(battle=True),
                    challenged_player_name=args.challenge or "",
                ),
            )
            table_id = made.table.table_id
            who = f"for {args.challenge}: they join" if args.challenge else "to anyone: one joins"
            console.print(
                f"Battle table {table_id} open {who} it "
                f"with triad-client battle --join {table_id} (Ctrl-C leaves)."
            )
            leave = (stub.CloseTable, g.CloseTableRequest(table_id=table_id), "Table closed.")
        else:
            queued = await client.call(
                stub.Enqueue, g.EnqueueRequest(request_id=uuid.uuid4().hex, mode=pb.MODE_BATTLE)
            )
            console.print("In the Battle queue: waiting for an opponent (Ctrl-C leaves).")
            ticket = g.CancelTicketRequest(ticket_id=queued.ticket.ticket_id)
            leave = (stub.CancelTicket, ticket, "Left the queue.")
        return await _wait_for_battle(client, console, leave)
    characters = [c for c in (args.characters or "").split(",") if c]
    started = await client.call(
        stub.StartPracticeBattle,
        g.StartPracticeBattleRequest(
            request_id=uuid.uuid4().hex, bot_level=LEVELS[args.level], characters=characters
        ),
    )
    return started.view  # type: ignore[no-any-return]


async def _wait_for_battle(
    client: Caller, console: Console, leave: tuple[Any, Any, str]
) -> pb.BattleView:
    """Wait for the battle the queue or the table makes; interrupted (Ctrl-C), give the
    ticket up or close the table, as promised, unless the battle began meanwhile (then
    it plays on: ``triad-client battle`` resumes it)."""
    found = ""
    try:
        while not found:
            await asyncio.sleep(POLL)
            reply = await client.call(client.stub.GetActiveBattle, g.GetActiveBattleRequest())
            found = reply.battle_id
    finally:
        if not found:
            rpc, request, said = leave
            request.request_id = uuid.uuid4().hex
            with contextlib.suppress(grpc.aio.AioRpcError):  # paired meanwhile: play on
                await client.call(rpc, request)
                console.print(said)
    return await _view(client, found)


async def _act(client: Caller, view: pb.BattleView, line: str) -> pb.BattleView:
    stub, key = client.stub, uuid.uuid4().hex
    if line.strip().lower() == "q":
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
    async with _session_held(client) as away:
        return await _battle_screen(client, view, away)


@contextlib.asynccontextmanager
async def _session_held(client: Holder) -> AsyncIterator[list[str]]:
    """The session stream held while the battle is played; it yields what the stream
    says of a battle that ended while the player was away (BATTLE_ENDED_AWAY), for the
    screen to tell (the screen reads the battle itself; the stream says "here")."""
    away: list[str] = []

    async def hold() -> None:
        while True:
            try:
                async for push in client.pushes():
                    notice = push.notice if push.WhichOneof("push") == "notice" else None
                    if notice is not None and notice.code == BATTLE_ENDED_AWAY:
                        away.append(notice.message)
                return  # closed for good: a newer session elsewhere, a log-out
            except grpc.aio.AioRpcError:
                # Opened again: a stream that failed (a gateway down longer than
                # pushes() waits, a refused refresh) and stayed closed left the screen
                # working without a session, the player counted away and their seat
                # the CPU's 30 s on (BATTLE.md 5).
                await asyncio.sleep(REOPEN_SECONDS)

    holding = asyncio.create_task(hold())
    try:
        yield away
    finally:
        holding.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await holding


def going_on(view: pb.BattleView) -> str:
    """What a battle left unfinished does without the player (BATTLE.md 5), and the
    command that takes it back (found from outside: Ctrl-C ended the screen without a
    word, the shell's prompt on the plan's line, while the battle went on)."""
    if view.you.cpu:
        return (
            f"Battle {view.battle_id[:8]} goes on, the CPU in your seat: "
            "triad-client battle watches it."
        )
    return (
        f"Battle {view.battle_id[:8]} goes on: back within 30 s, triad-client battle plays on; "
        "after that the CPU plays your seat and you lose it."
    )


async def _battle_screen(client: Caller, view: pb.BattleView, away: list[str]) -> int:
    """``away``: the notices of battles that ended while the player was away, each the
    screen's note once it arrives (until the next note). Left unfinished (Ctrl-C, the
    input's end), it says what goes on."""
    latest = [view]
    try:
        return await _screen_loop(client, latest, away)
    finally:
        if latest[0].status != pb.BATTLE_STATUS_FINISHED:
            print(f"\n{textwrap.fill(going_on(latest[0]), 79)}", flush=True)


async def _screen_loop(client: Caller, latest: list[pb.BattleView], away: list[str]) -> int:
    """The screen until the battle ends (0) or the input does (1); ``latest[0]``: the
    battle as last shown.

    A line is sent for the turn (or the formation) it was begun at: one finished after
    the turn resolved (its deadline passed while the player typed) is not sent, and the
    player types it again for the hand now shown. Its card numbers were read from the
    hand of the turn before: found from outside, "4 row 0" typed for turn 1 was committed
    for turn 2 when Enter came after the deadline."""
    note, view, drawn = "", latest[0], list[str]()
    if sys.stdout.isatty():
        sys.stdout.write("\x1b[2J")
    with LineReader() as reader:
        polled = time.monotonic()
        begun = noted = (view.status, view.turn)
        while True:
            if away:
                note = away.pop(0)
            elif note and (view.status, view.turn) != noted:
                note = ""  # said of a turn (or the formation) gone by: no longer true
            noted = (view.status, view.turn)
            mine, latest[0] = _my_move(view), view
            if not reader.typing:
                begun = (view.status, view.turn)
            draw(view, note, reader.typing if mine else None, drawn)
            if view.status == pb.BATTLE_STATUS_FINISHED:  # the screen says the result
                return 0
            if mine and reader.done:
                return 1
            line = await reader.line(timeout=POLL)
            if line is None:
                if time.monotonic() - polled >= 1.0:
                    view, polled = await _view(client, view.battle_id), time.monotonic()
                continue
            if not mine:
                note = waiting(view)
                continue
            if (view.status, view.turn) != begun:
                note = STALE
                continue
            try:
                view, note = await _act(client, view, line), ""
            except ClientError as error:
                note = str(error)
            except grpc.aio.AioRpcError as error:
                note = describe(error)
                view = await _view(client, view.battle_id)
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
    async with _session_held(client) as away:  # from the queue on: you are here
        view = await start(client, args, console)
        return await _battle_screen(client, view, away)


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
