"""End to end, as players use the game: every service a separate process on real
PostgreSQL and NATS, and the tests speak only the public API over TLS.

Two players register, queue Ranked with Random decks, are paired, play the whole match;
the winner picks a card from the loser's deck, the card changes owner, and both Elo
ratings change. A player alone in the Unranked queue meets a populated bot after the
bot-fill delay and plays it, unrated and untraded. A player practises against a bot
through the matchmaker. The session stream shows the queue as it goes.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, bearer, collect
from devtools.stack import Stack, stack
from devtools.terminal import Terminal

pytestmark = pytest.mark.integration
RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)
BOT_FILL_SECONDS = 3
"""The matchmaker's populated-bot delay here (20 s by default)."""


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """The whole backend from the launcher (devtools/stack.py), the populated bot quick."""
    with stack(
        shared_database_url,
        nats_url,
        tmp_path_factory.mktemp("end-to-end"),
        overrides={"matchmaker": {"TRIAD_MATCHMAKER_BOT_FILL_SECONDS": str(BOT_FILL_SECONDS)}},
    ) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)


async def register(api: Any) -> g.RegisterResponse:
    return await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"e{uuid4().hex[:12]}", password=PASSWORD
        )
    )


async def active_view(api: Any, me: g.RegisterResponse, timeout: float = 20) -> pb.MatchView:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(me.tokens))
        if reply.view.match_id:
            return reply.view
        await asyncio.sleep(0.2)
    raise AssertionError("no active match")


def first_move(view: pb.MatchView) -> tuple[str, int]:
    """The first card of the hand on the first empty cell."""
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    return view.my_hand[0].card.card_id, empty[0]


def greedy_move(view: pb.MatchView) -> tuple[str, int]:
    """The card and empty cell that take the most opponent's cards by a higher side (the
    basic rule only): the move of a player out to win, so that a match between a greedy
    and a first-move player seldom ends in a draw."""
    columns = view.rules.board.columns or 3
    cells = list(view.board)
    best: tuple[int, str, int] | None = None
    for held in view.my_hand:
        mine = held.card.printed_sides
        for cell in (c for c in cells if c.WhichOneof("content") == "empty"):
            row, column = divmod(cell.index, columns)
            taken = 0
            for index, my_side, their_side, beside in (
                (cell.index - columns, mine.top, "bottom", row > 0),
                (cell.index + columns, mine.bottom, "top", cell.index + columns < len(cells)),
                (cell.index - 1, mine.left, "right", column > 0),
                (cell.index + 1, mine.right, "left", column < columns - 1),
            ):
                if not beside or cells[index].WhichOneof("content") != "card":
                    continue
                placed = cells[index].card
                if placed.owner_seat != view.my_seat:
                    taken += my_side > getattr(placed.adjusted_sides, their_side)
            if best is None or taken > best[0]:
                best = (taken, held.card.card_id, cell.index)
    assert best is not None
    return best[1], best[2]


async def play(
    api: Any,
    players: list[g.RegisterResponse],
    match_id: str,
    greedy: frozenset[str] = frozenset(),
) -> pb.MatchView:
    """Each human places when it is their turn, from their own view, until the end: the
    players whose ids are in ``greedy`` take what they can, the others play their first
    card on the first empty cell."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for me in players:
            view = (
                await api.GetMatchView(
                    g.GetMatchViewRequest(match_id=match_id), metadata=bearer(me.tokens)
                )
            ).view
            if view.status == pb.MATCH_STATUS_FINISHED:
                return view
            if view.turn_seat != view.my_seat:
                continue
            move = greedy_move if me.player.player_id in greedy else first_move
            card_id, cell = move(view)
            try:
                await api.PlaceCard(
                    g.PlaceCardRequest(
                        request_id=f"{match_id}-{me.player.player_id[:8]}-{view.version}",
                        match_id=match_id,
                        card_id=card_id,
                        cell=cell,
                    ),
                    metadata=bearer(me.tokens),
                )
            except grpc.aio.AioRpcError as error:  # a bot or a timer moved first
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
        await asyncio.sleep(0.05)
    raise AssertionError("the match did not finish")


async def enqueue(api: Any, me: g.RegisterResponse, mode: pb.Mode.ValueType) -> pb.Ticket:
    """Queue with a Random deck, once the last match has let go of the player."""
    request_id = uuid4().hex
    for _ in range(100):
        try:
            reply = await api.Enqueue(
                g.EnqueueRequest(
                    request_id=request_id, mode=mode, deck=pb.DeckChoice(random=pb.RandomDeck())
                ),
                metadata=bearer(me.tokens),
            )
            return reply.ticket
        except grpc.aio.AioRpcError as error:  # still in the match that just ended
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("the player could never queue again")


async def pushed(
    pushes: list[g.OpenSessionResponse],
    found: Callable[[g.OpenSessionResponse], bool],
    what: str,
    timeout: float = 30,
) -> g.OpenSessionResponse:
    """The first push ``found`` accepts, waiting for it to arrive."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for push in pushes:
            if found(push):
                return push
        await asyncio.sleep(0.05)
    raise AssertionError(f"the session stream never showed {what}")


