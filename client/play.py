"""Playing from the terminal: the live screen of a match (or of the queue), typed
placements, the trade after the match (the winner's choice under One and Difference,
the loser shown what is at stake and what was taken, what moved under Direct and All),
and queueing to play."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
import uuid
from datetime import UTC, datetime

import grpc
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_cards import resolve_deck
from client.commands_trades import choice_hint, choose, trade_status, trade_table
from client.connection import Client, ClientError, describe
from client.keys import LineReader
from client.realm import parse_move
from client.render import FULL, TRADE_NAMES, Layout, example_cell, fitted, my_turn, screen

MODES = {m.removeprefix("MODE_").lower(): v for m, v in pb.Mode.items() if v}


QUEUES = ("unranked", "ranked", "roulette")
"""The queues a Random deck can join from here (Draft picks its deck in a draft)."""


LEVELS = {m.removeprefix("BOT_LEVEL_").lower(): v for m, v in pb.BotLevel.items() if v}


async def card_id(client: Client, match_id: str, card: str) -> str:
    """A card given as its index in the hand (0, 1, ...) or as its id."""
    if not card.isdigit():
        return card
    view = (
        await client.call(client.stub.GetMatchView, g.GetMatchViewRequest(match_id=match_id))
    ).view
    index = int(card)
    if not 0 <= index < len(view.my_hand):
        raise ClientError(f"your hand has cards 0..{len(view.my_hand) - 1}")
    return str(view.my_hand[index].card.card_id)


PROMPT = "card cell > "


def waiting_line(queue: pb.QueueStatus | None, received: datetime) -> Text:
    """What shows before a match: the queued ticket as the session stream told it at
    ``received``, its waiting time counted on since."""
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
    return Text(line + f" ({queue.queue_length} waiting; Ctrl-C leaves)")


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
) -> RenderableType:
    """The screen under Live: the match (or the queue), a note, and the prompt with the
    line being typed, all drawn together so that a refresh never hides the prompt.
    ``received``: when the view (or else the queue status) arrived. With a ``console``
    the match takes the first layout that fits its terminal (render.fitted).
    ``waiting``: what is shown before a match instead of the queue (a hosted table)."""
    if view is None:
        parts: list[RenderableType] = [Text(waiting) if waiting else waiting_line(queue, received)]
    elif trade is not None:  # the board gives way to the trade (80x24)
        parts = [Text(result_line(view), style="bold")]
    else:
        parts = []
    prompt: Text | None = None
    if note and trade is None:
        parts.append(Text(note, style="yellow"))
    if view is not None and view.status != pb.MATCH_STATUS_FINISHED and trade is None:
        lair = " [lair]" if view.rules.realm.lair else ""
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
            parts.append(Text(choice_hint(trade, left), style="dim"))
            offer_prompt = Text(TRADE_PROMPT, style="bold")
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
    if view is None or trade is not None:
        return Group(*parts)
    shown = view

    def build(layout: Layout) -> RenderableType:
        return Group(screen(shown, received, layout), *parts)

    if console is None:
        return build(FULL)
    return fitted(console, build, console.width, console.height, prompt)


TRADE_PROMPT = "take card > "


TRADE_WAIT_SECONDS = 20.0
"""How long the client waits for the trade (the offer, or what moved) after the match."""


TRADE_GONE_SECONDS = 5.0
"""How long the trade's result may take to arrive once it is no longer pending."""


CHOICE_RULES = (pb.TRADE_RULE_ONE, pb.TRADE_RULE_DIFFERENCE)
"""The trade rules whose trade waits for the winner's choice (GetPendingTrade shows it)."""


def choosing(trade: pb.Trade) -> bool:
    return trade.my_role == pb.TRADE_ROLE_CHOOSER and trade.status == (
        pb.TRADE_STATUS_AWAITING_CHOICE
    )


def result_line(view: pb.MatchView) -> str:
    """The result with both scores, above the trade."""
    scores = " - ".join(f"{p.player_name} {p.score}" for p in view.players)
    if view.outcome.WhichOneof("result") == "draw":
        return f"Draw. ({scores})"
    won = view.outcome.winner_seat == view.my_seat
    return f"{'You win!' if won else 'You lose.'} ({scores})"


