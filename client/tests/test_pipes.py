"""Output piped to a reader that stops early (`triad-client watch | head`): the client
ends quietly, as a Unix tool does, not with an error line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from client.commands_ratings import _games

# A command that writes far more than the reader takes: head reads one line and leaves.
WRITER = """
import client.main as main

async def endless(args):
    while True:
        print("push " * 20, flush=True)

main.run = endless
raise SystemExit(main.main(["watch"]))
"""


def test_a_reader_that_leaves_early_ends_the_client_quietly() -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert writer.stdout is not None and writer.stderr is not None
    assert writer.stdout.readline().startswith(b"push")
    writer.stdout.close()  # the reader leaves
    errors = writer.stderr.read().decode()
    assert writer.wait(timeout=30) == 0, errors
    assert errors == ""


def test_a_count_of_games_reads_as_words() -> None:
    assert [_games(n) for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]


def test_a_screen_piped_ends_its_last_line(tmp_path: Path) -> None:
    """Found from outside: `triad-client queue < /dev/null | cat` printed 'In the
    Unranked queue: 0 s (...)Left the queue.' and `play` '...card cell > _Match ... is
    running' on one line: the last frame had no newline off a terminal."""
    done = subprocess.run(
        [sys.executable, "-m", "client.tests.queued", str(tmp_path / "calls")],
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    said = done.stdout.decode()
    assert "In the Unranked queue" in said, (said, done.stderr.decode())
    assert said.endswith("\n"), repr(said[-80:])
