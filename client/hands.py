"""A hand of cards beside the board on the match screen (``render.screen``): rows that
shrink to the width left beside the board, the name giving way first; the element when
Elemental makes it matter; a Realm table's creature type, alignment, Legendary mark and
(Cursed) hex, RULES.md 17."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.realm import realm_attributes
from client.rules_text import element_name, sides


class Shrinking:
    """Text that gives way to the board: measured as taking ``least`` columns (rich
    measures a text by its longest word), drawn on one line cut with an ellipsis."""

    def __init__(self, text: str, least: int) -> None:
        self.text = Text(text, no_wrap=True, overflow="ellipsis")
        self.least = least

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.least, len(self.text)), len(self.text))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text


def hand(
    title: str,
    cards: list[pb.Card],
    style: str,
    elemental: bool,
    columns: int = 1,
    numbered: bool = True,
    realm: bool = False,
    cursed: bool = False,
) -> Table:
    """A hand as rows that shrink to the width left beside the board: the name gives
    way first. The element shows only when the Elemental rule makes it matter. In two
    columns (large hands) the cards run down the left column, then the right one."""
    table = Table.grid(padding=(0, 1))
    table.title, table.title_justify, table.title_style = title, "left", "bold"
    wide = columns == 1
    per_column = -(-len(cards) // columns) if cards else 0
    last = str(max(len(cards) - 1, 0))
    number_width = max(3, len(last) + 2) if wide else max(2, len(last))  # never cut: '[12]'
    for part in range(columns):
        if part:
            table.add_column(min_width=1)  # a gap between the two columns of cards
        if numbered:
            table.add_column(width=number_width, justify="left" if wide else "right")
        # The name's column is the one the table may narrow; the name itself never wraps.
        table.add_column()
        if elemental:
            table.add_column(no_wrap=True, max_width=7 if wide else 3)
        if realm:
            table.add_column(no_wrap=True)
        table.add_column(width=11 if wide and not cursed else 8)
    for line in range(per_column):
        row: list[RenderableType] = []
        for part in range(columns):
            index = part * per_column + line
            if index >= len(cards):
                break
            card = cards[index]
            name = card.character.name + (" (holo)" if card.holo else "")
            if part:
                row.append("")
            if numbered:
                row.append(f"[{index}]" if wide else str(index))
            row.append(Shrinking(name, 5 if wide else 3))
            if elemental:
                row.append(element_name(card.character.element)[: 7 if wide else 3])
            if realm:
                # The hex by its letter (W, E, R, S, B), as compact board cells show it:
                # its word left a 3x3 hand's own names two letters (found from outside).
                row.append(realm_attributes(card.character, True, cursed, letter=True))
            row.append(sides(card.printed_sides, spaced=wide and not cursed))  # room for hexes
        table.add_row(*row, style=style)
    return table
