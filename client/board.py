"""The board of a match view in the terminal: every shape (rows x columns, blocked
cells), owners in colour, each cell's element mark and what it does to the card on it
(+1 or -1 on every side, RULES.md 4), and the last move: the card placed underlined,
each card it captured on a background of its cause's colour with the cause written on
the cell (SAME, PLUS, COMBO; TAKEN for a higher side). At a Cursed Realm table each card
shows its hex (RULES.md 17): 'ward' under its name, '(ward)' once spent; compact cells
its first letter between the left and right sides.

A ``Layout`` says how much room the match screen takes; ``render.fitted`` draws the
first of ``LAYOUTS`` that fits the terminal."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich import box
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.realm import cell_hex
from client.rules_text import CAUSE_TAGS, ELEMENT_NAMES, elemental_bonus, side

MINE, THEIRS = "bold cyan", "bold red"

CAUSE_STYLES = {
    "SAME": "on dark_magenta",
    "PLUS": "on dark_blue",
    "COMBO": "on dark_orange3",
    "TAKEN": "on grey30",
}
"""The background of a card captured by the last move, by its cause."""

BONUS_STYLES = {1: "bold green", -1: "bold yellow"}


@dataclass(frozen=True)
class Layout:
    """How much room the match screen takes: cells with the card's name (11 columns)
    or with its four values only (5 columns); lines between board rows or not (rows
    then told apart by shading); hands in one column of cards or two; the last two
    moves (the player's and the opponent's) on lines of their own, the last one only,
    or (0) the last one after the status."""

    named_cells: bool
    row_lines: bool
    hand_columns: int
    move_lines: int = 1


FULL = Layout(named_cells=True, row_lines=True, hand_columns=1)
TIGHTEST = Layout(named_cells=False, row_lines=False, hand_columns=2)
LAYOUTS = (
    replace(FULL, move_lines=2),
    FULL,
    Layout(named_cells=False, row_lines=True, hand_columns=1),
    Layout(named_cells=False, row_lines=True, hand_columns=2),
    TIGHTEST,
    replace(TIGHTEST, move_lines=0),
)
"""From the roomiest to the tightest; the first that fits is drawn. The last one fits a
5x5 board beside two 13-card hands in 80x24."""


def shape(view: pb.MatchView) -> tuple[int, int]:
    """Rows and columns of the board: the rules' board shape (unset means 3x3)."""
    rows = view.rules.board.rows or 3
    cols = view.rules.board.columns or 3
    if rows * cols != len(view.board) and view.board:  # never expected; draw what came
        rows = cols = max(1, round(len(view.board) ** 0.5))
    return rows, cols


def open_cells(view: pb.MatchView) -> list[int]:
    """The cells a card may go to now: empty, never blocked."""
    return [cell.index for cell in view.board if cell.WhichOneof("content") == "empty"]


