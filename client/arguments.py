"""Command-line values checked where they are typed: argparse says what is allowed
(``--top: must be 1..100, not 0``) before anything is sent."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def within(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``."""

    def number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}..{high}, not {value}")
        return value

    return number
