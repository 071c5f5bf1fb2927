"""The live screen of ``triad-client play``: the match (or the queue, or the draft)
with a note and the prompt drawn together, so that a refresh never hides the line being
typed; the trade after the match; once over, the summary (result, rating, trade)."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console, Group, RenderableType
from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.board import FULL, Layout, example_cell
from client.commands_trades import choice_hint, trade_status, trade_table
from client.drafting import draft_frame
from client.expiry import expiry
from client.render import fitted, my_turn, round_ended, screen
from client.rules_text import end_reason, move_words
from client.summary import captured_on_board, summary

PROMPT = "card cell > "

SWITCH_KEY = "b"
"""Typed while queued: give up the ticket for a practice match against a bot."""
QUEUE_PROMPT = f"{SWITCH_KEY} and Enter > "


def waiting_line(
    queue: pb.QueueStatus | None, received: datetime, table: pb.Table | None = None
) -> Text:
    """What shows before a match: the queued ticket as the session stream told it at
    ``received``, its waiting time counted on since; else the open table the player
    hosts (a challenge waits for its player), or why it will never start."""
    queued = queue is not None and queue.ticket.status == pb.TICKET_STATUS_QUEUED
    if not queued and table is not None and (said := table_line(table)):
        return Text(said)
    if queue is None or queue.ticket.status != pb.TICKET_STATUS_QUEUED:
        return Text(
            "No active match and no ticket: waiting for one. Start one with "
            "triad-client practice or triad-client queue (Ctrl-C leaves)."
        )
    mode = pb.Mode.Name(queue.ticket.mode).removeprefix("MODE_").capitalize()
    waited = queue.wait_duration.ToTimedelta() + (datetime.now(UTC) - received)
    line = f"In the {mode} queue: {waited.total_seconds():.0f} s"
    if queue.rating_window:
        line += f", opponents within {queue.rating_window} points"
    if queue.HasField("bot_fill_delay"):
        line += f"; a bot takes the seat at {queue.bot_fill_delay.seconds} s"
    count = f"{queue.queue_length} waiting; " if queue.queue_length else ""
    if queue.ticket.mode == pb.MODE_BATTLE:  # no practice match to switch to
        return Text(line + f" ({count}Ctrl-C leaves)")
    return Text(line + f" ({count}Ctrl-C leaves; {SWITCH_KEY}: play a practice bot now)")


TABLE_ENDS = (pb.TABLE_STATUS_CLOSED, pb.TABLE_STATUS_EXPIRED, pb.TABLE_STATUS_DECLINED)
"""A table the player hosts that will never start: the host's screen ends, saying why."""


def table_line(table: pb.Table) -> str:
    """The table the player hosts, open and waiting, or why it will never start ('' once
    it started: its match is shown)."""
    name, short = table.challenged_player_name, table.table_id[:8]
    if table.status == pb.TABLE_STATUS_OPEN:
        who = f"{name} to accept your challenge" if name else "a guest to join"
        return (
            f"Your table {short} is open: waiting for {who} "
            f"(triad-client close closes it; Ctrl-C leaves it open{expiry(table)})."
        )
    if table.status == pb.TABLE_STATUS_DECLINED:
        return f"{name} declined your challenge (table {short})."
    if table.status == pb.TABLE_STATUS_EXPIRED and name:
        return f"Your challenge to {name} expired (table {short})."
    if table.status == pb.TABLE_STATUS_EXPIRED:
        return f"Your table {short} expired: nobody joined it."
    if table.status == pb.TABLE_STATUS_CLOSED and table.close_reason:
        return f"Your table {short} was closed when a guest sat down: {table.close_reason}."
    if table.status == pb.TABLE_STATUS_CLOSED:
        return f"Your table {short} was closed."
    return ""


def cell_problem(view: pb.MatchView, cell: int) -> str:
    """Why a card cannot go to ``cell`` now, as the board shows it ('' when it can):
    blocked cells and taken ones are never offered as a move."""
    if not 0 <= cell < len(view.board):
        return f"The board's cells are 0..{len(view.board) - 1}."
    content = view.board[cell].WhichOneof("content")
    if content == "blocked":
        return f"Cell {cell} is blocked: choose a numbered cell."
    if content != "empty":
        return f"Cell {cell} is taken: choose a numbered cell."
    return ""


