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
    mark = ELEMENT_NAMES.get(cell.mark, "") if cell.mark else ""
    kind = cell.WhichOneof("content")
    if kind == "blocked":
        return Text("#####", style="dim")
    if kind == "empty":
        return Text(f"({cell.index})\n{mark}", style="dim", justify="center")
    placed = cell.card
    s = placed.adjusted_sides
    style = MINE if placed.owner_seat == view.my_seat else THEIRS
    text = Text(justify="center", style=style)
    text.append(f"{side(s.top)}\n{side(s.left)} {side(s.right)}\n{side(s.bottom)}\n")
    text.append(placed.card.character.name[:12], style="italic")
    if mark:
        text.append(f"\n[{mark}]", style="yellow")
    return text


def board(view: pb.MatchView) -> Table:
    rows = view.rules.board.rows or 3
    cols = view.rules.board.columns or 3
    table = Table(show_header=False, show_lines=True, padding=(0, 1))
    for _ in range(cols):
        table.add_column(justify="center", min_width=12)
    cells = list(view.board)
    for r in range(rows):
        table.add_row(*(_cell(view, cells[r * cols + c]) for c in range(cols)))
    return table


def card_line(index: int, card: pb.Card) -> str:
    s = card.printed_sides
    element = ELEMENT_NAMES.get(card.character.element, "") if card.character.element else "-"
    holo = " holo" if card.holo else ""
    return (
        f"[{index}] {card.character.name} {'*' * card.character.stars} {element}{holo}  "
        f"T{side(s.top)} R{side(s.right)} B{side(s.bottom)} L{side(s.left)}"
    )


def seconds_left(view: pb.MatchView, now: datetime | None = None) -> float | None:
    if not view.HasField("turn_deadline_time"):
        return None
    # Correct for the difference between our clock and the server's.
    skew = (now or datetime.now(UTC)) - view.server_time.ToDatetime(tzinfo=UTC)
    deadline = view.turn_deadline_time.ToDatetime(tzinfo=UTC) + skew
    return max(0.0, (deadline - (now or datetime.now(UTC))).total_seconds())


def screen(view: pb.MatchView) -> Panel:
    me = next(p for p in view.players if p.seat == view.my_seat)
    them = next(p for p in view.players if p.seat != view.my_seat)
    header = Text()
    header.append(f"{me.player_name} {me.score}", style=MINE)
    header.append("  vs  ")
    header.append(f"{them.player_name} {them.score}", style=THEIRS)
    lines: list[Text | Table] = [header, board(view)]
    if view.status == pb.MATCH_STATUS_FINISHED:
        outcome = view.outcome
        if outcome.WhichOneof("result") == "draw":
            result = "Draw."
        else:
            result = "You win!" if outcome.winner_seat == view.my_seat else "You lose."
        reason = pb.FinishReason.Name(outcome.reason).removeprefix("FINISH_REASON_").lower()
        lines.append(Text(f"{result} ({reason})", style="bold"))
    else:
        left = seconds_left(view)
        turn = "Your turn" if view.turn_seat == view.my_seat else f"{them.player_name}'s turn"
        timer = f" - {left:.0f} s left" if left is not None else ""
        warning = "  (one more missed turn forfeits)" if me.missed_turn_warning else ""
        lines.append(Text(f"{turn}{timer}{warning}", style="bold"))
    lines.append(Text("Your hand:"))
    lines += [Text(card_line(i, c.card)) for i, c in enumerate(view.my_hand)]
    hidden = sum(1 for s in view.opponent_hand if s.WhichOneof("slot") == "hidden")
    shown = [s.revealed for s in view.opponent_hand if s.WhichOneof("slot") == "revealed"]
    lines.append(Text(f"Their hand: {len(shown)} shown, {hidden} hidden"))
    lines += [Text("  " + card_line(i, c), style="red") for i, c in enumerate(shown)]
    return Panel(Group(*lines), title=f"match {view.match_id[:8]}  v{view.version}")
