"""Races known to break game servers (issue 10, item 5), as players hit them, on moves and
choices against their deadlines: a move at the turn deadline, a forfeit racing the
opponent's move, a trade choice at its deadline. Through the TLS gateway, every service
a process on real PostgreSQL and NATS, with the durations shortened by their settings
(TRIAD_TURN_SECONDS, TRIAD_DISCONNECT_SECONDS, TRIAD_TRADE_CHOICE_SECONDS,
TRIAD_ACCESS_TOKEN_MINUTES). Each racy scenario is repeated so that both orders actually
happen.

Two matchmaker replicas pairing the same tickets is covered elsewhere and not repeated
here: tests/integration/test_matchmaker_process.py
``test_two_players_on_two_replicas_are_paired_into_one_real_match`` (two replica
processes, one real match) and services/matchmaker/tests/test_replicas.py (1,000
players enqueueing, cancelling and re-enqueueing on either of two replicas while both
pair: nobody is ever in two matches).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from tests.e2e.races.race_players import (
    OPEN_TABLE,
    TRADE_TABLE,
    cards_on,
    code_of,
    join,
    mover_of,
    one_way,
    place,
    table_match,
)

pytestmark = pytest.mark.integration


# ---- a turn timeout and a move in the same instant --------------------------------


async def test_a_move_at_the_turn_deadline_either_lands_or_loses_to_the_timer_once(
    api: Any,
) -> None:
    """The mover places exactly at the turn deadline (a few ms either side). Either the
    move is applied (not auto-played) or the timer's auto-play is, and the refused move
    says why; never both, never neither: one more card on the board each time."""
    rng = random.Random(5)
    outcomes: list[str] = []
    while len(outcomes) < 6:
        players = (await join(api), await join(api))
        match_id = await table_match(*players, OPEN_TABLE)
        while len(outcomes) < 6:
            mover, view = await mover_of(players, match_id)
            if view.status != pb.MATCH_STATUS_IN_PROGRESS:
                break
            deadline = view.turn_deadline_time.ToDatetime().timestamp()
            await asyncio.sleep(
                max(
                    0.0,
                    deadline
                    - time.time()
                    - await one_way(mover, match_id)
                    + rng.uniform(-0.08, 0.08),
                )
            )
            code, answer = await place(mover, view, rng)
            after = await mover.view(match_id)
            for _ in range(100):  # a move refused at the deadline: the timer plays next
                if after.version > view.version:
                    break
                await asyncio.sleep(0.05)
                after = await mover.view(match_id)
            assert after.version > view.version
            assert cards_on(after) == cards_on(view) + 1 or (
                after.status == pb.MATCH_STATUS_FINISHED
                and after.outcome.reason == pb.FINISH_REASON_TURN_TIMEOUT
                and cards_on(after) == cards_on(view)
            ), "a placement was doubled or lost"
            mine = [h.card.card_id for h in view.my_hand]
            left = [h.card.card_id for h in after.my_hand]
            if code == grpc.StatusCode.OK:
                assert not answer.view.last_placement.auto_played
                assert answer.view.last_placement.seat == view.my_seat
                assert len(left) == len(mine) - 1
                outcomes.append("move")
            else:
                assert code == grpc.StatusCode.FAILED_PRECONDITION, (code, answer)
                assert "turn" in answer or "over" in answer, answer
                if after.status == pb.MATCH_STATUS_IN_PROGRESS or cards_on(after) > cards_on(view):
                    # the timer played for the mover, once
                    assert after.last_placement.auto_played
                    assert after.last_placement.seat == view.my_seat
                    assert len(left) == len(mine) - 1
                outcomes.append("timer")
    print(f"at the deadline: {outcomes}")  # which order won depends on the machine's load


# ---- a forfeit while the opponent's move is in flight -----------------------------


async def test_a_forfeit_racing_the_opponents_move_ends_the_match_once(api: Any) -> None:
    """The player to move places while the other forfeits, at once. The forfeit always
    ends the match (the forfeiter loses); the move either landed first (its card is on
    the final board) or is refused as the match is over (its card is not)."""
    rng = random.Random(7)
    seen: list[str] = []
    for _ in range(6):
        players = (await join(api), await join(api))
        match_id = await table_match(*players, OPEN_TABLE)
        mover, view = await mover_of(players, match_id)
        quitter = players[1] if mover is players[0] else players[0]
        (placed, answer), (forfeited, final) = await asyncio.gather(
            place(mover, view, rng),
            code_of(
                quitter.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
            ),
        )
        assert forfeited == grpc.StatusCode.OK, final
        end = await mover.view(match_id)
        assert end.status == pb.MATCH_STATUS_FINISHED
        assert end.outcome.reason == pb.FINISH_REASON_FORFEIT
        assert end.outcome.winner_seat == end.my_seat
        if placed == grpc.StatusCode.OK:
            assert cards_on(end) == cards_on(view) + 1
            seen.append("move first")
        else:
            assert placed == grpc.StatusCode.FAILED_PRECONDITION and "over" in answer, answer
            assert cards_on(end) == cards_on(view)
            seen.append("forfeit first")
        # nothing after the end: a second forfeit or move is refused
        again, _ = await code_of(
            quitter.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
        )
        assert again == grpc.StatusCode.FAILED_PRECONDITION
    print(f"forfeit races: {seen}")


# ---- a Trade One choice arriving as the deadline fires ----------------------------


async def test_a_trade_choice_at_the_deadline_moves_exactly_one_copy_once(api: Any) -> None:
    """The winner chooses exactly when the 2-minute deadline (here 2 s) fires. Either
    the choice is taken or the server's auto-pick is, and the refused choice names the
    one chosen; exactly one copy leaves the loser and reaches the winner, once."""
    rng = random.Random(17)
    winner, loser = await join(api), await join(api)
    seen: list[str] = []
    for _ in range(5):
        before = {p.id: await p.copies() for p in (winner, loser)}
        match_id = await table_match(loser, winner, TRADE_TABLE)
        await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
        trade = None
        for _ in range(200):
            reply = await winner.call("GetPendingTrade", g.GetPendingTradeRequest())
            if reply.HasField("trade") and reply.trade.match_id == match_id:
                trade = reply.trade
                break
            await asyncio.sleep(0.05)
        assert trade is not None and len(trade.offered_copies) == 5
        deadline = trade.choice_deadline_time.ToDatetime().timestamp()
        # aimed a little early on average: the choice's path (gateway, collection, a
        # locked transfer) is longer than the view call the latency is measured on
        latency = await one_way(winner, match_id)
        await asyncio.sleep(max(0.0, deadline - time.time() - latency + rng.uniform(-0.3, 0.05)))
        wanted = trade.offered_copies[rng.randrange(5)].copy_id
        code, answer = await code_of(
            winner.call(
                "ChooseTradeCard",
                g.ChooseTradeCardRequest(
                    request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=wanted
                ),
            )
        )
        for _ in range(200):  # the transfer completes
            pending = await winner.call("GetPendingTrade", g.GetPendingTradeRequest())
            if not pending.HasField("trade"):
                break
            await asyncio.sleep(0.05)
        after = {p.id: await p.copies() for p in (winner, loser)}
        gained = after[winner.id] - before[winner.id]
        lost = before[loser.id] - after[loser.id]
        assert len(gained) == 1 and gained == lost, (gained, lost)
        assert len(after[winner.id]) == len(before[winner.id]) + 1
        assert len(after[loser.id]) == len(before[loser.id]) - 1
        (moved,) = gained
        if code == grpc.StatusCode.OK:
            assert moved == wanted and answer.trade.chosen_copy_id == wanted
            assert not answer.trade.auto_picked
            seen.append("choice")
        else:
            assert code == grpc.StatusCode.FAILED_PRECONDITION, (code, answer)
            assert "server" in answer, answer  # the server's pick stands
            assert moved in {c.copy_id for c in trade.offered_copies}
            seen.append("auto-pick")
    print(f"trade races: {seen}")