def settled(trade: pb.Trade) -> bool:
    """Chosen (or moved at once): nothing is left to choose or wait for."""
    return trade.status in (pb.TRADE_STATUS_CHOSEN, pb.TRADE_STATUS_COMPLETED)


def frame(
    view: pb.MatchView | None,
    received: datetime,
    queue: pb.QueueStatus | None,
    typing: str,
    note: str,
    trade: pb.Trade | None = None,
    console: Console | None = None,
    waiting: str = "",
    draft: pb.DraftView | None = None,
    rating: pb.RatingChange | None = None,
    seen: list[pb.Placement] | None = None,
    table: pb.Table | None = None,
) -> RenderableType:
    """The screen under Live: the match (or the queue), a note, and the prompt with the
    line being typed, all drawn together so that a refresh never hides the prompt.
    ``received``: when the view (or else the queue status) arrived. With a ``console``
    the match takes the first layout that fits its terminal (render.fitted).
    ``waiting``: what is shown before a match instead of the queue (a hosted table).
    ``draft``: the draft being picked, shown instead of the match until it is played;
    ``rating``: the match's rating change, for the summary once it is over;
    ``seen``: the moves earlier views of the match told (render.recent_moves);
    ``table``: the table the player hosts, waited on when nothing else is going on."""
    if draft is not None:
        return draft_frame(draft, typing, note, rating, console)
    if view is None:
        ended = table is not None and table.status in TABLE_ENDS  # said over ``waiting``
        line = Text(waiting) if waiting and not ended else waiting_line(queue, received, table)
        parts: list[RenderableType] = [line]
    elif trade is not None:  # the board gives way to the trade (80x24)
        parts = [Text(result_line(view), style="bold")]
        if view.HasField("last_placement"):  # found from outside: the end's move unseen
            last = "".join(piece for piece, _ in move_words(view, view.last_placement))
            parts.append(Text(f"Last move: {last}", style="dim"))
    else:
        parts = []
    prompt: Text | None = None
    offer_hint: Text | None = None  # the trade's, which a note replaces where both do not fit
    finished = view is not None and view.status == pb.MATCH_STATUS_FINISHED
    noted = bool(note) and trade is None and not finished  # once over, the summary says it all
    if noted:
        parts.append(Text(note, style="yellow"))
    at = len(parts) - 1  # the note's place, when there is one
    if view is not None and finished and trade is None:
        parts.extend(summary(view, rating, None)[1:])  # the result is in the panel
    elif view is not None and trade is None:
        # A Realm table with Lair, until the player's is spent (found from outside:
        # '[lair]' was offered after it, and typing it was refused)
        spent = any(s.seat == view.my_seat and s.lair_spent for s in view.realm.seats)
        lair = " [lair]" if view.rules.realm.lair and not spent else ""
        hint = (
            f"Type card and cell{lair} (0 {example_cell(view)}: your first card to cell "
            f"{example_cell(view)}); q forfeits."
            if my_turn(view)
            else "Wait for your turn; q forfeits."
        )
        if not note:  # a note takes the hint's line (80x24)
            parts.append(Text(hint, style="dim"))
        prompt = Text(PROMPT, style="bold")
        prompt.append(typing)
        prompt.append("_", style="blink")
        parts.append(prompt)
    elif trade is not None:
        parts.append(trade_table(trade, view))
        if note:  # under the cards it is about, over the prompt
            parts.append(Text(note, style="yellow"))
        deadline = trade.choice_deadline_time.ToDatetime(tzinfo=UTC)
        left = max(0, int((deadline - datetime.now(UTC)).total_seconds()))
        if choosing(trade):
            offer_hint = Text(choice_hint(trade, left), style="dim")
            parts.append(offer_hint)
            prompt_words = TRADE_PROMPT if trade.take_count <= 1 else TAKE_PROMPT
            offer_prompt = Text(prompt_words.format(count=trade.take_count), style="bold")
            offer_prompt.append(typing)
            offer_prompt.append("_", style="blink")
            parts.append(offer_prompt)
        elif trade.status == pb.TRADE_STATUS_AWAITING_CHOICE:  # the loser, told the stake
            parts.append(
                Text(
                    f"{trade_status(trade)} {left} s left, then the server picks; q leaves.",
                    style="bold",
                )
            )
        else:
            parts.append(Text(trade_status(trade), style="bold"))
    if view is None and queue is not None and queue.ticket.status == pb.TICKET_STATUS_QUEUED:
        # what is typed shows, as on every other screen (found from outside: b was typed
        # blind, nothing on the screen until Enter)
        waiting_prompt = Text(QUEUE_PROMPT, style="bold")
        waiting_prompt.append(typing)
        waiting_prompt.append("_", style="blink")
        parts.append(waiting_prompt)
    if trade is not None and note and console is not None and too_tall(console, parts):
        # Found from outside: in a terminal with no row spare under the offer, a refusal
        # ('Card 3 is named twice') pushed the prompt off the screen. The note takes the
        # hint's line, as on the match screen, until the next line typed.
        parts = [part for part in parts if part is not offer_hint]
    if view is None or trade is not None:
        return Group(*parts)
    shown = view
    closed_round = round_ended(view, received, typing)  # a Sudden Death round's final board

    def build(layout: Layout) -> RenderableType:
        return Group(screen(shown, received, layout, seen, closed_round), *parts)

    # A note too long for one line (a notice with a long name) would push a 5x5 board
    # out of 80x24: it is then cut to one line rather than the board given up.
    short = [*parts[:at], Text(note, style="yellow", no_wrap=True, overflow="ellipsis")]

    def squeezed(layout: Layout) -> RenderableType:
        return Group(screen(shown, received, layout, seen, closed_round), *short, *parts[at + 1 :])

    if console is None:
        return build(FULL)
    # The last frame stays on the screen with the shell's prompt under it: a row spare
    # where a layout leaves one, or its top line (the rules) scrolls away.
    spare = 1 if finished else 0
    # Too small for the match: the note still shows over the prompt (the forfeit's
    # question above all: a q typed there must say what it asks).
    under = Group(Text(note, style="yellow"), prompt) if noted and prompt else prompt
    return fitted(
        console, build, console.width, console.height, under, spare, squeezed if noted else None
    )


