"""The lobby's rows (``tables``, ``challenges``) and the host's own table: each says when
the table expires, as the server sends it (``Table.expire_time``: every table has one);
rows piped to a script or a pager keep within 80 columns, a row's further lines under
its rules, past the id. Run whole against client/tests/lobby.py's stand-in, its output
piped, in a zone 5:30 ahead of UTC."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle_start import start
from client.commands_lobby import host
from client.connection import CommandError
from client.lobby_rows import joined_line, wrapped
from client.main import parser
from client.tests.lobby import BATTLE, EXPIRES, Gateway
from devtools.processes import ROOT

AHEAD = timedelta(hours=5, minutes=30)  # TZ=XYZ-5:30 (POSIX: UTC+5:30, named XYZ)


def piped(tmp_path: Path, *command: str, terminal: bool = True) -> str:
    """What ``triad-client COMMAND`` writes to a pipe, run from a 160-column terminal
    (``triad-client tables | less``: standard input is the terminal) or from none."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    argv = [sys.executable, "-m", "client.tests.lobby", str(tmp_path / "state.json"), *command]
    master, slave = os.openpty()
    try:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
        done = subprocess.run(
            argv,
            stdin=slave if terminal else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env={**env, "TZ": "XYZ-5:30"},
            cwd=ROOT,
            timeout=60,
            check=False,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 0, done.stderr
    return done.stdout


def expires(said: str) -> None:
    """``said`` names the stand-in's expiry (now + EXPIRES s) in the player's zone."""
    found = re.findall(r"expires at (?:\d{4}-\d\d-\d\d )?(\d\d:\d\d:\d\d) XYZ", said)
    assert found, said
    soon = datetime.now(UTC) + AHEAD + timedelta(seconds=EXPIRES)
    near = {(soon - timedelta(seconds=s)).strftime("%H:%M:%S") for s in range(-2, 30)}
    assert set(found) <= near, (found, said)


def test_tables_say_when_an_ordinary_open_table_expires(tmp_path: Path) -> None:
    """Found from outside: only a challenge's row said when it expires; an ordinary
    table's expiry, sent all the same, was left out."""
    flat = " ".join(piped(tmp_path, "tables").split())
    ordinary = flat.partition(" 7c01d2e3 ")[0]  # the challenge's row follows it
    assert ordinary.startswith("3f2a9c1e bartholomew-the-patient: Three Open"), flat
    assert ordinary.endswith(" XYZ") and "Random decks; expires at " in ordinary, flat
    expires(ordinary)


def test_a_battle_table_says_when_it_expires_before_the_command_that_joins_it(
    tmp_path: Path,
) -> None:
    """The command ends the row, to be copied whole: an expiry after it put a semicolon
    on the table id ('--join b477e000-...-000000000004; expires at')."""
    flat = " ".join(piped(tmp_path, "tables", "--battles").split())
    row = r"b477e000 kim-the-skirmisher: a Skirmish battle \(expires at [^)]* XYZ\): "
    found = re.fullmatch(row + r"triad-client battle --join (\S+)", flat)
    assert found is not None and found[1] == BATTLE, flat
    expires(flat)


def test_the_host_is_told_when_their_own_challenge_expires(tmp_path: Path) -> None:
    """Found from outside: the challenged player was told when a challenge expires, its
    host nowhere: not when sending it (`challenge`), not in `status`."""
    sent = " ".join(piped(tmp_path, "challenge", "dorothea-of-the-long-name").split())
    assert "Challenge sent to dorothea-of-the-long-name (table 9e8d7c6b," in sent, sent
    assert re.search(r"Trade Difference; expires at [^)]* XYZ\)\. It starts when", sent), sent
    expires(sent)
    status = " ".join(piped(tmp_path, "status").split())
    hosting = re.search(r"Challenge to dorothea-of-the-long-name \(table 9e8d7c6b.*?XYZ\.", status)
    assert hosting is not None, status
    assert "close withdraws it; it expires at" in hosting.group(), status
    expires(hosting.group())


@pytest.mark.parametrize("terminal", [True, False], ids=["from a terminal", "from none"])
@pytest.mark.parametrize("command", ["tables", "challenges"])
def test_rows_piped_keep_within_80_columns_continued_under_the_rules(
    tmp_path: Path, command: str, terminal: bool
) -> None:
    """Found from outside: piped from a wide terminal (`tables | less`) a row ran to the
    terminal's width, past 80 columns; piped from none it was cut at 80 wherever a word
    ended, its next line starting at the left edge, under the ids. Now: at most 80
    columns, broken after a comma or semicolon (never inside 'Trade Difference' or the
    time), further lines indented past the id."""
    said = piped(tmp_path, command, terminal=terminal)
    lines = said.splitlines()
    assert all(len(line) <= 80 for line in lines), said
    assert all(re.match(r"[0-9a-f]{8}  \S|          \S", line) for line in lines), said
    rows = [line for line in lines if not line.startswith(" ")]
    assert len(rows) == (2 if command == "tables" else 1), said
    assert said.count("Trade Difference") == len(rows), said
    assert len(re.findall(r"expires at \d\d:\d\d:\d\d XYZ", said)) == len(rows), said


def test_a_piece_longer_than_a_line_is_broken_at_spaces_under_the_indent() -> None:
    command = "triad-client battle --join 0fe1a562-0000-4000-8000-000000000000"
    row = f"0fe1a562  a-host-with-a-long-name-of-forty-chars: a Skirmish battle: {command}"
    lines = wrapped(row, 60)
    assert lines == [
        "0fe1a562  a-host-with-a-long-name-of-forty-chars:",
        "          a Skirmish battle:",
        "          triad-client battle --join",
        "          0fe1a562-0000-4000-8000-000000000000",
    ], lines


class Hosting(Gateway):
    """The stand-in's gateway, hosting a battle table too."""

    async def GetActiveBattle(self, request: Message, **_: Any) -> Message:
        return g.GetActiveBattleResponse()

    async def CloseTable(self, request: Message, **_: Any) -> Message:
        return g.CloseTableResponse()


class Host:
    """Ann's client, in this process, its session closed for good at once."""

    stub = Hosting(None)

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        yield g.OpenSessionResponse(session_closed=g.SessionClosed())


@pytest.fixture
def ahead_of_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process in the zone the piped runs use (TZ=XYZ-5:30)."""
    monkeypatch.setenv("TZ", "XYZ-5:30")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("ahead_of_utc")
async def test_the_host_of_a_table_is_told_when_it_expires() -> None:
    """Found from outside: ``host`` said "Table 9e8d7c6b open: ..." and ``battle --host``
    "Battle table ... open to anyone ...", neither when the table expires unjoined."""
    console = Console(width=400, record=True, force_terminal=False)
    await host(Host(), parser().parse_args(["host"]), console)
    with pytest.raises(CommandError):  # the table closed as the session did
        await start(Host(), parser().parse_args(["battle", "--host"]), console)
    opened, battle_table, closed = console.export_text().splitlines()
    expires(opened)
    assert re.match(r"Table 9e8d7c6b open: .*; expires at .* XYZ\.$", opened), opened
    expires(battle_table)
    # Found in review: it said "Ctrl-C leaves", where the table stays open elsewhere.
    assert re.search(r"\(Ctrl-C closes it; expires at .* XYZ\)\.$", battle_table), battle_table
    assert closed == "Table closed."


def test_the_table_joined_says_it_plays_random_decks_and_that_a_deck_named_stays_out() -> None:
    """Found from outside: `find --deck eight` joined a Random table, and its line
    ('Joined rvd's table (All Open, ..., No trade).') left that out; `join` said only
    'Joined rvb's table.'"""
    rules = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True)
    drawn = pb.Table(host_name="rvd", settings=pb.TableSettings(rules=rules, random_deck=True))
    assert joined_line(drawn) == "Joined rvd's table (All Open, Same, No trade, Random decks)."
    assert joined_line(drawn, deck_named=True).endswith(
        "Random decks). Your deck stays out: this table deals the hands."
    )
    decks = pb.Table(host_name="rvb", settings=pb.TableSettings(rules=rules))
    assert joined_line(decks, deck_named=True) == "Joined rvb's table (All Open, Same, No trade)."
