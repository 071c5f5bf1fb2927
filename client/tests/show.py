"""Shows one hand-built match view as ``triad-client play`` draws it (the same frame,
under rich's Live, in whatever terminal this runs in) until a line is typed: the
terminal tests run it in a pseudo-terminal of a chosen size.

    python -m client.tests.show 5x5|4x4|3x3|round2
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from rich.console import Console
from rich.live import Live

from client.frame import frame
from client.tests.views import SHOWN


def main() -> None:
    view = SHOWN[sys.argv[1]]()
    console = Console()
    with Live(console=console, auto_refresh=False) as live:
        live.update(frame(view, datetime.now(UTC), None, "", "", None, console), refresh=True)
        sys.stdin.readline()


if __name__ == "__main__":
    main()
