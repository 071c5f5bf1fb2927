"""Drawing a match view in the terminal with rich: the board (``board.py``) beside both
hands, the score, the mode and the rules in the panel's title, the board, Sudden Death
and the trade rule under it, the round of a Sudden Death match, the last move with its
captures and their causes, the turn timer, and once over the result in words. At a
Realm table (RULES.md 17, ``realm.py``) the hands show each card's creature type,
alignment, Legendary mark and hex (Cursed), and lines under the board the Realm state.

Every board the view describes is drawn (rows x columns, blocked cells), beside hands
of 5, 8 or 13 cards, in the first of the ``LAYOUTS`` that fits the terminal: named
cells, then compact cells (the four values, no name), then hands in two columns, then
board rows without lines between them, then the last move after the status rather
than on its own line. A terminal too small for all of them is told the size the match
needs (``fitted``) instead of a screen cut in pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.board import CAUSE_STYLES, FULL, LAYOUTS, MINE, THEIRS, Layout, board
from client.hands import hand
from client.realm import is_realm, realm_lines
from client.rules_text import (
    MAX_ROUNDS,
    match_rules_line,
    move_words,
    result_words,
    table_line,
)


def plain_console(**options: Any) -> Console:
    """The client's console: what it prints is text, never rich markup or emoji codes
    (found from outside: a deck named 'a[/b]' made every later `deck list` fail with a
    MarkupError traceback, one named '[bot] x' was listed as ' x', and a client seed
    'x[/y]' broke `seed`; deck names and client seeds are the player's own text)."""
    return Console(markup=False, emoji=False, **options)


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
    start (no card placed yet) how the round before ended: '' otherwise. A Realm
    table's Sudden Death plays no rounds (RULES.md 17: its draw pile)."""
    number = view.round_number or 1
    if (not view.rules.sudden_death or is_realm(view.rules)) and number == 1:
        return ""
    line = f"Round {number} of at most {MAX_ROUNDS}"
    if view.earlier_rounds and not view.HasField("last_placement"):
        before = view.earlier_rounds[-1]
        line += f"; round {before.round_number} ended {round_score(view, before)}"
    return line


def round_score(view: pb.MatchView, before: pb.RoundResult) -> str:
    """A round's score, the viewer's first: '5-5'."""
    mine, theirs = before.scores.seat_a, before.scores.seat_b
    if view.my_seat == pb.SEAT_B:
        mine, theirs = theirs, mine
    return f"{mine}-{theirs}"


ROUND_BOARD_SECONDS = 5.0
"""How long a Sudden Death round's final board stays on the screen once the next round
starts (RULES.md 12: views show each round's final board), unless a key comes first."""


def round_ended(
    view: pb.MatchView, received: datetime, typing: str = "", now: datetime | None = None
) -> pb.RoundResult | None:
    """The round just ended, whose final board to show: at the next round's start (no
    card placed in it yet), for ROUND_BOARD_SECONDS after its view arrived at
    ``received``, while nothing is typed; None otherwise."""
    if view.status != pb.MATCH_STATUS_IN_PROGRESS or typing or view.HasField("last_placement"):
        return None
    if not view.earlier_rounds or not view.earlier_rounds[-1].board:
        return None
    waited = ((now or datetime.now(UTC)) - received).total_seconds()
    return view.earlier_rounds[-1] if waited < ROUND_BOARD_SECONDS else None


def final_board(view: pb.MatchView, before: pb.RoundResult) -> pb.MatchView:
    """``view`` with the final board of the round ``before`` in place of its own, and
    the move that filled it (its captures by cause) as the last move."""
    shown = pb.MatchView()
    shown.CopyFrom(view)
    del shown.board[:]
    shown.board.extend(before.board)
    shown.ClearField("last_placement")
    if before.HasField("last_placement"):
        shown.last_placement.CopyFrom(before.last_placement)
    return shown


def final_board_line(view: pb.MatchView, before: pb.RoundResult, received: datetime) -> str:
    """Above a round's final board: whose it is, how it ended, when the next shows."""
    left = ROUND_BOARD_SECONDS - (datetime.now(UTC) - received).total_seconds()
    return (
        f"Round {before.round_number}'s final board ({round_score(view, before)}); "
        f"round {view.round_number} in {max(1, round(left))} s, or at a key"
    )


def earlier_boards(view: pb.MatchView, layout: Layout = FULL) -> list[RenderableType]:
    """Each earlier round's final board of a Sudden Death match, oldest first, with how
    it ended and the move that filled it (RULES.md 12: views show each round's final
    board): ``triad-client view`` prints them above the round the view is in, so a
    finished match shows every round, not only its last (found from outside)."""
    drawn: list[RenderableType] = []
    for before in view.earlier_rounds:
        shown = final_board(view, before)
        lines: list[RenderableType] = [
            Text(
                f"Round {before.round_number}'s final board: a tie at {round_score(view, before)}, "
                f"so round {before.round_number + 1} was played.",
                style="bold yellow",
            ),
            board(shown, layout),
        ]
        if shown.HasField("last_placement"):
            lines.append(move_text(shown, shown.last_placement))
        drawn.append(Group(*lines))
    return drawn


def status_line(view: pb.MatchView, received: datetime | None) -> str:
    """Whose turn it is with the timer and a missed turn's warning; once over, the
    result with the scores and why it ended ('You win 6-4: the board is full.')."""
    if view.status == pb.MATCH_STATUS_FINISHED:
        return result_words(view)
    me = next(p for p in view.players if p.seat == view.my_seat)
    them = next(p for p in view.players if p.seat != view.my_seat)
    left = seconds_left(view, received)
    turn = "Your turn" if my_turn(view) else f"{them.player_name}'s turn"
    timer = f" - {left:.0f} s left" if left is not None else ""
    warning = "  (you missed a turn: one more forfeits)" if me.missed_turn_warning else ""
    if them.missed_turn_warning:  # found from outside: told only by their move's line
        warning += f"  ({them.player_name + ': ' if my_turn(view) else ''}one more miss forfeits)"
    return f"{turn}{timer}{warning}{away_words(them, named=my_turn(view))}"


def away_words(them: pb.MatchPlayerView, named: bool = True) -> str:
    """The opponent without a session (they lost it, or never opened one since the
    match began) and when they forfeit unless they connect: the view says so from the
    start, where the OPPONENT_DISCONNECTED notice needs them seen connected first.
    ``named``: not on their turn, whose words just named them."""
    if them.connected or them.is_bot or not them.HasField("disconnect_forfeit_time"):
        return ""
    by = them.disconnect_forfeit_time.ToDatetime(tzinfo=UTC).strftime("%H:%M:%S")
    # Short enough for the frame with a 20-letter name and the turn's clock (found from
    # outside: the longer words cut the time off on their turn, the name said twice).
    return f"  ({them.player_name + ' ' if named else ''}away: forfeits at {by} UTC)"


def move_text(view: pb.MatchView, move: pb.Placement, wrap: bool = False) -> Text:
    """A move and what it captured, each capture in its cause's colour; on one line cut
    short unless ``wrap``."""
    text = Text() if wrap else Text(no_wrap=True, overflow="ellipsis")
    for piece, tag in move_words(view, move):
        text.append(piece, style=f"bold {CAUSE_STYLES[tag]}" if tag else "")
    return text


def recent_moves(view: pb.MatchView, seen: list[pb.Placement] | None = None) -> list[pb.Placement]:
    """The moves of this round to tell, oldest first: those ``seen`` in earlier views
    of it (the player's own captures stay told after a bot's quick answer), ending
    with the view's last placement."""
    if not view.HasField("last_placement"):
        return []
    last = view.last_placement
    placed = sum(1 for c in view.board if c.WhichOneof("content") == "card")
    first_of_round = last.turn_number - placed + 1  # a placement adds one card
    earlier = {p.turn_number: p for p in seen or [] if first_of_round <= p.turn_number}
    return [*(earlier[t] for t in sorted(earlier) if t < last.turn_number), last]


HEADER_WIDTH = 76
"""The columns inside the match's frame on an 80-column terminal."""


def screen(
    view: pb.MatchView,
    received: datetime | None = None,
    layout: Layout = FULL,
    seen: list[pb.Placement] | None = None,
    ended: pb.RoundResult | None = None,
) -> Panel:
    """The whole match: the board with both hands beside it, the last move, then whose
    turn it is with the timer (or the result); the round over the board in a Sudden
    Death match; the mode and how cards are placed in the title (the rules line), what
    the table plays on and for (board, Sudden Death, trade rule) under it.
    ``received``: when the view arrived, for the timer to count down from it;
    ``seen``: the moves told by earlier views of the match; ``ended``: the round whose
    final board is drawn instead (round_ended)."""
    rounds = round_line(view)
    if ended is not None and received is not None:
        rounds = final_board_line(view, ended, received)
        view = final_board(view, ended)
    me = next(p for p in view.players if p.seat == view.my_seat)
    them = next(p for p in view.players if p.seat != view.my_seat)
    header = Text(no_wrap=True, overflow="ellipsis")
    header.append(f"{me.player_name} {me.score}", style=MINE)
    header.append("  vs  ")
    header.append(f"{them.player_name} {them.score}", style=THEIRS)
    lines: list[RenderableType] = [header]
    beside = f"   {rounds}"
    if rounds and header.cell_len + len(beside) <= HEADER_WIDTH:
        # Beside the scores when both fit: a 5x5 Sudden Death match's last frame then
        # leaves a row for the shell's prompt, which scrolled the rules line away.
        header.append(beside, style="bold yellow")
    elif rounds:
        lines.append(Text(rounds, style="bold yellow", no_wrap=True, overflow="ellipsis"))
    elemental = view.rules.elemental
    columns = layout.hand_columns
    hidden = sum(1 for s in view.opponent_hand if s.WhichOneof("slot") == "hidden")
    shown = [s.revealed for s in view.opponent_hand if s.WhichOneof("slot") == "revealed"]
    realm, cursed = is_realm(view.rules), view.rules.realm.cursed  # hexes in hand
    mine = [c.card for c in view.my_hand]
    hands = Group(
        hand("Your hand", mine, "", elemental, columns, realm=realm, cursed=cursed),
        Text(""),
        hand(
            f"Their hand ({hidden} hidden)" if hidden else "Their hand",
            shown,
            "red",
            elemental,
            columns,
            False,
            realm,
            cursed,
        ),
    )
    layout_grid = Table.grid(padding=(0, 2))
    layout_grid.add_column(no_wrap=True)
    layout_grid.add_column()
    layout_grid.add_row(board(view, layout), hands)
    # A Realm table's state (spent Lair and Resistance, Rot, hexes, the pile, the last
    # move's comparisons and saves) on a line under the board.
    tying = view.realm.tying_placement if view.realm.HasField("tying_placement") else None
    tie = "".join(piece for piece, _ in move_words(view, tying)) if tying else ""
    compact = not layout.named_cells  # a tighter layout: the comparisons' modifiers too
    realm_said = realm_lines(view, HEADER_WIDTH, tie, compact) if view.HasField("realm") else []
    realm_text = [Text(line, style="cyan") for line in realm_said]
    # The status and the moves wrap (found from outside: a long capture list and the end's
    # result were cut); a layout they make too tall gives way to the next (``fitted``).
    said = status_line(view, received)
    status = Text(said, style="bold", no_wrap=True, overflow="ellipsis")
    moves = [move_text(view, m, wrap=True) for m in recent_moves(view, seen)]
    if layout.move_lines:
        below = [*moves[-layout.move_lines :], Text(said, style="bold")]
    elif moves:  # no line of its own: the last move after the status
        below = [Text.assemble(status, "  |  ", moves[-1], no_wrap=True, overflow="ellipsis")]
    else:
        below = [status]
    return Panel(
        Group(*lines, layout_grid, *realm_text, *below),
        title=match_rules_line(view),
        subtitle=f"{table_line(view.rules)} - match {view.match_id[:8]} v{view.version}",
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
    spare: int = 0,
    squeezed: Callable[[Layout], RenderableType] | None = None,
) -> RenderableType:
    """``build(layout)`` for the first of the ``LAYOUTS`` that fits ``width`` columns
    (and ``height`` lines, when given) without cutting anything, leaving ``spare`` lines
    free where a layout can; else ``squeezed(layout)`` the same way (the screen with its
    note on one line, cut: a long notice must not hide the board). When none fits, a
    sentence saying the size the match needs (a screen cut to pieces would mislead),
    and the ``prompt`` under it."""
    roomy = console.options.update(max_width=max(width, 400))
    narrowest = width
    rooms = (height,) if height is None or not spare else (height - spare, height)
    for make in (build,) if squeezed is None else (build, squeezed):
        for room in rooms:
            for layout in LAYOUTS:
                drawn = make(layout)
                narrowest = _narrowest(console, roomy, drawn)
                if narrowest <= width and (room is None or _lines(console, drawn, width) <= room):
                    return drawn
    high = _lines(console, drawn, max(narrowest, width))
    told = Text(
        f"This terminal is {width}x{height or '?'}: the match needs at least "
        f"{narrowest}x{high} (columns x lines). Enlarge the window; q forfeits.",
        style="bold yellow",
    )
    return told if prompt is None else Group(told, prompt)
