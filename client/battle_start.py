"""How a Skirmish battle begins from the terminal (``triad-client battle``): the battle in
progress resumed, a practice against the CPU, the Battle queue (``--queue``) or a
battle table (``--challenge``, ``--host``, ``--join``); and the player's session stream,
held from the queue on (``session_held``): without one the player counts as gone, and
30 s on the CPU plays their seat (BATTLE.md 5). The queue and a table wait on that
stream for the battle to begin; nothing asks the server for it over and over.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, ClientError, Holder, pages
from client.expiry import expiry
from client.frame import TABLE_ENDS, table_line
from client.session import BATTLE_ENDED_AWAY

LEVELS = {n.removeprefix("BATTLE_BOT_LEVEL_").lower(): v for n, v in pb.BattleBotLevel.items() if v}
REOPEN_SECONDS = 2.0
"""How long to wait to open the session stream again after it failed."""


@dataclass
class Held:
    """What the session stream held for the battle says: the notices of battles that
    ended while the player was away (BATTLE_ENDED_AWAY), for the screen to tell; the
    battle the queue or a table began (``begun``: "" once the stream closed for good
    before one did); and the newest view of a battle pushed (``view``), which the screen
    shows, reading the battle itself only while no stream is open (``live``)."""

    away: list[str] = field(default_factory=list)
    begun: asyncio.Future[str] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    view: pb.BattleView | None = None
    live: bool = False
    table_id: str = ""
    """The battle table the player opened and waits on, once made."""
    ended: str = ""
    """Why that table will never start (declined, expired, closed), once pushed."""

    def take(self, push: g.OpenSessionResponse) -> None:
        self.live = True
        if said := table_ended(push, self.table_id):
            self.ended = said
            if not self.begun.done():
                self.begun.set_result("")
        if push.HasField("notice") and push.notice.code == BATTLE_ENDED_AWAY:
            self.away.append(push.notice.message)
        if push.HasField("session_opened") and push.session_opened.active_battle.battle_id:
            self._keep(push.session_opened.active_battle)
        if push.HasField("battle"):
            self._keep(push.battle)
        if (found := battle_begun(push)) and not self.begun.done():
            self.begun.set_result(found)

    def newer(self, shown: pb.BattleView) -> pb.BattleView | None:
        """The battle ``shown`` as pushed since, if it was."""
        pushed = self.view
        if pushed is None or pushed.battle_id != shown.battle_id:
            return None
        return pushed if pushed.version > shown.version else None

    def closed(self) -> None:
        self.live = False
        if not self.begun.done():
            self.begun.set_result("")

    def _keep(self, view: pb.BattleView) -> None:
        kept = self.view
        if kept is None or kept.battle_id != view.battle_id or view.version > kept.version:
            self.view = view


@contextlib.asynccontextmanager
async def session_held(client: Holder) -> AsyncIterator[Held]:
    """The session stream held (opened again after a failure) until the block ends; what
    it says, as ``Held``: the player is "here", and the battle's views come on it."""
    held = Held()

    async def hold() -> None:
        while True:
            try:
                async for push in client.pushes():
                    held.take(push)
                held.closed()
                return  # closed for good: a newer session elsewhere, a log-out
            except grpc.aio.AioRpcError:
                held.live = False
                # Opened again: a stream that failed (a gateway down longer than
                # pushes() waits, a refused refresh) and stayed closed left the screen
                # working without a session, the player counted away and their seat
                # the CPU's 30 s on (BATTLE.md 5).
                await asyncio.sleep(REOPEN_SECONDS)

    holding = asyncio.create_task(hold())
    try:
        yield held
    finally:
        holding.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await holding


async def fetch_view(client: Caller, battle_id: str) -> pb.BattleView:
    reply = await client.call(
        client.stub.GetBattleView, g.GetBattleViewRequest(battle_id=battle_id)
    )
    return reply.view  # type: ignore[no-any-return]


async def battle_table(client: Caller, given: str) -> str:
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