def queue_statuses(pushes: list[g.OpenSessionResponse], ticket_id: str) -> list[pb.QueueStatus]:
    return [
        p.queue_status
        for p in pushes
        if p.HasField("queue_status") and p.queue_status.ticket.ticket_id == ticket_id
    ]


async def open_session(api: Any, me: g.RegisterResponse) -> tuple[list[Any], asyncio.Task[None]]:
    pushes: list[g.OpenSessionResponse] = []
    task = asyncio.create_task(collect(api, me.tokens, pushes))
    await pushed(pushes, lambda p: p.HasField("session_opened"), "the session opened")
    return pushes, task


async def test_practice_against_a_bot_through_the_matchmaker(api: Any) -> None:
    me = await register(api)
    started = await api.StartPractice(
        g.StartPracticeRequest(
            request_id=uuid4().hex,
            origin_mode=pb.MODE_UNRANKED,
            bot_level=pb.BOT_LEVEL_EASY,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        ),
        metadata=bearer(me.tokens),
    )
    assert started.view.match_id == started.match_id
    final = await play(api, [me], started.match_id)
    bot = next(p for p in final.players if p.seat != final.my_seat)
    assert bot.is_bot and bot.player_name.startswith("[BOT] ")
    assert final.outcome.final_scores.seat_a + final.outcome.final_scores.seat_b == 10
    rating = await api.GetRating(g.GetRatingRequest(ladder=RANKED), metadata=bearer(me.tokens))
    assert rating.rating.games == 0  # practice is never rated


