"""Skirmish and the player's presence, end to end through the TLS gateway (every
service a process on real PostgreSQL and NATS): a player away from a battle's start is
taken over as one who leaves it, a battle and a Triad match exclude each other (one
game at a time; an open table or a queued ticket keeps a practice battle off too), a
session reopened mid-battle opens with it, and the terminal client's Ctrl-C in the
Battle queue leaves it. Each was found from outside."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import client_of
from tests.e2e.sessions import Session, easy_practice, join
from tests.e2e.test_battle import GRACE, p_view

pytestmark = pytest.mark.integration

STACK_OVERRIDES: Overrides = {
    "battle": {
        "TRIAD_BATTLE_DISCONNECT_SECONDS": str(GRACE),
        "TRIAD_TIMER_POLL_SECONDS": "0.2",
    }
}
"""This module's settings for its backend (tests/e2e/conftest.py): test_battle.py's."""


async def test_a_player_with_no_session_when_the_battle_starts_is_taken_over(api: Any) -> None:
    """Found from outside: a player paired (or starting a practice) with no session
    stream open was never taken over, and the battle crawled on the turn timers."""
    eve = await join(api)
    started = await eve.call(
        "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
    )
    battle_id = started.view.battle_id
    deadline = time.monotonic() + 30
    view = started.view
    while view.status != pb.BATTLE_STATUS_FINISHED and time.monotonic() < deadline:
        await asyncio.sleep(0.3)
        view = await p_view(eve, battle_id)
    assert view.status == pb.BATTLE_STATUS_FINISHED and view.you.cpu
    assert (view.outcome.winner_seat, view.outcome.reason) == (1, "disconnect")


async def test_one_game_at_a_time_a_battle_and_a_triad_match_exclude_each_other(
    api: Any,
) -> None:
    """Found from outside: a player in a Triad match could start a practice battle,
    and one in a battle could queue or start a Triad practice (RULES.md 5)."""
    fay, gus = await join(api), await join(api)
    practice = await fay.call(
        "StartPractice",
        easy_practice(),
    )
    with pytest.raises(grpc.aio.AioRpcError) as in_match:
        await fay.call("StartPracticeBattle", g.StartPracticeBattleRequest(request_id="b1"))
    assert in_match.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"playing match {practice.match_id[:8]}" in (in_match.value.details() or "")
    assert not (await fay.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id
    battle = await gus.call("StartPracticeBattle", g.StartPracticeBattleRequest(request_id="b2"))
    refusals = []
    for rpc, request in (
        ("Enqueue", g.EnqueueRequest(request_id="q1", mode=pb.MODE_BATTLE)),
        (
            "StartPractice",
            g.StartPracticeRequest(
                request_id="p1",
                origin_mode=pb.MODE_UNRANKED,
                bot_level=pb.BOT_LEVEL_EASY,
                deck=pb.DeckChoice(random=pb.RandomDeck()),
            ),
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as busy:
            await gus.call(rpc, request)
        refusals.append((busy.value.code(), busy.value.details()))
    short = battle.view.battle_id[:8]
    assert refusals == 2 * [
        (grpc.StatusCode.FAILED_PRECONDITION, f"you are playing battle {short}; finish it first")
    ]
    assert not (await gus.call("GetActiveMatch", g.GetActiveMatchRequest())).view.match_id


async def test_a_table_host_or_a_queued_player_cannot_start_a_practice_battle(
    api: Any,
) -> None:
    """Found from outside: the host of an open table started a practice battle; a guest
    joining then was told the host "is playing battle ...; finish it first", and the
    table vanished from the host's screen. A queued ticket is the same (one game at a
    time, RULES.md 5): each is refused in the matchmaker's words, and no battle starts."""
    hal, ida = await join(api), await join(api)
    hosted = await hal.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex,
            settings=pb.TableSettings(
                rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN), random_deck=True
            ),
        ),
    )
    queued = await ida.call(
        "Enqueue", g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_BATTLE)
    )
    refusals = []
    for player in (hal, ida):
        with pytest.raises(grpc.aio.AioRpcError) as busy:
            await player.call(
                "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
            )
        refusals.append((busy.value.code(), busy.value.details()))
        assert not (await player.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id
    table_id, ticket_id = hosted.table.table_id, queued.ticket.ticket_id
    # (the Battle queue is the module's: Ida's ticket goes, so no later test meets her)
    await ida.call(
        "CancelTicket", g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=ticket_id)
    )
    await hal.call("CloseTable", g.CloseTableRequest(request_id=uuid4().hex, table_id=table_id))
    assert refusals == [
        (
            grpc.StatusCode.FAILED_PRECONDITION,
            f"you already host open table {table_id}: close it first",
        ),
        (
            grpc.StatusCode.FAILED_PRECONDITION,
            f"you already have queued ticket {ticket_id}: cancel it first (a Triad queue's "
            "ticket may switch to practice instead)",
        ),
    ]


