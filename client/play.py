"""Playing from the terminal: the live screen of a match (or of the queue, or of a
draft: ``drafting.py``), typed placements (``0 5 lair`` declares Lair at a Realm table,
``realm.parse_move``), the trade after the match (the winner's choice under One and
Difference, the loser shown what is at stake and what was taken, what moved under Direct
and All), the summary at the end, queueing to play and the switch from the queue to a
practice bot (``b``)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid

import grpc
from rich.console import Console
from rich.live import Live
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client import drafting
from client.battle import play_battle
from client.board import example_cell
from client.commands_trades import CHOICE_RULES, choose
from client.connection import Client, ClientError
from client.failures import describe
from client.forfeit_question import forfeit_or_ask
from client.frame import (
    SWITCH_KEY,
    TABLE_ENDS,
    TRADE_GONE_SECONDS,
    TRADE_WAIT_SECONDS,
    awaits_trade,
    cell_problem,
    choosing,
    frame,
    settled,
)
from client.keys import LineReader
from client.leaving import going_on, leave_queue
from client.realm import parse_move
from client.render import my_turn
from client.rules_text import TRADE_NAMES
from client.session import NOT_YOUR_TURN, Followed
from client.summary import after_trade

MODES = {m.removeprefix("MODE_").lower(): v for m, v in pb.Mode.items() if v}


async def enqueue(client: Client, mode: str, deck: pb.DeckChoice) -> pb.QueueStatus:
    """The new ticket in the ``mode`` queue (Draft: no deck) in its first status."""
    request = g.EnqueueRequest(
        request_id=uuid.uuid4().hex, mode=MODES[mode], deck=None if mode == "draft" else deck
    )
    reply: g.EnqueueResponse = await client.call(client.stub.Enqueue, request)
    reply.status.ticket.CopyFrom(reply.ticket)
    return reply.status


QUEUES = ("unranked", "ranked", "roulette", "draft")
"""The queues (Draft picks its deck in a draft: --deck is ignored there)."""


LEVELS = {m.removeprefix("BOT_LEVEL_").lower(): v for m, v in pb.BotLevel.items() if v}


def card_id(view: pb.MatchView, card: str) -> str:
    """A card given as its index in the hand of ``view`` (0, 1, ...: the hand the player
    is looking at, so no read before a placement) or as its id."""
    if card in (c.card.card_id for c in view.my_hand):
        return card
    index = int(card) if card.isdigit() else -1  # found from outside: '-1 4' was sent as an id
    if not 0 <= index < len(view.my_hand):
        raise ClientError(f"your hand has cards 0..{len(view.my_hand) - 1}")
    return str(view.my_hand[index].card.card_id)


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


RATING_WAIT_SECONDS = 10.0
"""How long the client waits for a rated match's rating change, for the summary."""


async def rating_of(client: Client, told: Followed, view: pb.MatchView) -> None:
    """The match's rating change from the ladder's history, if it is there yet."""
    with contextlib.suppress(grpc.aio.AioRpcError):
        history = await client.call(
            client.stub.ListRatingHistory,
            g.ListRatingHistoryRequest(ladder=view.ladder, page_size=5),
        )
        for change in history.changes:
            if change.match_id == view.match_id:
                told.ratings[view.match_id] = change


async def switch_to_practice(
    client: Client, ticket: pb.Ticket, level: str = "novice", deck: pb.DeckChoice | None = None
) -> g.SwitchToPracticeResponse:
    """Give up a queued ticket for a practice match against a bot (a Draft ticket
    brings a Random deck: it has none of its own)."""
    if deck is None and ticket.mode == pb.MODE_DRAFT:
        deck = pb.DeckChoice(random=pb.RandomDeck())
    return await client.call(
        client.stub.SwitchToPractice,
        g.SwitchToPracticeRequest(
            request_id=uuid.uuid4().hex,
            ticket_id=ticket.ticket_id,
            bot_level=LEVELS[level],
            deck=deck,
        ),
    )


async def show_traded_match(client: Client, told: Followed, trade: pb.Trade) -> None:
    """The finished match of a trade the session opened with and no match shown (the
    player was away when it ended): shown as it ended, the trade follows it."""
    with contextlib.suppress(grpc.aio.AioRpcError):  # the session shows what it can
        reply = await client.call(
            client.stub.GetMatchView, g.GetMatchViewRequest(match_id=trade.match_id)
        )
        if told.view is None:
            told.show(reply.view)


async def before_match(client: Client, told: Followed, line: str) -> str:
    """A line typed before any match: a draft's reveal or pick, or the switch from
    the queue to a practice bot. The note to show."""
    draft = told.drafting()
    if draft is not None and draft.status == pb.DRAFT_STATUS_PICKING:
        told.keep_draft(await drafting.act(client, draft, line.split()))
        return ""
    queued = told.queue is not None and told.queue.ticket.status == pb.TICKET_STATUS_QUEUED
    queued = queued and told.queue is not None and told.queue.ticket.mode != pb.MODE_BATTLE
    if line.strip() == SWITCH_KEY and queued and told.queue is not None:
        switched = await switch_to_practice(client, told.queue.ticket)
        told.queue = None
        told.show(switched.view)
        return "Switched from the queue to a practice match against a bot."
    return "No match yet." + (f" Type {SWITCH_KEY} for a practice bot." if queued else "")


