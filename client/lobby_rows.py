"""The lobby's rows as ``tables`` and ``challenges`` print them, one row a table: within
the terminal's width, and within 80 columns off a terminal (a pipe, a file: rich takes
its width from whatever terminal standard input is, so `tables | less` ran to the
window's width, and with no terminal at all it cut at 80 wherever a word ended, the
next line starting under the ids). A row is broken after a comma, a semicolon or a
colon, so that no rule's name or time is cut, and goes on under its rules, past the id."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable

from rich.console import Console
from triad.v1 import common_pb2 as pb

from client.expiry import expiry
from client.rules_text import battle_join, rules_line

PIPED_WIDTH = 80
"""A row's width off a terminal: what a pager, a mail or a script's reader expects."""
GOES_ON = " " * len("3f2a9c1e  ")
"""A row's further lines start here, past the table id."""
BREAK = re.compile(r"(?<=[,;:]) ")


def challenge_row(table: pb.Table) -> str:
    """A challenge to the player in ``challenges``: from whom, what it plays, when it
    expires."""
    decks = "Random decks" if table.settings.random_deck else "your deck"
    decks = "" if table.settings.rules.house_hands else f", {decks}"  # dealt: no deck
    what = f"{rules_line(table.settings.rules)}{decks}{expiry(table)}"
    if table.settings.battle:
        what = battle_join(table)  # its expiry before the command
    return f"{table.table_id[:8]}  from {table.host_name}: {what}"


def joined_line(table: pb.Table, deck_named: bool = False) -> str:
    """What ``join`` and ``find`` say of the table joined: whose, and what it plays,
    Random decks included; and that a deck named stays out where the table deals or
    draws the hands (found from outside: `find --deck` joined a Random table and the
    line left that out, the hand drawn unexplained)."""
    rules = rules_line(table.settings.rules)
    dealt = table.settings.random_deck or table.settings.rules.house_hands
    if table.settings.random_deck:
        rules += ", Random decks"
    said = f"Joined {table.host_name}'s table ({rules})."
    if deck_named and dealt:
        said += " Your deck stays out: this table deals the hands."
    return said


def wrapped(row: str, width: int) -> list[str]:
    """``row`` in lines of at most ``width`` columns, broken after punctuation where it
    can (at spaces where one piece is longer than a line), further lines indented."""
    lines: list[str] = []
    for piece in BREAK.split(row):
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(GOES_ON + piece if lines else piece)
    return [
        part
        for line in lines
        for part in textwrap.wrap(line, width, subsequent_indent=GOES_ON, break_on_hyphens=False)
    ]


def print_rows(console: Console, rows: Iterable[str]) -> None:
    """``rows`` to the width of the terminal, or of ``PIPED_WIDTH`` off one (rich's own
    wrapping left out: the lines fit)."""
    width = console.width if console.is_terminal else PIPED_WIDTH
    for row in rows:
        for line in wrapped(row, max(width, 2 * len(GOES_ON))):
            console.print(line, soft_wrap=True)
