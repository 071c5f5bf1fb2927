"""Typing a line while rich's Live display redraws the screen.

``console.input`` under a Live display loses its prompt: every refresh of the display
moves the cursor and draws over it. Instead the keys are read one by one (the terminal
in cbreak mode, without echo) and the line being typed is drawn as part of the display,
so the board, the timer and the prompt are all on the screen at once. When standard
input is not a terminal (a pipe, a file) lines are read as they come.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import termios
import tty
from typing import Any

ERASE = {"\x7f", "\b"}
ENTER = {"\r", "\n"}
KILL_LINE = "\x15"  # Ctrl-U
ESCAPE = "\x1b"


class LineReader:
    """Lines typed on standard input, with the line being typed in ``typing``."""

    def __init__(self) -> None:
        self.typing = ""
        self.changed = asyncio.Event()
        """Set when a key arrived (the display redraws the line)."""
        self.ended = False
        """Standard input closed."""
        self._lines: asyncio.Queue[str] = asyncio.Queue()
        self._fd = sys.stdin.fileno()
        self._saved: list[Any] | None = None
        self._escape = False
        self._line_task: asyncio.Task[None] | None = None

    def __enter__(self) -> LineReader:
        loop = asyncio.get_running_loop()
        if os.isatty(self._fd):
            self._saved = termios.tcgetattr(self._fd)
            tty.setcbreak(self._fd)  # keys one by one, no echo; Ctrl-C still interrupts
        try:
            loop.add_reader(self._fd, self._on_input)
        except (PermissionError, OSError):  # a regular file cannot be polled
            self._line_task = asyncio.create_task(self._read_lines())
        return self

    def __exit__(self, *_: object) -> None:
        if self._line_task is not None:
            self._line_task.cancel()
        else:
            asyncio.get_running_loop().remove_reader(self._fd)
        if self._saved is not None:
            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)

    @property
    def done(self) -> bool:
        """Standard input closed and every line typed before was taken."""
        return self.ended and self._lines.empty()

    async def line(self, timeout: float) -> str | None:
        """The next line typed, or None after ``timeout`` seconds or a key pressed."""
        if self._lines.empty() and self.ended:
            await asyncio.sleep(timeout)  # nothing more comes: the screen still redraws
        elif self._lines.empty():
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), timeout)
        return None if self._lines.empty() else self._lines.get_nowait()

    def _on_input(self) -> None:
        data = os.read(self._fd, 1024)
        if not data:
            self._end()
            return
        for key in data.decode(errors="ignore"):
            self._key(key)
        self.changed.set()

    def _key(self, key: str) -> None:
        if self._escape:  # arrow and function keys: ESC [ ... final letter or ~
            self._escape = not (key.isalpha() or key == "~")
        elif key == ESCAPE:
            self._escape = True
        elif key in ENTER:
            self._lines.put_nowait(self.typing)
            self.typing = ""
        elif key in ERASE:
            self.typing = self.typing[:-1]
        elif key == KILL_LINE:
            self.typing = ""
        elif key.isprintable():
            self.typing += key

    def _end(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self._fd)
        if self.typing:
            self._lines.put_nowait(self.typing)
            self.typing = ""
        self.ended = True
        self.changed.set()

    async def _read_lines(self) -> None:
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                self.ended = True
                self.changed.set()
                return
            self._lines.put_nowait(line.rstrip("\n"))
            self.changed.set()