async def play(
    client: Client,
    console: Console,
    waiting: str = "",
    resuming: bool = False,
    told: Followed | None = None,
) -> pb.MatchView | None:
    """Interactive: the session stream redraws the board; type "CARD CELL" to place.
    Plays the active match (``resuming``: one this client did not just start, which
    the screen says), or waits for the next one (showing ``waiting``, else the queue,
    or the draft to pick); its last view. A Skirmish battle (the Battle queue paired
    the player, or one in progress) is played on the battle's own screen. Once over,
    the summary stays on the screen: the result, the rating change, the trade.
    ``told``: what the session told, kept for the caller. Left with Ctrl-C, it says
    what goes on without the player."""
    told = told if told is not None else Followed(resuming)
    try:
        return await _play(client, console, waiting, told)
    except asyncio.CancelledError:
        if said := going_on(told):
            console.print(Text(said, style="yellow"))
        raise


async def _play(
    client: Client, console: Console, waiting: str, told: Followed
) -> pb.MatchView | None:

    async def follow() -> None:  # reopened as the token expires (Client.pushes)
        async for push in client.pushes():
            if not told.take(push):
                return

    with (
        LineReader() as reader,
        Live(console=console, auto_refresh=False) as live,
    ):
        follower = asyncio.create_task(follow())
        ended: float | None = None  # when the match was seen finished (monotonic)
        asked = rated_asked = 0.0
        gone: float | None = None  # when a pending trade was seen no longer pending
        leaving = False
        trade: pb.Trade | None = None
        fetched = ""  # the trade whose match was looked up
        while True:
            waits = told.trade if told.view is None else None  # of a match ended away
            if waits is not None and not settled(waits) and waits.trade_id != fetched:
                fetched = waits.trade_id
                await show_traded_match(client, told, waits)
            view = told.view
            trade = told.trade_of(view)
            # Input ended (a pipe, /dev/null): once the session told what there is.
            over = follower.done() or (reader.done and told.opened) or leaving
            gone_table = told.table is not None and told.table.status in TABLE_ENDS
            over = over or (view is None and told.queue is None and gone_table)  # nothing left
            draft = told.drafting()
            if draft is not None and draft.status == pb.DRAFT_STATUS_FORFEITED:
                ended = ended or time.monotonic()  # its rating change, for the end (10 s)
                if time.monotonic() - rated_asked > 2:
                    rated_asked = time.monotonic()
                    over = over or await drafting.forfeit_rated(client, draft, told.ratings)
                over = over or time.monotonic() - ended > RATING_WAIT_SECONDS
            over = over or (told.battle is not None and view is None)  # its own screen
            if draft is None and view is not None and view.status == pb.MATCH_STATUS_FINISHED:
                ended = ended or time.monotonic()
                rule = view.rules.trade_rule
                done = False
                if not awaits_trade(view) or (trade is not None and settled(trade)):
                    done = True
                elif gone is not None and time.monotonic() - gone > TRADE_GONE_SECONDS:
                    told.note = "The trade completed: triad-client collection shows your cards."
                    done = True
                elif trade is None and time.monotonic() - ended > TRADE_WAIT_SECONDS:
                    name = TRADE_NAMES.get(rule, "trade")
                    told.note = f"No {name} came: triad-client trade or collection shows it."
                    done = True
                elif rule in CHOICE_RULES and time.monotonic() - asked > 1:
                    # the push may have come before us, or been lost
                    asked = time.monotonic()
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        pending = await client.call(
                            client.stub.GetPendingTrade, g.GetPendingTradeRequest()
                        )
                        if pending.trade.match_id == view.match_id:
                            told.keep(pending.trade)
                        elif trade is not None and gone is None:
                            gone = time.monotonic()  # completed: its result is on its way
                rated = view.ladder.ladder and view.match_id not in told.ratings
                if rated and time.monotonic() - rated_asked > 2:  # the push may be lost
                    rated_asked = time.monotonic()
                    await rating_of(client, told, view)
                rated = rated and view.match_id not in told.ratings
                if done and rated and time.monotonic() - ended < RATING_WAIT_SECONDS:
                    done = False  # the rating change is on its way: for the summary
                over = over or done
                trade = told.trade_of(view)
            while told.away:  # above the live screen, which keeps its 80x24
                live.console.print(Text(told.away.pop(0), style="yellow"))
            shown = trade if ended else None
            rated_id = draft.draft_id if draft else view.match_id if view else ""
            rating = told.ratings.get(rated_id) if rated_id else None
            live.update(
                frame(
                    view,
                    told.received,
                    told.queue,
                    reader.typing,
                    told.note,
                    shown,
                    console,
                    told.waiting(waiting),
                    draft,
                    rating,
                    list(told.moves.values()),
                    told.table,
                ),
                refresh=True,
            )
            if over:
                break
            # Wakes at a key (to draw it) or after a quarter second (the timer).
            line = await reader.line(timeout=0.25)
            if line is None or not line.strip():
                continue
            try:
                await typed(client, told, line.strip(), view, trade if ended else None)
            except ClientError as error:  # refused here: nothing was sent
                told.note = sentence(error)
            except grpc.aio.AioRpcError as error:
                told.note = refusal(error)
            leaving = told.leaving
        if not follower.done():
            follower.cancel()
        elif (broke := follower.exception()) is not None:
            raise broke  # the session stream broke: say why
    if not console.is_terminal:  # Live ends its last frame with a newline on a terminal only
        console.line()
    if told.battle is not None and told.view is None:  # one game at a time: the battle
        await play_battle(client, told.battle)
        return None
    if ended and view is not None and trade is not None:  # the trade screen was last
        rating = told.ratings.get(view.match_id)
        for said in after_trade(view, rating, trade):
            console.print(said)
    last = told.view
    running = last is not None and last.status == pb.MATCH_STATUS_IN_PROGRESS
    if running and last is not None and reader.done and not told.leaving:  # input ended
        console.print(
            f"Match {last.match_id} is running: play it from a terminal with triad-client play."
        )
    return told.view


