"""Reading the browser's push log (``[data-testid=pushes]``, the newest line first)."""

from __future__ import annotations


def sessions(log: list[str]) -> list[list[str]]:
    """The log cut into what each session of the page told, the latest session first;
    each part ends with its "session opened" line. The log is kept over a reload (a new
    session), so a test of what one session said reads its part alone."""
    parts: list[list[str]] = [[]]
    for line in log:
        parts[-1].append(line)
        if line.endswith(" session opened"):
            parts.append([])
    return [part for part in parts if part]