TRADE_PROMPT = "take card > "
TAKE_PROMPT = "take {count} cards > "
"""Trade Difference: the winner types that many card numbers."""


TRADE_WAIT_SECONDS = 20.0
"""How long the client waits for the trade (the offer, or what moved) after the match."""


TRADE_GONE_SECONDS = 5.0
"""How long the trade's result may take to arrive once it is no longer pending."""


def too_tall(console: Console, parts: list[RenderableType]) -> bool:
    """Whether ``parts`` take more rows than the terminal has (Live cuts the rest)."""
    return len(console.render_lines(Group(*parts), console.options, pad=False)) > console.height


def choosing(trade: pb.Trade) -> bool:
    return trade.my_role == pb.TRADE_ROLE_CHOOSER and trade.status == (
        pb.TRADE_STATUS_AWAITING_CHOICE
    )


def result_line(view: pb.MatchView) -> str:
    """The result with both scores, above the trade; with why it ended before the board
    was full, after the scores ('You win! (ann 5 - bea 5; bea forfeited)': found from
    outside, 'You win! (bea stayed disconnected past the grace period at ann 6 - bea 4)'
    was hard to read)."""
    # The player's own score first, as 'You win 10-6' says it (found from outside: a
    # winner in the second seat read 'You win! (bea 2 - ann 8)', the loser first).
    seats = sorted(view.players, key=lambda p: p.seat != view.my_seat)
    scores = " - ".join(f"{p.player_name} {p.score}" for p in seats)
    if view.outcome.reason != pb.FINISH_REASON_BOARD_FULL:
        scores = f"{scores}; {end_reason(view)}"
    if view.outcome.WhichOneof("result") == "draw":
        return f"Draw. ({scores})"
    won = view.outcome.winner_seat == view.my_seat
    return f"{'You win!' if won else 'You lose.'} ({scores})"


def awaits_trade(view: pb.MatchView) -> bool:
    """Whether this player has a trade to see once the match is over (RULES.md 7, 13):
    both players of a One, Difference or All match with a winner (the winner's choice,
    the loser's stake and then what was taken: found from outside, One's loser was let
    go before the choice and never told which card left, though no new match could
    start before it), and both of a Direct match whose board holds a captured card,
    whatever the result."""
    if view.status != pb.MATCH_STATUS_FINISHED:
        return False
    rule = view.rules.trade_rule
    if rule == pb.TRADE_RULE_DIRECT:
        return captured_on_board(view)
    if view.outcome.WhichOneof("result") == "draw":
        return False
    return rule in (pb.TRADE_RULE_ONE, pb.TRADE_RULE_DIFFERENCE, pb.TRADE_RULE_ALL)