def captured_on_board(view: pb.MatchView) -> bool:
    """Whether a card may have changed hands under Direct: a card on the final board
    owned by the player who did not place it, or any board after a Sudden Death
    round (a hand rebuilt from what each owns may hold the other's cards)."""
    return view.round_number > 1 or any(
        c.card.owner_seat != c.card.placed_by_seat
        for c in view.board
        if c.WhichOneof("content") == "card"
    )


def awaits_trade(view: pb.MatchView) -> bool:
    """Whether this player has a trade to see once the match is over (RULES.md 7, 13):
    One's winner (the choice; the loser is not kept waiting), both players of a
    Difference or All match with a winner, and both of a Direct match whose board
    holds a captured card, whatever the result."""
    if view.status != pb.MATCH_STATUS_FINISHED:
        return False
    rule = view.rules.trade_rule
    if rule == pb.TRADE_RULE_DIRECT:
        return captured_on_board(view)
    if view.outcome.WhichOneof("result") == "draw":
        return False
    if rule == pb.TRADE_RULE_ONE:
        return view.outcome.winner_seat == view.my_seat
    return rule in (pb.TRADE_RULE_DIFFERENCE, pb.TRADE_RULE_ALL)


def refusal(error: grpc.aio.AioRpcError) -> str:
    """A refused call as the server words it (a deadline passed, the server's pick
    named); a call that failed on the way is described with what to do."""
    if error.code() in REFUSALS and error.details():
        return str(error.details())
    return describe(error)


REFUSALS = (
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
)


def sentence(error: ClientError) -> str:
    said = str(error)
    return said[:1].upper() + said[1:] + ("" if said.endswith(".") else ".")


