"""End to end, as players use the game: every service a separate process on real
PostgreSQL and NATS, and the tests speak only the public API over TLS.

Two players register, queue Ranked with Random decks, are paired, play the whole match;
the winner picks a card from the loser's deck, the card changes owner, and both Elo
ratings change. A player alone in the Unranked queue meets a populated bot after the
bot-fill delay and plays it, unrated and untraded. A player practises against a bot
through the matchmaker, and in the terminal client.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, bearer, collect
from devtools.stack import Stack
from devtools.terminal import Terminal
from tests.e2e.end_to_end import (
    BOT_FILL_SECONDS,
    RANKED,
    active_view,
    enqueue,
    open_session,
    play,
    pushed,
    register,
)
from tests.e2e.sessions import OPEN_TABLE, easy_practice, join, mover, place_any, table_match

pytestmark = pytest.mark.integration


async def test_practice_against_a_bot_through_the_matchmaker(api: Any) -> None:
    me = await register(api)
    started = await api.StartPractice(
        easy_practice(),
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


async def test_a_forfeited_match_shows_the_placements_made_as_its_turn_number(
    api: Any,
) -> None:
    """Found from outside: after two placements and a forfeit the finished view said
    turn 3 (common.proto: once finished, the number of placements made)."""
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    for _ in range(2):
        first, _other = await mover((ann, bea), match_id)
        await place_any(first, await first.view(match_id))
    await ann.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
    final = await ann.view(match_id)
    assert final.status == pb.MATCH_STATUS_FINISHED
    assert (final.turn_number, final.last_placement.turn_number) == (2, 2)
