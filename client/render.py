"""Drawing a match view in the terminal with rich: owners in colour, element marks,
adjusted values, the turn timer."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb

ELEMENT_NAMES = {v: k.removeprefix("ELEMENT_").lower() for k, v in pb.Element.items()}
MINE, THEIRS = "bold cyan", "bold red"


def side(value: int) -> str:
    return "A" if value == 10 else str(value)


def _cell(view: pb.MatchView, cell: pb.BoardCell) -> Text:
    """Three lines: the top side; left side, name, right side; the bottom side. The cell's
    element mark (Elemental) follows the bottom side; an empty cell shows its number."""
    mark = ELEMENT_NAMES.get(cell.mark, "") if cell.mark else ""
    kind = cell.WhichOneof("content")
    if kind == "blocked":
        return Text("\n#####\n", style="dim", justify="center")
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


def board(view: pb.MatchView) -> Table:
    rows = view.rules.board.rows or 3
    cols = view.rules.board.columns or 3
    table = Table(show_header=False, show_lines=True, padding=(0, 1))
    for _ in range(cols):
        table.add_column(justify="center", min_width=11, no_wrap=True)
    cells = list(view.board)
    for r in range(rows):
        table.add_row(*(_cell(view, cells[r * cols + c]) for c in range(cols)))
    return table


def hand(title: str, cards: list[pb.Card], style: str, elemental: bool) -> Table:
    """A hand as rows that shrink to the width left beside the board: the name gives
    way first. The element shows only when the Elemental rule makes it matter."""
    table = Table.grid(padding=(0, 1))
    table.title, table.title_justify, table.title_style = title, "left", "bold"
    table.add_column(no_wrap=True, min_width=3)
    # The name's column is the one the table may narrow; the name itself never wraps.
    table.add_column(min_width=5)
    if elemental:
        table.add_column(no_wrap=True, overflow="ellipsis", min_width=4, max_width=7)
    table.add_column(no_wrap=True, min_width=11)
    for index, card in enumerate(cards):
        s = card.printed_sides
        name = card.character.name + (" (holo)" if card.holo else "")
        row: list[str | Text] = [f"[{index}]", Text(name, no_wrap=True, overflow="ellipsis")]
        if elemental:
            row.append(ELEMENT_NAMES.get(card.character.element, "") or "-")
        row.append(f"T{side(s.top)} R{side(s.right)} B{side(s.bottom)} L{side(s.left)}")
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


def screen(view: pb.MatchView, received: datetime | None = None) -> Panel:
    """The whole match in about 20 lines: the board with both hands beside it, then
    whose turn it is with the timer (or the result). ``received``: when the view
    arrived, for the timer to count down from it."""
    me = next(p for p in view.players if p.seat == view.my_seat)
    them = next(p for p in view.players if p.seat != view.my_seat)
    header = Text()
    header.append(f"{me.player_name} {me.score}", style=MINE)
    header.append("  vs  ")
    header.append(f"{them.player_name} {them.score}", style=THEIRS)
    elemental = view.rules.elemental
    hidden = sum(1 for s in view.opponent_hand if s.WhichOneof("slot") == "hidden")
    shown = [s.revealed for s in view.opponent_hand if s.WhichOneof("slot") == "revealed"]
    hands = Group(
        hand("Your hand", [c.card for c in view.my_hand], "", elemental),
        Text(""),
        hand(f"Their hand ({hidden} hidden)", shown, "red", elemental),
    )
    layout = Table.grid(padding=(0, 2))
    layout.add_column(no_wrap=True)
    layout.add_column()
    layout.add_row(board(view), hands)
    if view.status == pb.MATCH_STATUS_FINISHED:
        outcome = view.outcome
        if outcome.WhichOneof("result") == "draw":
            result = "Draw."
        else:
            result = "You win!" if outcome.winner_seat == view.my_seat else "You lose."
        reason = pb.FinishReason.Name(outcome.reason).removeprefix("FINISH_REASON_").lower()
        status = Text(f"{result} ({reason})", style="bold")
    else:
        left = seconds_left(view, received)
        turn = "Your turn" if my_turn(view) else f"{them.player_name}'s turn"
        timer = f" - {left:.0f} s left" if left is not None else ""
        warning = "  (one more missed turn forfeits)" if me.missed_turn_warning else ""
        status = Text(f"{turn}{timer}{warning}", style="bold")
    return Panel(Group(header, layout, status), title=f"match {view.match_id[:8]}  v{view.version}")