async def test_ranked_from_the_queue_to_the_trade_and_the_new_ratings(api: Any) -> None:
    ann, bea = await register(api), await register(api)
    pushes: dict[str, list[g.OpenSessionResponse]] = {
        ann.player.player_id: [],
        bea.player.player_id: [],
    }
    sessions = [
        asyncio.create_task(collect(api, me.tokens, pushes[me.player.player_id]))
        for me in (ann, bea)
    ]
    while not all(pushes.values()):
        await asyncio.sleep(0.01)
    # A draw trades nothing (RULES.md 7): Ann plays to win, and they play again after a
    # draw (which counts as a rated game, and moves nobody between equal ratings).
    games = 0
    while True:
        games += 1
        for me in (ann, bea):
            await enqueue(api, me, pb.MODE_RANKED)
        view = await active_view(api, ann)
        assert view.mode == pb.MODE_RANKED and view.rules.visibility == pb.VISIBILITY_CLOSED
        for _ in range(100):  # clients play from their session streams: both see the match
            if all(any(p.match_view.match_id == view.match_id for p in s) for s in pushes.values()):
                break
            await asyncio.sleep(0.05)
        final = await play(api, [ann, bea], view.match_id, greedy=frozenset({ann.player.player_id}))
        outcome = final.outcome
        if outcome.WhichOneof("result") != "draw":
            break
        if games == 3:
            pytest.skip("three draws in a row: Trade One trades nothing (RULES.md 7)")
    ann_view = (
        await api.GetMatchView(
            g.GetMatchViewRequest(match_id=view.match_id), metadata=bearer(ann.tokens)
        )
    ).view
    winner, loser = (ann, bea) if outcome.winner_seat == ann_view.my_seat else (bea, ann)

    trade = None
    for _ in range(100):
        reply = await api.GetPendingTrade(
            g.GetPendingTradeRequest(), metadata=bearer(winner.tokens)
        )
        if reply.HasField("trade") and reply.trade.offered_copies:
            trade = reply.trade
            break
        await asyncio.sleep(0.2)
    assert trade is not None, "the winner was never offered the loser's cards"
    assert len(trade.offered_copies) == 5
    chosen = trade.offered_copies[0].copy_id
    await api.ChooseTradeCard(
        g.ChooseTradeCardRequest(request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=chosen),
        metadata=bearer(winner.tokens),
    )

    async def owns(me: g.RegisterResponse) -> set[str]:
        reply = await api.ListCollection(
            g.ListCollectionRequest(page_size=200), metadata=bearer(me.tokens)
        )
        return {entry.copy.copy_id for entry in reply.entries}

    for _ in range(50):
        if chosen in await owns(winner):
            break
        await asyncio.sleep(0.2)
    assert chosen in await owns(winner) and chosen not in await owns(loser)

    ratings = {}
    for _ in range(100):
        ratings = {
            me.player.player_id: (
                await api.GetRating(g.GetRatingRequest(ladder=RANKED), metadata=bearer(me.tokens))
            ).rating
            for me in (winner, loser)
        }
        if all(r.games == games for r in ratings.values()):
            break
        await asyncio.sleep(0.2)
    assert ratings[winner.player.player_id].rating == 1520
    assert ratings[loser.player.player_id].rating == 1480

    # The session streams told each player as it happened.
    def kinds(me: g.RegisterResponse) -> set[str]:
        return {str(p.WhichOneof("push")) for p in pushes[me.player.player_id]}

    expected = {"queue_status", "match_found", "match_view", "trade_result", "rating_change"}
    for _ in range(50):
        if all(expected <= kinds(me) for me in (winner, loser)):
            break
        await asyncio.sleep(0.2)
    for me, role in ((winner, "winner"), (loser, "loser")):
        assert not expected - kinds(me), f"the {role} missed {expected - kinds(me)}"
    for task in sessions:
        task.cancel()


async def test_the_session_stream_shows_the_ticket_waiting_cancelled_and_paired(
    api: Any,
) -> None:
    ann, bea = await register(api), await register(api)
    (ann_pushes, ann_session), (bea_pushes, bea_session) = (
        await open_session(api, ann),
        await open_session(api, bea),
    )

    first = await enqueue(api, ann, pb.MODE_RANKED)
    waiting = (
        await pushed(
            ann_pushes,
            lambda p: p.queue_status.ticket.ticket_id == first.ticket_id,
            "the queued ticket",
        )
    ).queue_status
    assert waiting.ticket.mode == pb.MODE_RANKED
    assert waiting.ticket.status == pb.TICKET_STATUS_QUEUED
    assert waiting.HasField("wait_duration") and waiting.queue_length >= 1
    assert waiting.rating_window >= 50  # Ranked pairs within a window that starts at 50
    assert waiting.practice_available and not waiting.HasField("bot_fill_delay")

    await api.CancelTicket(
        g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=first.ticket_id),
        metadata=bearer(ann.tokens),
    )
    await pushed(
        ann_pushes,
        lambda p: (
            p.queue_status.ticket.ticket_id == first.ticket_id
            and p.queue_status.ticket.status == pb.TICKET_STATUS_CANCELLED
        ),
        "the ticket cancelled",
    )

    tickets = {ann.player.player_id: await enqueue(api, ann, pb.MODE_RANKED)}
    tickets[bea.player.player_id] = await enqueue(api, bea, pb.MODE_RANKED)
    match_ids = set()
    for me, pushes, other in ((ann, ann_pushes, bea), (bea, bea_pushes, ann)):
        ticket_id = tickets[me.player.player_id].ticket_id
        paired = (
            await pushed(
                pushes,
                lambda p, t=ticket_id: (
                    p.queue_status.ticket.ticket_id == t
                    and p.queue_status.ticket.status == pb.TICKET_STATUS_PAIRED
                ),
                "the ticket paired",
            )
        ).queue_status
        assert paired.ticket.match_id
        match_ids.add(paired.ticket.match_id)
        found = (
            await pushed(
                pushes,
                lambda p, m=paired.ticket.match_id: p.match_found.match_id == m,
                "the match found",
            )
        ).match_found
        assert found.mode == pb.MODE_RANKED and not found.opponent_is_bot
        assert found.opponent_name == other.player.player_name
    assert len(match_ids) == 1, "the two tickets were paired with each other"

    # Every end is told once, though the queue is looked at again and again.
    await asyncio.sleep(2.5)
    ended = [
        s.ticket.status
        for s in queue_statuses(ann_pushes, first.ticket_id)
        if s.ticket.status != pb.TICKET_STATUS_QUEUED
    ]
    assert ended == [pb.TICKET_STATUS_CANCELLED]
    for me, pushes in ((ann, ann_pushes), (bea, bea_pushes)):
        statuses = queue_statuses(pushes, tickets[me.player.player_id].ticket_id)
        assert [s.ticket.status for s in statuses].count(pb.TICKET_STATUS_PAIRED) == 1
        assert sum(p.HasField("match_found") for p in pushes) == 1

    await api.Forfeit(
        g.ForfeitRequest(request_id=uuid4().hex, match_id=match_ids.pop()),
        metadata=bearer(ann.tokens),
    )
    ann_session.cancel()
    bea_session.cancel()


