"""Command-line values checked where they are typed: argparse says what is allowed
(``--top: must be 1..100, not 0``) before anything is sent."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


class Parser(argparse.ArgumentParser):
    """The client's parser: a subcommand's ``--help`` opens with the line the command
    list shows for it (found from outside: `triad-client play --help` printed its usage
    and options, never what play does). Subcommands' parsers are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _Described)


class _Described(argparse._SubParsersAction):  # type: ignore[type-arg]
    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        kwargs.setdefault("description", kwargs.get("help"))
        return super().add_parser(name, **kwargs)  # type: ignore[no-any-return]


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