def example_cell(view: pb.MatchView) -> int:
    """An open cell for the prompt's example: the centre when open, else the first."""
    rows, cols = shape(view)
    centre = (rows // 2) * cols + cols // 2
    free = open_cells(view)
    return centre if centre in free or not free else free[0]


def captured(view: pb.MatchView) -> dict[int, str]:
    """The cells the last move captured, with the tag of why (SAME, PLUS, ...)."""
    if not view.HasField("last_placement"):
        return {}
    return {c.cell: CAUSE_TAGS.get(c.cause, "TAKEN") for c in view.last_placement.captures}


def _mark(cell: pb.BoardCell) -> str:
    return ELEMENT_NAMES.get(cell.mark, "") if cell.mark else ""


def _bonus(cell: pb.BoardCell) -> tuple[str, str]:
    """'+1' or '-1' and its style for the card on a marked cell, else ('', '')."""
    bonus = elemental_bonus(cell.card, cell.mark)
    return (f"{bonus:+d}", BONUS_STYLES[bonus]) if bonus else ("", "")


def _card_style(view: pb.MatchView, cell: pb.BoardCell, tag: str) -> str:
    style = MINE if cell.card.owner_seat == view.my_seat else THEIRS
    if tag:
        style += f" {CAUSE_STYLES[tag]}"
    last = view.last_placement if view.HasField("last_placement") else None
    if last is not None and last.cell == cell.index:
        style += " underline"
    return style


def _named_cell(view: pb.MatchView, cell: pb.BoardCell, tag: str) -> Text:
    """Three lines: the top side (and the cause, for a card the last move captured);
    left side, name, right side; the bottom side and the cell's element mark with what
    it does to the card (+1/-1). An empty cell shows its number and mark."""
    mark = _mark(cell)
    kind = cell.WhichOneof("content")
    if kind == "blocked":
        return Text("#########\n#########\n#########", style="dim", justify="center")
    if kind == "empty":
        return Text(f"\n({cell.index})\n{mark}", style="dim", justify="center")
    s = cell.card.adjusted_sides
    text = Text(justify="center", style=_card_style(view, cell, tag))
    text.append(side(s.top))
    if tag:
        text.append(f" {tag}", style="bold white")
    text.append(f"\n{side(s.left)} ")
    text.append(f"{cell.card.card.character.name[:7]:^7}", style="italic")
    text.append(f" {side(s.right)}\n{side(s.bottom)}")
    if hexed := cell_hex(view, cell.index):  # a Realm table's Cursed: no marks there
        text.append(f" {hexed}", style="magenta")
    if mark:
        bonus, style = _bonus(cell)
        text.append(f" {mark}", style="yellow")
        text.append(bonus, style=style)
    return text


def _compact_cell(view: pb.MatchView, cell: pb.BoardCell, tag: str) -> Text:
    """Five columns by three lines: the top side (after the first letter of the cause,
    for a card the last move captured); left side, what the cell's mark does to the
    card (+1/-1), right side; the bottom side. An empty cell shows its number and its
    mark (three letters), a blocked one is filled with #."""
    mark = _mark(cell)[:3]
    kind = cell.WhichOneof("content")
    if kind == "blocked":
        return Text("#####\n#####\n#####", style="dim")
    if kind == "empty":
        return Text(f"\n{f'({cell.index})':^5}\n{mark:^5}", style="dim")
    s = cell.card.adjusted_sides
    text = Text(style=_card_style(view, cell, tag))
    text.append(tag[:1] or " ", style="bold white")
    text.append(f" {side(s.top)}  \n{side(s.left)}")
    bonus, style = _bonus(cell)
    if hexed := cell_hex(view, cell.index, compact=True):  # Cursed: 'W', '(W)' spent
        bonus, style = hexed, "magenta"
    text.append(f"{bonus:^3}", style=style)
    text.append(f"{side(s.right)}\n  {side(s.bottom)}  ")
    return text


def board(view: pb.MatchView, layout: Layout = FULL) -> Table:
    rows, cols = shape(view)
    table = Table(
        show_header=False,
        show_lines=layout.row_lines,
        padding=(0, 1) if layout.named_cells else (0, 0),
        box=box.SQUARE if layout.row_lines else box.SQUARE_DOUBLE_HEAD,
        # Without lines between rows, every other row is shaded to tell them apart.
        row_styles=None if layout.row_lines else ["", "on grey19"],
    )
    width = 11 if layout.named_cells else 5
    for _ in range(cols):
        # Compact cells are drawn exactly to their width: centring would shift them.
        table.add_column(justify="center" if layout.named_cells else "left", width=width)
    cells = list(view.board)
    draw = _named_cell if layout.named_cells else _compact_cell
    tags = captured(view)
    for r in range(rows):
        table.add_row(
            *(
                draw(view, cell, tags.get(cell.index, ""))
                for cell in cells[r * cols : r * cols + cols]
            )
        )
    return table