async def test_unranked_alone_meets_a_populated_bot_unrated_and_untraded(api: Any) -> None:
    me = await register(api)
    pushes, session = await open_session(api, me)

    async def owned() -> set[str]:
        reply = await api.ListCollection(
            g.ListCollectionRequest(page_size=200), metadata=bearer(me.tokens)
        )
        return {entry.copy.copy_id for entry in reply.entries}

    copies = await owned()
    ticket = await enqueue(api, me, pb.MODE_UNRANKED)
    waiting = (
        await pushed(
            pushes, lambda p: p.queue_status.ticket.ticket_id == ticket.ticket_id, "the ticket"
        )
    ).queue_status
    assert waiting.ticket.mode == pb.MODE_UNRANKED
    assert waiting.ticket.status == pb.TICKET_STATUS_QUEUED
    assert waiting.rating_window == 0  # Unranked does not pair by rating
    assert waiting.bot_fill_delay.ToTimedelta().total_seconds() == BOT_FILL_SECONDS

    found = (
        await pushed(pushes, lambda p: p.HasField("match_found"), "the match found")
    ).match_found
    assert found.mode == pb.MODE_UNRANKED
    assert found.opponent_is_bot and found.opponent_name.startswith("[BOT] ")
    # The ticket's end and the match come from two services: in either order.
    paired = (
        await pushed(
            pushes,
            lambda p: (
                p.queue_status.ticket.ticket_id == ticket.ticket_id
                and p.queue_status.ticket.status == pb.TICKET_STATUS_PAIRED
            ),
            "the ticket paired",
        )
    ).queue_status
    assert paired.ticket.match_id == found.match_id
    # Paired with the bot only once the delay had passed.
    assert paired.wait_duration.ToTimedelta().total_seconds() >= BOT_FILL_SECONDS

    view = await active_view(api, me)
    assert view.match_id == found.match_id and view.mode == pb.MODE_UNRANKED
    # RULES.md 6: Unranked is Three Open with Same, Plus and Combo, no trade, no rating.
    rules = view.rules
    assert rules.visibility == pb.VISIBILITY_THREE_OPEN
    assert rules.same and rules.plus and rules.combo
    assert rules.trade_rule == pb.TRADE_RULE_NONE
    assert not view.HasField("ladder")
    final = await play(api, [me], view.match_id)
    assert final.outcome.final_scores.seat_a + final.outcome.final_scores.seat_b == 10

    # Games with a bot never trade and never change a rating (RULES.md 6): the match's
    # end reaches collection and rating, and nothing comes of it.
    for _ in range(15):
        trade = await api.GetPendingTrade(g.GetPendingTradeRequest(), metadata=bearer(me.tokens))
        assert not trade.HasField("trade")
        await asyncio.sleep(0.2)
    assert await owned() == copies
    for ladder in (RANKED, pb.LadderKey(ladder=pb.LADDER_DRAFT, season=0)):
        rating = await api.GetRating(g.GetRatingRequest(ladder=ladder), metadata=bearer(me.tokens))
        assert rating.rating.games == 0
    kinds = {p.WhichOneof("push") for p in pushes}
    assert not kinds & {"trade_prompt", "trade_result", "rating_change"}
    session.cancel()


