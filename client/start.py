"""``triad-client``'s entry point: the client's modules loaded, then ``main.main`` run,
a Ctrl-C meanwhile ending it quietly (130) as Ctrl-C anywhere later does. The loading
takes most of a second (found from outside: Ctrl-C then printed a KeyboardInterrupt
traceback through gRPC's and rich's imports; and, landing in a C extension's start,
an ImportError traceback). While the modules load, Ctrl-C ends the process at once:
nothing has been asked or written yet, and no exception has to find its way out of
an extension's initialisation. Nothing but the standard library is imported before
it is guarded."""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType


def _quit_loading(signum: int, frame: FrameType | None) -> None:
    os._exit(130)


def main() -> int:
    signal.signal(signal.SIGINT, _quit_loading)
    try:
        from client.main import main as run
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return run()
    except KeyboardInterrupt:  # parsing the command line
        return 130


if __name__ == "__main__":
    sys.exit(main())
