"""A program run in a pseudo-terminal of a given size, its screen kept by a terminal
emulator (pyte): what a person at that terminal would see, for tests of the
interactive client."""

from __future__ import annotations

import asyncio
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping, Sequence

import pyte

from devtools.processes import ROOT

INTERRUPTIBLE = (
    sys.executable,
    "-I",
    "-S",
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execvp(sys.argv[1], sys.argv[1:])",
)
"""Runs the rest of a command line with SIGINT's default action, which ``exec`` keeps
(an ignored signal stays ignored across ``exec``, and a shell cannot reset one it was
started ignoring)."""


class Terminal:
    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], columns: int = 80, rows: int = 24
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = subprocess.Popen(
            # A session of its own whose controlling terminal is the pty (util-linux's
            # setsid --ctty), as a shell gives a program: Ctrl-C typed there is SIGINT,
            # handled as by default whoever started the tests (a run started in the
            # background by a script ignores SIGINT, and its children inherit that).
            [*INTERRUPTIBLE, "setsid", "--ctty", *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, "TERM": "xterm-256color", **env},
            cwd=ROOT,
        )
        os.close(slave)
        self.master = master
        self.screen = pyte.Screen(columns, rows)
        self._stream = pyte.ByteStream(self.screen)

    def text(self) -> str:
        """The screen now, one line per row."""
        self._pump()
        return "\n".join(line.rstrip() for line in self.screen.display)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    async def until(self, seen: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        """The screen once ``seen`` accepts it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.text()
            if seen(shown):
                return shown
            if self.process.poll() is not None:
                break
            await asyncio.sleep(0.1)
        raise AssertionError(f"the screen never showed {what}:\n{self.text()}")

    def close(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
        code = self.process.wait(timeout=30)
        self._pump()
        os.close(self.master)
        return code

    def _pump(self) -> None:
        while select.select([self.master], [], [], 0)[0]:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the program ended and closed the terminal
                return
            if not data:
                return
            self._stream.feed(data)