async def start(
    client: Holder, args: argparse.Namespace, console: Console, held: Held | None = None
) -> pb.BattleView:
    """Your battle in progress, else a new one (practice, the Battle queue, a table); the
    queue and a table wait on ``held``'s session, else on a session of their own."""
    stub = client.stub
    if getattr(args, "characters", None) and (chosen := _not_practice(args)):
        raise ClientError(
            f"{chosen} takes no --characters: the queue and tables give each player three "
            "characters at random (--characters picks a practice battle's team); leave "
            "--characters out"
        )
    active = (await client.call(stub.GetActiveBattle, g.GetActiveBattleRequest())).battle_id
    if active:
        console.print(f"You have a battle in progress ({active[:8]}): resuming it.")
        return await fetch_view(client, active)
    if args.join:
        table_id = await battle_table(client, args.join)
        joined = await client.call(
            stub.JoinTable, g.JoinTableRequest(request_id=uuid.uuid4().hex, table_id=table_id)
        )
        return await fetch_view(client, joined.match_id)
    if args.queue or args.challenge or args.host:
        leave: Any
        opened = ""
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
            if held is not None:
                held.table_id = table_id  # its end is pushed: said, and the wait ends
            opened = table_id
            who = f"for {args.challenge}: they join" if args.challenge else "to anyone: one joins"
            console.print(
                f"Battle table {table_id} open {who} it with triad-client battle --join "
                f"{table_id} (Ctrl-C closes it{expiry(made.table)})."
            )
            leave = (stub.CloseTable, g.CloseTableRequest(table_id=table_id), "Table closed.")
        else:
            queued = await client.call(
                stub.Enqueue, g.EnqueueRequest(request_id=uuid.uuid4().hex, mode=pb.MODE_BATTLE)
            )
            console.print("In the Battle queue: waiting for an opponent (Ctrl-C leaves).")
            ticket = g.CancelTicketRequest(ticket_id=queued.ticket.ticket_id)
            leave = (stub.CancelTicket, ticket, "Left the queue.")
        return await _wait_for_battle(client, console, leave, held, opened)
    characters = [c for c in (args.characters or "").split(",") if c]
    started = await client.call(
        stub.StartPracticeBattle,
        g.StartPracticeBattleRequest(
            request_id=uuid.uuid4().hex, bot_level=LEVELS[args.level], characters=characters
        ),
    )
    return started.view  # type: ignore[no-any-return]


def _not_practice(args: argparse.Namespace) -> str:
    """The option that makes the battle not a practice one ("" for a practice): found
    from outside, `battle --host --characters a,b,c` opened a table and the battle drew
    another team, --characters ignored (CreateTable, JoinTable and Enqueue carry none)."""
    for option, given in (
        ("--join", getattr(args, "join", None)),
        ("--host", getattr(args, "host", False)),
        ("--challenge", getattr(args, "challenge", None)),
        ("--queue", getattr(args, "queue", False)),
    ):
        if given:
            return option
    return ""


async def _wait_for_battle(
    client: Holder,
    console: Console,
    leave: tuple[Any, Any, str],
    held: Held | None,
    table_id: str = "",
) -> pb.BattleView:
    """Wait on the player's session for the battle the queue or the table makes (found
    from outside: the wait asked GetActiveBattle twice a second, a query of the battle
    service each time, for as long as the player waited). Interrupted (Ctrl-C), or the
    session closed for good (a newer one elsewhere, a logout), give the ticket up or
    close the table, as promised, unless the battle began meanwhile (then it plays on:
    ``triad-client battle`` resumes it). A table that will never start (declined,
    expired) ends the wait, saying why."""
    found = ""
    try:
        found = await (held.begun if held is not None else _first_battle(client, table_id))
    finally:
        if not found:
            rpc, request, said = leave
            request.request_id = uuid.uuid4().hex
            with contextlib.suppress(grpc.aio.AioRpcError):  # paired meanwhile: play on
                await client.call(rpc, request)
                console.print(said)
    if not found and held is not None and held.ended:
        raise ClientError(held.ended)
    if not found:
        raise ClientError(
            "your session closed (you logged out, or opened one elsewhere) before a "
            "battle began: triad-client battle --queue waits again"
        )
    return await fetch_view(client, found)


async def _first_battle(client: Holder, table_id: str = "") -> str:
    """The battle a session stream of its own says began ("" if it closed for good
    first): ``battle --json``, which shows no screen, holds none."""
    async for push in client.pushes():  # the stream is cancelled as it is dropped
        if found := battle_begun(push):
            return found
        if said := table_ended(push, table_id):
            raise ClientError(said)
    return ""


def table_ended(push: g.OpenSessionResponse, table_id: str) -> str:
    """Why the table ``table_id`` will never start, if ``push`` says it ended (found from
    outside: a challenge to a battle declined left its host waiting, told nothing, until
    the table expired ten minutes on)."""
    if not table_id or not push.HasField("table") or push.table.table_id != table_id:
        return ""
    return table_line(push.table) if push.table.status in TABLE_ENDS else ""


def battle_begun(push: g.OpenSessionResponse) -> str:
    """The battle ``push`` says the player is in, if any: one in progress as the session
    opened, or one whose view is pushed (a finished one is not waited for)."""
    if push.HasField("session_opened"):
        return str(push.session_opened.active_battle.battle_id)
    if push.HasField("battle") and push.battle.status != pb.BATTLE_STATUS_FINISHED:
        return str(push.battle.battle_id)
    return ""
