"""Copies, decks and their rule breaks drawn as rich tables and text."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.realm import realm_attributes
from client.rules_text import ELEMENT_NAMES, side


def sides(s: pb.Sides) -> str:
    return f"T{side(s.top)} R{side(s.right)} B{side(s.bottom)} L{side(s.left)}"


def stars(n: int) -> str:
    return "★" * n


def element(value: pb.Element.ValueType) -> str:
    return ELEMENT_NAMES.get(value, "") if value else "-"


def copy_name(copy: pb.OwnedCopy) -> str:
    """A copy's character, and whether it is holographic: 'Reedling (holo)'."""
    return copy.character.name + (" (holo)" if copy.holo else "")


def copy_row(copy: pb.OwnedCopy) -> list[str | Text]:
    name = copy_name(copy)
    return [
        copy.copy_id[:8],
        Text(name, style="bold magenta" if copy.holo else ""),
        stars(copy.character.stars),
        element(copy.character.element),
        sides(copy.printed_sides),
        realm_attributes(copy.character, short=True),
    ]


def copies_table(
    title: str, copies: list[pb.OwnedCopy], locks: list[str] | None = None, column: str = "lock"
) -> Table:
    """The copies numbered from 0; ``locks``, if given, a last ``column`` per copy."""
    table = Table(title=title, title_justify="left")
    for heading in ("#", "copy", "name", "stars", "element", "sides", "realm"):
        table.add_column(heading, no_wrap=heading != "name")
    if locks is not None:
        table.add_column(column)
    for index, copy in enumerate(copies):
        row = [str(index), *copy_row(copy)]
        if locks is not None:
            row.append(locks[index])
        table.add_row(*row)
    return table


def violations_text(violations: list[pb.DeckViolation]) -> Text:
    text = Text()
    for v in violations:
        rule = pb.DeckRule.Name(v.rule).removeprefix("DECK_RULE_").lower()
        text.append(f"  {rule}: ", style="bold red")
        text.append(f"{v.message}\n")
    return text
