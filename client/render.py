"""Drawing a match view in the terminal with rich: owners in colour, element marks,
adjusted values, the turn timer, the round of a Sudden Death match and the table's
rules (its board and trade rule).

Every board the view describes is drawn (rows x columns, blocked cells), beside hands
of 5, 8 or 13 cards, in the first of the ``LAYOUTS`` that fits the terminal: named
cells, then compact cells (the four values, no name), then hands in two columns, then
board rows without lines between them. A terminal too small for all of them is told
the size the match needs (``fitted``) instead of a screen cut in pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.realm import is_realm, module_words, realm_attributes, realm_line

ELEMENT_NAMES = {v: k.removeprefix("ELEMENT_").lower() for k, v in pb.Element.items()}
MINE, THEIRS = "bold cyan", "bold red"

MAX_ROUNDS = 5
"""Sudden Death plays at most five rounds (RULES.md 12, Decision)."""

TRADE_NAMES = {
    pb.TRADE_RULE_ONE: "Trade One",
    pb.TRADE_RULE_DIRECT: "Trade Direct",
    pb.TRADE_RULE_DIFFERENCE: "Trade Difference",
    pb.TRADE_RULE_ALL: "Trade All",
}


@dataclass(frozen=True)
class Layout:
    """How much room the match screen takes: cells with the card's name (11 columns)
    or with its four values only (5 columns); lines between board rows or not (rows
    then told apart by shading); hands in one column of cards or two."""

    named_cells: bool
    row_lines: bool
    hand_columns: int


FULL = Layout(named_cells=True, row_lines=True, hand_columns=1)
LAYOUTS = (
    FULL,
    Layout(named_cells=False, row_lines=True, hand_columns=1),
    Layout(named_cells=False, row_lines=True, hand_columns=2),
    Layout(named_cells=False, row_lines=False, hand_columns=2),
)
"""From the roomiest to the tightest; the first that fits is drawn. The last one fits a
5x5 board beside two 13-card hands in 80x24."""


def side(value: int) -> str:
    return "A" if value == 10 else str(value)


def sides(s: pb.Sides, spaced: bool = True) -> str:
    values = (s.top, s.right, s.bottom, s.left)
    return (" " if spaced else "").join(
        f"{k}{side(v)}" for k, v in zip("TRBL", values, strict=True)
    )


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


def board_line(rules: pb.Rules) -> str:
    """'5x5, 3 blocked' for any board but the standard one; '' for 3x3."""
    rows, cols = rules.board.rows or 3, rules.board.columns or 3
    # A table's rules say how many cells it blocks, a match's which ones it drew.
    blocked = len(rules.board.blocked_cells) or rules.board.blocked_count
    if (rows, cols) == (3, 3) and not blocked:
        return ""
    return f"{rows}x{cols}" + (f", {blocked} blocked" if blocked else "")


def placing_line(rules: pb.Rules) -> str:
    """How cards are placed and seen: 'Three Open, Same, Plus, Combo'."""
    visibility = pb.Visibility.Name(rules.visibility).removeprefix("VISIBILITY_")
    on = [f.title() for f in ("same", "plus", "combo", "elemental") if getattr(rules, f)]
    if rules.same_wall:
        on.append("Same Wall")
    on += module_words(rules)
    return ", ".join([visibility.replace("_", " ").title(), *on])


def table_line(rules: pb.Rules) -> str:
    """What the table plays on and for: '5x5, 3 blocked, Sudden Death, Trade Direct'."""
    on = [shaped] if (shaped := board_line(rules)) else []
    if rules.house_hands:
        on.append("house hands")
    if rules.sudden_death:
        on.append("Realm Sudden Death" if is_realm(rules) else "Sudden Death")
    on.append(TRADE_NAMES.get(rules.trade_rule, "No trade"))
    return ", ".join(on)


def rules_line(rules: pb.Rules) -> str:
    """The table's rules as a person reads them in the lobby: visibility, placement
    rules, board, house hands, Sudden Death and the trade rule."""
    return f"{placing_line(rules)}, {table_line(rules)}"


def element_name(value: pb.Element.ValueType) -> str:
    """'fire', ...; '-' for no element."""
    return ELEMENT_NAMES.get(value, "-") if value else "-"


def _mark(cell: pb.BoardCell) -> str:
    return ELEMENT_NAMES.get(cell.mark, "") if cell.mark else ""


def _named_cell(view: pb.MatchView, cell: pb.BoardCell) -> Text:
    """Three lines: the top side; left side, name, right side; the bottom side. The cell's
    element mark (Elemental) follows the bottom side; an empty cell shows its number."""
    mark = _mark(cell)
    kind = cell.WhichOneof("content")
    if kind == "blocked":
        return Text("#########\n#########\n#########", style="dim", justify="center")
    if kind == "empty":
        return Text(f"\n({cell.index})\n{mark}", style="dim", justify="center")
    placed = cell.card
    s = placed.adjusted_sides
    style = MINE if placed.owner_seat == view.my_seat else THEIRS
    text = Text(justify="center", style=style)
    text.append(f"{side(s.top)}\n{side(s.left)} ")
    text.append(f"{placed.card.character.name[:7]:^7}", style="italic")
    text.append(f" {side(s.right)}\n{side(s.bottom)}")
    if mark:
        text.append(f" {mark}", style="yellow")
    return text


def _compact_cell(view: pb.MatchView, cell: pb.BoardCell) -> Text:
    """Five columns by three lines: the top side; left side, the cell's element mark
    (three letters) or nothing, right side; the bottom side. An empty cell shows its
    number, a blocked one is filled with #."""
    mark = _mark(cell)[:3]
    kind = cell.WhichOneof("content")
    if kind == "blocked":
        return Text("#####\n#####\n#####", style="dim")
    if kind == "empty":
        return Text(f"\n{f'({cell.index})':^5}\n{mark:^5}", style="dim")
    s = cell.card.adjusted_sides
    style = MINE if cell.card.owner_seat == view.my_seat else THEIRS
    text = Text(style=style)
    text.append(f"  {side(s.top)}  \n{side(s.left)}")
    text.append(f"{mark:^3}", style="yellow")
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
    for r in range(rows):
        table.add_row(*(draw(view, cells[r * cols + c]) for c in range(cols)))
    return table


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
) -> Table:
    """A hand as rows that shrink to the width left beside the board: the name gives
    way first. The element shows only when the Elemental rule makes it matter. In two
    columns (large hands) the cards run down the left column, then the right one."""
    table = Table.grid(padding=(0, 1))
    table.title, table.title_justify, table.title_style = title, "left", "bold"
    wide = columns == 1
    per_column = -(-len(cards) // columns) if cards else 0
    for part in range(columns):
        if part:
            table.add_column(min_width=1)  # a gap between the two columns of cards
        if numbered:
            table.add_column(width=3 if wide else 2, justify="left" if wide else "right")
        # The name's column is the one the table may narrow; the name itself never wraps.
        table.add_column()
        if elemental:
            table.add_column(no_wrap=True, max_width=7 if wide else 3)
        if realm:
            table.add_column(no_wrap=True)
        table.add_column(width=11 if wide else 8)
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
                row.append(realm_attributes(card.character, short=True))
            row.append(sides(card.printed_sides, spaced=wide))
        table.add_row(*row, style=style)
    return table


def seconds_left(
    view: pb.MatchView, received: datetime | None = None, now: datetime | None = None
) -> float | None:
    """Seconds left on the turn timer: the time the server gave when it sent the view,
    less the time since we ``received`` it (both read on one clock each, so a
    difference between our clock and the server's does not matter)."""
    if not view.HasField("turn_deadline_time"):
        return None
    now = now or datetime.now(UTC)
    given = view.turn_deadline_time.ToDatetime(tzinfo=UTC) - view.server_time.ToDatetime(tzinfo=UTC)
    return max(0.0, (given - (now - (received or now))).total_seconds())


def my_turn(view: pb.MatchView) -> bool:
    return view.status != pb.MATCH_STATUS_FINISHED and view.turn_seat == view.my_seat


def round_line(view: pb.MatchView) -> str:
    """'Round 2 of at most 5' in a Sudden Death match (RULES.md 12), and at a round's
    start (no card placed yet) how the round before ended: '' otherwise."""
    number = view.round_number or 1
    if not view.rules.sudden_death and number == 1:
        return ""
    line = f"Round {number} of at most {MAX_ROUNDS}"
    if view.earlier_rounds and not view.HasField("last_placement"):
        before = view.earlier_rounds[-1]
        mine, theirs = before.scores.seat_a, before.scores.seat_b
        if view.my_seat == pb.SEAT_B:
            mine, theirs = theirs, mine
        line += f"; round {before.round_number} ended {mine}-{theirs}"
    return line


def _status(view: pb.MatchView, received: datetime | None) -> Text:
    me = next(p for p in view.players if p.seat == view.my_seat)
    them = next(p for p in view.players if p.seat != view.my_seat)
    if view.status == pb.MATCH_STATUS_FINISHED:
        outcome = view.outcome
        if outcome.WhichOneof("result") == "draw":
            result = "Draw."
        else:
            result = "You win!" if outcome.winner_seat == view.my_seat else "You lose."
        reason = pb.FinishReason.Name(outcome.reason).removeprefix("FINISH_REASON_").lower()
        return Text(f"{result} ({reason.replace('_', ' ')})", style="bold")
    left = seconds_left(view, received)
    turn = "Your turn" if my_turn(view) else f"{them.player_name}'s turn"
    timer = f" - {left:.0f} s left" if left is not None else ""
    warning = "  (one more missed turn forfeits)" if me.missed_turn_warning else ""
    return Text(f"{turn}{timer}{warning}", style="bold")


def screen(view: pb.MatchView, received: datetime | None = None, layout: Layout = FULL) -> Panel:
    """The whole match: the board with both hands beside it, then whose turn it is with
    the timer (or the result); the round over the board in a Sudden Death match; how
    cards are placed in the title, what the table plays on and for (board, Sudden
    Death, trade rule) under it. ``received``: when the view arrived, for the timer
    to count down from it."""
    me = next(p for p in view.players if p.seat == view.my_seat)
    them = next(p for p in view.players if p.seat != view.my_seat)
    header = Text(no_wrap=True, overflow="ellipsis")
    header.append(f"{me.player_name} {me.score}", style=MINE)
    header.append("  vs  ")
    header.append(f"{them.player_name} {them.score}", style=THEIRS)
    lines: list[RenderableType] = [header]
    if rounds := round_line(view):
        lines.append(Text(rounds, style="bold yellow", no_wrap=True, overflow="ellipsis"))
    elemental = view.rules.elemental
    columns = layout.hand_columns
    hidden = sum(1 for s in view.opponent_hand if s.WhichOneof("slot") == "hidden")
    shown = [s.revealed for s in view.opponent_hand if s.WhichOneof("slot") == "revealed"]
    realm = is_realm(view.rules)
    hands = Group(
        hand("Your hand", [c.card for c in view.my_hand], "", elemental, columns, realm=realm),
        Text(""),
        hand(f"Their hand ({hidden} hidden)", shown, "red", elemental, columns, False, realm),
    )
    if view.HasField("realm"):
        lines.append(Text(realm_line(view), style="cyan", overflow="fold"))
    layout_grid = Table.grid(padding=(0, 2))
    layout_grid.add_column(no_wrap=True)
    layout_grid.add_column()
    layout_grid.add_row(board(view, layout), hands)
    return Panel(
        Group(*lines, layout_grid, _status(view, received)),
        title=f"match {view.match_id[:8]} v{view.version}: {placing_line(view.rules)}",
        subtitle=table_line(view.rules),
    )


def _narrowest(console: Console, options: ConsoleOptions, renderable: RenderableType) -> int:
    """The fewest columns ``renderable`` takes without cutting: rich measures a panel
    by its widest content, so panels and groups are measured here by their parts."""
    if isinstance(renderable, Panel):
        return _narrowest(console, options, renderable.renderable) + 4  # borders, padding
    if isinstance(renderable, Group):
        return max((_narrowest(console, options, r) for r in renderable.renderables), default=0)
    return Measurement.get(console, options, renderable).minimum


def _lines(console: Console, renderable: RenderableType, width: int) -> int:
    return len(console.render_lines(renderable, console.options.update_width(width), pad=False))


def fitted(
    console: Console,
    build: Callable[[Layout], RenderableType],
    width: int,
    height: int | None = None,
    prompt: RenderableType | None = None,
) -> RenderableType:
    """``build(layout)`` for the first of the ``LAYOUTS`` that fits ``width`` columns
    (and ``height`` lines, when given) without cutting anything. When none fits, a
    sentence saying the size the match needs (a screen cut to pieces would mislead),
    and the ``prompt`` under it."""
    roomy = console.options.update(max_width=max(width, 400))
    narrowest = width
    for layout in LAYOUTS:
        drawn = build(layout)
        narrowest = _narrowest(console, roomy, drawn)
        if narrowest <= width and (height is None or _lines(console, drawn, width) <= height):
            return drawn
    high = _lines(console, drawn, max(narrowest, width))
    told = Text(
        f"This terminal is {width}x{height or '?'}: the match needs at least "
        f"{narrowest}x{high} (columns x lines). Enlarge the window; q forfeits.",
        style="bold yellow",
    )
    return told if prompt is None else Group(told, prompt)
