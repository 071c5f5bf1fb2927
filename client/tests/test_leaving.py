"""Ctrl-C on the live screen names what goes on without the player and how to take it
back (client/leaving.py): a match in progress on a real terminal (a pseudo-terminal
read by pyte, against the stand-in gateway of client/tests/away.py), a draft being
picked, a Trade One pick left open; nothing for a match over."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from triad.v1 import common_pb2 as pb

from client.leaving import going_on
from client.session import Followed
from client.tests.queued import TICKET
from client.tests.trades import difference, finished
from client.tests.views import quintra
from devtools.terminal import Terminal


async def test_ctrl_c_in_a_match_says_it_goes_on_and_how_to_take_it_back(tmp_path: Path) -> None:
    """Found from outside: Ctrl-C ended the match screen without a word (exit 130),
    while the turn timer ran on and two missed turns forfeit."""
    log = tmp_path / "log"
    terminal = Terminal(
        [sys.executable, "-m", "client.tests.away", str(log)], {"COLUMNS": "80", "LINES": "24"}
    )
    try:
        await terminal.until(lambda s: "card cell > " in s, "the 5x5 match")
        terminal.type("\x03")
        told = await terminal.until(lambda s: "takes it back" in s, "what goes on")
        assert terminal.process.wait(timeout=30) == 130
        flat = " ".join(told.split())
        match_id = quintra().match_id[:8]
        assert f"Match {match_id} goes on" in flat and "triad-client play takes it back" in flat
    finally:
        terminal.close()


def test_a_draft_or_an_open_pick_is_named_and_a_match_over_is_not() -> None:
    drafting = Followed()
    drafting.keep_draft(pb.DraftView(draft_id="d", status=pb.DRAFT_STATUS_PICKING))
    assert "Your draft goes on" in going_on(drafting)
    picking = Followed()
    picking.show(finished(pb.TRADE_RULE_ONE))
    picking.keep(difference(pb.TRADE_ROLE_CHOOSER, take=1))
    assert "triad-client trade choose" in going_on(picking)
    over = Followed()
    over.show(finished(pb.TRADE_RULE_ONE, mine=pb.SEAT_B))
    assert going_on(over) == ""


# ``triad-client play`` as main() runs it, on the queue of client/tests/queued.py.
QUEUED = """
import sys
from pathlib import Path
from rich.console import Console
import client.main as main
from client.play import resume
from client.tests.queued import Gateway
from client.tests.stand_in import Caller

async def queued(args):
    await resume(Caller(Gateway(Path(sys.argv[1]))), Console())

main.run = queued
raise SystemExit(main.main(["play"]))
"""


@pytest.mark.parametrize("stop", [signal.SIGHUP, signal.SIGTERM])
async def test_a_closed_terminal_leaves_the_queue_as_ctrl_c_does(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """Found from outside: closing the terminal's window (SIGHUP) while queued for
    Ranked killed the client with its ticket queued; the match found later was lost on
    missed turns, a card traded away. A hosted table stayed open the same way."""
    log = tmp_path / "calls.jsonl"
    terminal = Terminal([sys.executable, "-c", QUEUED, str(log)], {"COLUMNS": "80", "LINES": "24"})
    try:
        await terminal.until(lambda s: "In the Unranked queue" in s, "the queue")
        terminal.process.send_signal(stop)
        await terminal.until(lambda s: "Left the queue." in s, "the queue left")
        assert terminal.process.wait(timeout=30) == 130
        cancels = log.with_suffix(".cancel").read_text().splitlines()
        assert [json.loads(c)["ticketId"] for c in cancels] == [TICKET]
    finally:
        terminal.close()


# A client that waits for ever, as `watch` does, started as a background job or by nohup.
WAITING = """
import asyncio, signal, sys
import client.main as main

async def waits(args):
    print("waiting", flush=True)
    await asyncio.Event().wait()

signal.signal(getattr(signal, sys.argv[1]), signal.SIG_IGN)
main.run = waits
raise SystemExit(main.main(["watch"]))
"""


def test_a_background_client_still_ends_on_sigterm_and_nohup_keeps_sighup_ignored() -> None:
    """A job started in the background of a script has Ctrl-C ignored: SIGTERM, made
    Ctrl-C for a terminal's client, must still end it; under nohup, SIGHUP stays ignored."""
    job = subprocess.Popen([sys.executable, "-c", WAITING, "SIGINT"], stdout=subprocess.PIPE)
    assert job.stdout is not None and job.stdout.readline() == b"waiting\n"
    job.send_signal(signal.SIGTERM)
    assert job.wait(timeout=30) == -signal.SIGTERM
    nohup = subprocess.Popen([sys.executable, "-c", WAITING, "SIGHUP"], stdout=subprocess.PIPE)
    try:
        assert nohup.stdout is not None and nohup.stdout.readline() == b"waiting\n"
        nohup.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            nohup.wait(timeout=2)
    finally:
        nohup.kill()
        nohup.wait()
