"""Output piped to a reader that stops early (`triad-client watch | head`): the client
ends quietly, as a Unix tool does, not with an error line."""

from __future__ import annotations

import subprocess
import sys

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