async def play(client: Client, console: Console, waiting: str = "") -> pb.MatchView | None:
    """Interactive: the session stream redraws the board; type "CARD CELL" to place.
    Plays the active match, or waits for the next one (showing ``waiting``, else the
    queue); its last view."""
    latest: dict[str, pb.MatchView] = {}
    received = datetime.now(UTC)
    queue: dict[str, pb.QueueStatus] = {}
    trades: dict[str, pb.Trade] = {}
    note = ""
    stream = client.stub.OpenSession(
        g.OpenSessionRequest(client_version="triad-client/0.1"), metadata=client.metadata()
    )

    def keep(trade: pb.Trade) -> None:
        """The trade as last told, never back from its completion to a prompt."""
        held = trades.get("trade")
        if held is None or held.trade_id != trade.trade_id or not settled(held):
            trades["trade"] = trade

    def show(view: pb.MatchView) -> None:
        nonlocal received
        shown = latest.get("view")
        if shown is None or shown.match_id != view.match_id or view.version > shown.version:
            latest["view"], received = view, datetime.now(UTC)

    async def follow() -> None:
        nonlocal note, received
        async for push in stream:
            kind = push.WhichOneof("push")
            if kind == "session_opened" and push.session_opened.HasField("active_match"):
                show(push.session_opened.active_match)
            elif kind == "match_view":
                show(push.match_view)
            elif kind == "queue_status":
                queue["status"] = push.queue_status
                if "view" not in latest:
                    received = datetime.now(UTC)
            elif kind in ("trade_prompt", "trade_result"):
                keep(getattr(push, kind))
            elif kind == "match_found":
                found = push.match_found
                note = f"Match found: you play {found.opponent_name}."
            elif kind == "notice":
                note = push.notice.message
            elif kind == "session_closed":
                note = f"Session closed: {push.session_closed.message}"
                return

    with (
        LineReader() as reader,
        Live(console=console, auto_refresh=False) as live,
    ):
        follower = asyncio.create_task(follow())
        ended: float | None = None  # when the match was seen finished (monotonic)
        asked = 0.0
        gone: float | None = None  # when a pending trade was seen no longer pending
        leaving = False
        while True:
            view = latest.get("view")
            trade = trades.get("trade")
            if view is not None and trade is not None and trade.match_id != view.match_id:
                trade = None  # another match's
            over = follower.done() or reader.done or leaving  # a piped line counts
            if view is not None and view.status == pb.MATCH_STATUS_FINISHED:
                ended = ended or time.monotonic()
                rule = view.rules.trade_rule
                if not awaits_trade(view) or (trade is not None and settled(trade)):
                    over = True
                elif gone is not None and time.monotonic() - gone > TRADE_GONE_SECONDS:
                    note = "The trade completed: triad-client collection shows your cards."
                    over = True
                elif trade is None and time.monotonic() - ended > TRADE_WAIT_SECONDS:
                    name = TRADE_NAMES.get(rule, "trade")
                    note = f"No {name} came: triad-client trade or collection shows it."
                    over = True
                elif rule in CHOICE_RULES and time.monotonic() - asked > 1:
                    # the push may have come before us, or been lost
                    asked = time.monotonic()
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        pending = await client.call(
                            client.stub.GetPendingTrade, g.GetPendingTradeRequest()
                        )
                        if pending.trade.match_id == view.match_id:
                            keep(pending.trade)
                        elif trade is not None and gone is None:
                            gone = time.monotonic()  # completed: its result is on its way
                trade = trades.get("trade")
                if trade is not None and trade.match_id != view.match_id:
                    trade = None
            shown = trade if ended else None
            live.update(
                frame(
                    view,
                    received,
                    queue.get("status"),
                    reader.typing,
                    note,
                    shown,
                    console,
                    waiting,
                ),
                refresh=True,
            )
            if over:
                break
            # Wakes at a key (to draw it) or after a quarter second (the timer).
            line = await reader.line(timeout=0.25)
            if line is None or not line.strip():
                continue
            if ended and trade is not None and choosing(trade):
                if line.strip() == "q":
                    note = "The server picks for you at the deadline."
                    leaving = True
                    continue
                try:
                    keep(await choose(client, trade, line.strip()))
                    note = ""
                except ClientError as error:  # refused here: nothing was sent
                    note = sentence(error)
                except grpc.aio.AioRpcError as error:
                    note = refusal(error)
                continue
            if ended:
                if line.strip() == "q":  # the loser need not wait for the choice
                    note = "Left before the trade completed: triad-client collection shows it."
                    leaving = True
                continue
            if view is None:
                note = "No match yet."
                continue
            try:
                if line.strip() == "q":
                    reply = await client.call(
                        client.stub.Forfeit,
                        g.ForfeitRequest(request_id=uuid.uuid4().hex, match_id=view.match_id),
                    )
                    show(reply.view)
                    note = ""
                    continue
                if not my_turn(view):
                    note = "Not your turn yet."
                    continue
                move = parse_move(line.split(), view.rules.realm.lair)
                if isinstance(move, str):
                    note = (
                        move
                        or f"Type a card number and a cell number, e.g. 0 {example_cell(view)}."
                    )
                    continue
                card, cell, lair = move
                if problem := cell_problem(view, cell):
                    note = problem
                    continue
                cid = await card_id(client, view.match_id, card)
                placed = await client.call(
                    client.stub.PlaceCard,
                    g.PlaceCardRequest(
                        request_id=uuid.uuid4().hex,
                        match_id=view.match_id,
                        card_id=cid,
                        cell=cell,
                        lair=lair,
                    ),
                )
                show(placed.view)
                note = ""
            except ClientError as error:
                note = str(error)
            except grpc.aio.AioRpcError as error:
                note = error.details() or error.code().name
        if not follower.done():
            follower.cancel()
        elif (broke := follower.exception()) is not None:
            raise broke  # the session stream broke: say why
    return latest.get("view")


async def deck_choice(client: Client, args: argparse.Namespace) -> pb.DeckChoice:
    """The saved deck --deck names (its id or the start of it), else Random."""
    if not getattr(args, "deck", None):
        return pb.DeckChoice(random=pb.RandomDeck())
    return pb.DeckChoice(deck_id=await resolve_deck(client, args.deck))


async def queue_and_play(client: Client, console: Console, mode: str, deck: pb.DeckChoice) -> None:
    """Enqueue with the deck, show the queue until a match is found, play it. A
    ticket still waiting when the player leaves is cancelled."""
    ticket = (
        await client.call(
            client.stub.Enqueue,
            g.EnqueueRequest(
                request_id=uuid.uuid4().hex,
                mode=MODES[mode],
                deck=deck,
            ),
        )
    ).ticket
    with_deck = "a Random deck" if deck.HasField("random") else "your deck"
    console.print(f"Queued for {mode} with {with_deck} (ticket {ticket.ticket_id[:8]}).")
    played = None
    try:
        played = await play(client, console)
    finally:
        if played is None:
            with contextlib.suppress(grpc.aio.AioRpcError):  # paired meanwhile: play on
                await client.call(
                    client.stub.CancelTicket,
                    g.CancelTicketRequest(request_id=uuid.uuid4().hex, ticket_id=ticket.ticket_id),
                )
                console.print("Left the queue.")