async def test_a_person_plays_practice_in_the_terminal_client_seeing_board_timer_and_prompt(
    backend: Stack, tmp_path: Path
) -> None:
    """``triad-client practice`` in an 80x24 terminal: on every turn of the player the
    board, the running turn timer and the prompt with what is being typed are all on
    the screen at once, through to the result."""
    client = [
        sys.executable,
        "-m",
        "client.main",
        "--addr",
        backend.gateway.address,
        "--ca",
        str(backend.cert),
        "--state",
        str(tmp_path / "state.json"),
    ]
    name = f"t{uuid4().hex[:12]}"
    registered = subprocess.run(
        [*client, "register", name, "--password", PASSWORD],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert registered.returncode == 0, registered.stderr

    def timer(screen: str) -> int | None:
        found = re.search(r"Your turn - (\d+) s left", screen)
        return int(found.group(1)) if found else None

    def result(screen: str) -> bool:
        return re.search(r"(You win|You lose|Draw) \d+-\d+: ", screen) is not None

    terminal = Terminal([*client, "practice", "--level", "novice"], {})
    try:
        turns = 0
        while True:
            screen = await terminal.until(
                lambda s: result(s) or (timer(s) is not None and "card cell > " in s),
                "the player's turn or the result",
            )
            if result(screen):
                break
            turns += 1
            assert "┌" in screen and "└" in screen, "the board is not on the screen"
            assert re.search(r"^card cell > _?$", screen, re.MULTILINE), screen
            cell = re.findall(r"\((\d)\)", screen)[0]
            if turns == 1:  # the timer counts down while the player thinks
                first = timer(screen)
                assert first is not None
                await terminal.until(
                    lambda s, f=first: (timer(s) or f) < f, "the turn timer running"
                )
            terminal.type("0")  # what is typed shows in the prompt, under the board
            typed = await terminal.until(lambda s: "card cell > 0" in s, "the typed card")
            assert timer(typed) is not None and "┌" in typed
            terminal.type(f" {cell}\r")
            await terminal.until(lambda s, c=cell: f"({c})" not in s, "the card placed")
        assert turns >= 4  # five cards, one left in a hand: four or five placements
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_a_draft_pairing_is_told_as_the_match_found_with_its_draft(api: Any) -> None:
    ann, bea = await register(api), await register(api)
    (ann_pushes, ann_session), (bea_pushes, bea_session) = (
        await open_session(api, ann),
        await open_session(api, bea),
    )
    for me in (ann, bea):  # Draft decks are drafted after pairing: no deck
        await api.Enqueue(
            g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_DRAFT),
            metadata=bearer(me.tokens),
        )
    drafts = set()
    for pushes, other in ((ann_pushes, bea), (bea_pushes, ann)):
        paired = (
            await pushed(
                pushes,
                lambda p: p.queue_status.ticket.status == pb.TICKET_STATUS_PAIRED,
                "the Draft ticket paired",
            )
        ).queue_status.ticket
        assert paired.mode == pb.MODE_DRAFT and paired.draft_id
        found = (
            await pushed(pushes, lambda p: p.HasField("match_found"), "the draft found")
        ).match_found
        assert found.mode == pb.MODE_DRAFT and found.draft_id == paired.draft_id
        assert found.opponent_name == other.player.player_name and not found.opponent_is_bot
        drafts.add(found.draft_id)
    assert len(drafts) == 1, "the two players draft together"
    ann_session.cancel()
    bea_session.cancel()