async def typed(
    client: Client, told: Followed, line: str, view: pb.MatchView | None, trade: pb.Trade | None
) -> None:
    """One typed line: a trade choice, a move, q, or before any match a draft action or
    the switch to a practice bot. What to tell goes to ``told.note``."""
    finished = view is not None and view.status == pb.MATCH_STATUS_FINISHED
    if finished and trade is not None and choosing(trade):
        if line == "q":
            told.note = "The server picks for you at the deadline."
            told.leaving = True
            return
        told.keep(await choose(client, trade, line))
        told.note = ""
        return
    if finished and told.drafting() is None:
        if line == "q":  # the loser need not wait for the choice
            told.note = "Left before the trade completed: triad-client collection shows it."
            told.leaving = True
        return
    if view is None or told.drafting() is not None:
        told.note = await before_match(client, told, line)
        return
    if await forfeit_or_ask(client, told, view, line):  # q asks first
        return
    if not my_turn(view):
        told.note = NOT_YOUR_TURN
        return
    move = parse_move(line.split(), view.rules.realm.lair)  # 'CARD CELL' or '... lair'
    if isinstance(move, str):
        told.note = move or f"Type a card number and a cell number, e.g. 0 {example_cell(view)}."
        return
    card, cell, lair = move
    if problem := cell_problem(view, cell):
        told.note = problem
        return
    cid = card_id(view, card)
    placed = await client.call(
        client.stub.PlaceCard,
        g.PlaceCardRequest(
            request_id=uuid.uuid4().hex,
            match_id=view.match_id,
            card_id=cid,
            cell=cell,
            lair=lair,
            session_id=told.session_id,
        ),
    )
    told.show(placed.view)
    told.note = ""


async def resume(client: Client, console: Console) -> None:
    """``triad-client play``: the active match, draft or trade, else the queue the player
    is in, until its match. The queue's screen says Ctrl-C leaves, as ``queue``'s does:
    a ticket still waiting when the player interrupts is cancelled (found from outside:
    it stayed queued, and its Ranked match began without the player)."""
    told = Followed(resuming=True)
    try:
        await play(client, console, resuming=True, told=told)
    except (asyncio.CancelledError, KeyboardInterrupt):
        queue = told.queue
        waits = queue is not None and queue.ticket.status == pb.TICKET_STATUS_QUEUED
        if queue is not None and waits and told.view is None and told.draft is None:
            await leave_queue(client, console, queue.ticket.ticket_id)
        raise


async def queue_and_play(client: Client, console: Console, mode: str, deck: pb.DeckChoice) -> None:
    """Enqueue with the deck (Draft: none, it is drafted), show the queue until a match
    (or a draft) is found, play it; b switches to a practice bot meanwhile. A ticket
    still waiting when the player leaves is cancelled."""
    told = Followed()  # the Enqueue's status whole: the session's has the ticket alone
    told.queue = status = await enqueue(client, mode, deck)  # (found from outside: no bot time)
    with_deck = "a Random deck" if deck.HasField("random") else "your deck"
    with_deck = "the deck you will draft" if mode == "draft" else with_deck
    console.print(f"Queued for {mode} with {with_deck} (ticket {status.ticket.ticket_id[:8]}).")
    played = None
    try:
        played = await play(client, console, told=told)
    finally:  # a match begun (b's practice, or paired) is no queue left (found from outside)
        if played is None and told.view is None and told.draft is None:
            await leave_queue(client, console, status.ticket.ticket_id)