async def test_a_reopened_session_opens_with_the_battle_in_progress(api: Any) -> None:
    """Found from outside: a session reopened mid-battle said nothing of the battle
    (SessionOpened carries the full current state: gateway.proto)."""
    hal = await join(api)
    first = await Session.open(hal)
    try:
        started = await hal.call(
            "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
        )
        opened = first.pushes[0].session_opened
        assert not opened.HasField("active_battle"), "no battle when the session opened"
    finally:
        await first.close()
    again = await Session.open(hal)
    try:
        opened = again.pushes[0].session_opened
        assert opened.active_battle.battle_id == started.view.battle_id
        # The battle as it was then; what changed since (the CPU's formation, a CI run
        # found) is pushed after: the latest the session was told is the battle now.
        deadline = time.monotonic() + 10
        while True:
            now = await p_view(hal, started.view.battle_id)
            told = [opened.active_battle, *(p.battle for p in again.pushes if p.HasField("battle"))]
            latest = max(told, key=lambda v: v.version)
            if latest == now or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert latest == now, "the battle's current view, as GetBattleView"
        assert opened.active_battle.version <= now.version
    finally:
        await again.close()


async def test_ctrl_c_in_the_battle_queue_leaves_it(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """Found from outside: `triad-client battle --queue` said "Ctrl-C leaves", but Ctrl-C
    left the ticket queued, and the next player in the queue was paired with a player
    who thought they had gone (the CPU then played their seat, and they lost)."""
    dan = await join(api)
    terminal = Terminal([*client_of(backend, dan, tmp_path), "battle", "--queue"], {})
    try:
        await terminal.until(lambda s: "In the Battle queue" in s, "the queue")
        terminal.type("\x03")
        await terminal.until(lambda s: "Left the queue." in s, "leaving the queue")
        await asyncio.to_thread(terminal.process.wait, 15)
    finally:
        terminal.close()
    status = (await dan.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
    assert not status.HasField("ticket"), status.ticket


async def test_a_terminal_battle_keeps_its_seat_while_the_player_thinks(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """Found from outside: `triad-client battle` opened no session stream, so every
    battle played from the terminal was taken over by the CPU (and lost) once the
    player had sat at the prompt for the takeover time, as if they had left."""
    eve = await join(api)
    terminal = Terminal([*client_of(backend, eve, tmp_path), "battle", "--level", "random"], {})
    try:
        await terminal.until(lambda s: "formation" in s.lower(), "the formation prompt")
        await asyncio.sleep(GRACE * 3)  # thinking, well past the takeover time
        battle_id = (await eve.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id
        view = await p_view(eve, battle_id)
        assert view.status != pb.BATTLE_STATUS_FINISHED and not view.you.cpu, view.outcome
        terminal.type("q\r")  # then gives up (q asks first; y confirms), which ends it
        await terminal.until(lambda s: "Give up this battle?" in s, "the question")
        terminal.type("y\r")
        await terminal.until(lambda s: "You gave up: you lost." in s, "the end")
    finally:
        terminal.close()


async def test_the_players_status_names_their_battle_in_progress(api: Any) -> None:
    """Found from outside: GetPlayerStatus ("everything that is going on for the
    caller") said nothing of a battle in progress, while Enqueue refused because of it."""
    fay = await join(api)
    started = await fay.call(
        "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
    )
    battle_id = started.view.battle_id
    status = (await fay.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
    assert status.active_battle_id == battle_id
    assert [(o.kind, o.id) for o in status.obligations] == [
        (pb.OBLIGATION_KIND_ACTIVE_BATTLE, battle_id)
    ]
    await fay.call("GiveUp", g.GiveUpRequest(request_id=uuid4().hex, battle_id=battle_id))
    status = (await fay.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
    assert not status.active_battle_id and not status.obligations


async def test_a_battle_challenge_declined_is_told_to_its_host_and_the_wait_ends(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """Found from outside: `battle --challenge NAME` declined left its host on "Battle
    table ... open for NAME", told nothing, until the table expired ten minutes on."""
    kim, lee = await join(api), await join(api)
    host = Terminal([*client_of(backend, kim, tmp_path), "battle", "--challenge", lee.name], {})
    try:
        shown = await host.until(lambda s: f"open for {lee.name}" in s, "the challenge")
        table_id = re.search(r"Battle table (\S+) open", shown)
        assert table_id, shown
        decline = g.DeclineChallengeRequest(request_id=uuid4().hex, table_id=table_id[1])
        await lee.call("DeclineChallenge", decline)
        said = await host.until(lambda s: "declined your challenge" in s, "the decline")
        assert f"{lee.name} declined your challenge (table {table_id[1][:8]})." in " ".join(
            said.split()
        ), said
        assert await asyncio.to_thread(host.process.wait, 30) != 0  # it ends: no battle
    finally:
        host.close()


async def test_a_public_battle_table_is_hosted_listed_and_joined_from_the_terminal(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """BATTLE.md 6's custom battles in the lobby, from the terminal: `battle --host`
    opens a table anyone may join, `tables --battles` lists it with the command that
    joins it, and `battle --join` starts the battle for both (before: only a challenge
    to a named player could be opened from a client)."""
    kim, lee = await join(api), await join(api)
    host = Terminal([*client_of(backend, kim, tmp_path), "battle", "--host"], {})
    guest: Terminal | None = None
    try:
        await host.until(lambda s: "open to anyone" in s, "the open battle table")
        listed = await asyncio.to_thread(
            subprocess.run,
            [*client_of(backend, lee, tmp_path), "tables", "--battles"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        said = " ".join(listed.stdout.split())  # as wrapped to the terminal's width
        row = rf"{kim.name}: a Skirmish battle \(expires at [^)]*\): "  # then the command
        found = re.search(row + r"triad-client battle --join (\S+)", said)
        assert found, listed.stdout
        table_id = found[1]
        guest = Terminal([*client_of(backend, lee, tmp_path), "battle", "--join", table_id], {})
        for terminal in (host, guest):
            await terminal.until(lambda s: "formation" in s.lower(), "the formation prompt")
        battle_id = (await kim.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id
        assert battle_id
        theirs = await lee.call("GetActiveBattle", g.GetActiveBattleRequest())
        assert theirs.battle_id == battle_id
        await kim.call("GiveUp", g.GiveUpRequest(request_id=uuid4().hex, battle_id=battle_id))
    finally:
        host.close()
        if guest is not None:
            guest.close()


async def test_two_terminals_in_the_battle_queue_are_paired_and_both_see_the_battle(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """The Battle queue from the terminal, as two players use it: each waits on their
    session (no more asking for the battle twice a second) and is shown the battle's
    formation once the queue pairs them."""
    players = [await join(api), await join(api)]
    terminals = [
        Terminal([*client_of(backend, p, tmp_path), "battle", "--queue"], {}) for p in players
    ]
    try:
        # The first one's queue line may be drawn over by the battle before it is read:
        # the battle comes on the session the moment the second one is queued.
        for terminal in terminals:
            await terminal.until(lambda s: "formation" in s.lower(), "the battle's formation")
        battles = [(await p.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id
                   for p in players]  # fmt: skip
        assert battles[0] and battles[0] == battles[1]
        # Both still at their screens past the disconnect grace: neither seat the CPU's
        # (found from outside: the wait's own session replaced the screen's, then was
        # dropped, and the CPU took both seats).
        await asyncio.sleep(GRACE + 2)
        for player in players:
            view = await p_view(player, battles[0])
            assert not view.you.cpu and view.status != pb.BATTLE_STATUS_FINISHED, view
        # Both place their formation, one after the other: the first is shown turn 1 as
        # the second's placing pushes it (the screen no longer asks every second).
        for terminal in terminals:
            await terminal.until(lambda s: "squares r c for" in s, "the formation prompt")
            terminal.type("\r")
        for terminal in terminals:
            await terminal.until(lambda s: "turn 1/10" in s and "plan (card" in s, "turn 1")
    finally:
        for terminal in terminals:
            terminal.close()
