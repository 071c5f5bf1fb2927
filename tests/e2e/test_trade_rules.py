"""Trade rules Direct, Difference and All as players meet them (issue 19, item 3; RULES.md
13): two players at a custom table, every service a process on real PostgreSQL and NATS
behind the TLS gateway, play (or forfeit) and the copies that change hands are checked
card by card against each player's collection before and after (ListCollection): which
copies moved, to whom, with their character and holo bonus, and nothing else.

The collection's choice window is short here (TRIAD_TRADE_CHOICE_SECONDS) so that a
Difference left alone is completed by the server within the test.
"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e.sessions import WAIT, Player, Session, join, mover, place_any, table_match

pytestmark = pytest.mark.integration
CHOICE_SECONDS = 6.0


def table(rule: pb.TradeRule.ValueType) -> pb.Rules:
    return pb.Rules(
        visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True, trade_rule=rule
    )


STACK_OVERRIDES: Overrides = {"collection": {"TRIAD_TRADE_CHOICE_SECONDS": str(CHOICE_SECONDS)}}
"""This module's settings for its backend (tests/e2e/conftest.py)."""


async def collection(p: Player) -> dict[str, pb.OwnedCopy]:
    reply = await p.call("ListCollection", g.ListCollectionRequest(page_size=200))
    return {e.copy.copy_id: e.copy for e in reply.entries}


async def deck_of(p: Player, match_id: str) -> tuple[str, ...]:
    """The player's original deck: their hand before anyone placed."""
    return tuple(c.card.card_id for c in (await p.view(match_id)).my_hand)


async def pair(api: Any) -> tuple[Player, Player, dict[str, Session]]:
    ann, bea = await join(api), await join(api)
    return ann, bea, {ann.name: await Session.open(ann), bea.name: await Session.open(bea)}


async def play(players: tuple[Player, Player], match_id: str, placements: int) -> pb.MatchView:
    """``placements`` moves, each by the player to move; the last view."""
    view = pb.MatchView()
    for _ in range(placements):
        first, _ = await mover(players, match_id)
        view = await place_any(first, await first.view(match_id))
    return view


async def completed(session: Session, match_id: str) -> pb.Trade:
    push = await session.wait_for(
        lambda p: p.HasField("trade_result") and p.trade_result.match_id == match_id
    )
    return push.trade_result


def check_moves(
    before: dict[str, dict[str, pb.OwnedCopy]],
    after: dict[str, dict[str, pb.OwnedCopy]],
    moved: dict[str, str],
) -> None:
    """Each player's collection after is theirs before, less what they gave, plus what
    they received (``moved``: copy id -> receiver), each received copy the very copy
    the giver had: same character, holo flag and holo side, now sourced TRADE."""
    givers = {i: p for p, copies in before.items() for i in copies}
    for player, copies in after.items():
        expected = {i for i in before[player] if moved.get(i, player) == player}
        expected |= {i for i, to in moved.items() if to == player}
        assert set(copies) == expected, player
        for copy_id in (i for i, to in moved.items() if to == player):
            was, now = before[givers[copy_id]][copy_id], copies[copy_id]
            assert now.owner_player_id == player and now.source == pb.COPY_SOURCE_TRADE
            assert (now.character, now.holo, now.holo_side, now.printed_sides) == (
                was.character,
                was.holo,
                was.holo_side,
                was.printed_sides,
            )


async def test_a_direct_table_gives_each_player_the_opponents_cards_they_hold_on_the_board(
    api: Any,
) -> None:
    for _ in range(3):  # a game without a single capture moves nothing: play another
        ann, bea, sessions = await pair(api)
        before = {ann.id: await collection(ann), bea.id: await collection(bea)}
        match_id = await table_match(ann, bea, table(pb.TRADE_RULE_DIRECT))
        decks = {ann.id: await deck_of(ann, match_id), bea.id: await deck_of(bea, match_id)}
        final = await play((ann, bea), match_id, 9)
        assert final.status == pb.MATCH_STATUS_FINISHED
        assert final.rules.trade_rule == pb.TRADE_RULE_DIRECT
        seats = {(await p.view(match_id)).my_seat: p.id for p in (ann, bea)}
        # Who holds each card on the final board; a card of the other's deck moves.
        moved = {
            cell.card.card.card_id: seats[cell.card.owner_seat]
            for cell in final.board
            if cell.WhichOneof("content") == "card"
            and cell.card.card.card_id not in decks[seats[cell.card.owner_seat]]
        }
        if not moved:
            for session in sessions.values():
                await session.close()
            continue
        for session in sessions.values():
            result = await completed(session, match_id)
            assert result.trade_rule == pb.TRADE_RULE_DIRECT
            assert result.status == pb.TRADE_STATUS_COMPLETED
            assert set(result.chosen_copy_ids) == set(moved)
            assert result.take_count == len(moved)
        after = {ann.id: await collection(ann), bea.id: await collection(bea)}
        check_moves(before, after, moved)
        # nothing is pending and nothing stays locked: both may play on at once
        for p in (ann, bea):
            assert not (await p.call("GetPendingTrade", g.GetPendingTradeRequest())).HasField(
                "trade"
            )
            entries = (
                await p.call("ListCollection", g.ListCollectionRequest(page_size=200))
            ).entries
            assert not any(e.HasField("lock") for e in entries)
        for session in sessions.values():
            await session.close()
        return
    pytest.fail("three Direct games in a row without a single capture")


async def difference_won(
    api: Any, rule: pb.TradeRule.ValueType = pb.TRADE_RULE_DIFFERENCE
) -> tuple[Player, Player, dict[str, Session], str, int]:
    """A Difference table (or one of another ``rule``) played to its eighth card, then
    the player behind (or the one to move, on equal scores) forfeits: (winner, loser,
    sessions, match id, d)."""
    ann, bea, sessions = await pair(api)
    match_id = await table_match(ann, bea, table(rule))
    await play((ann, bea), match_id, 8)
    view = await ann.view(match_id)
    score = {p.seat: p.score for p in view.players}
    mine, theirs = score[view.my_seat], sum(score.values()) - score[view.my_seat]
    if mine == theirs:
        loser, winner = await mover((ann, bea), match_id)
    else:
        winner, loser = (ann, bea) if mine > theirs else (bea, ann)
    await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
    # RULES 13: at least 1, capped at the deck size (five cards on this table)
    return winner, loser, sessions, match_id, min(5, max(1, abs(mine - theirs)))


async def opened(p: Player, match_id: str) -> pb.Trade:
    for _ in range(int(WAIT / 0.05)):
        reply = await p.call("GetPendingTrade", g.GetPendingTradeRequest())
        if reply.HasField("trade") and reply.trade.match_id == match_id:
            return reply.trade  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"the trade of match {match_id} never opened")


async def test_a_difference_winner_takes_d_cards_chosen_in_one_call(api: Any) -> None:
    winner, loser, sessions, match_id, d = await difference_won(api)
    trade = await opened(winner, match_id)
    before = {winner.id: await collection(winner), loser.id: await collection(loser)}
    assert trade.trade_rule == pb.TRADE_RULE_DIFFERENCE and trade.take_count == d
    assert trade.my_role == pb.TRADE_ROLE_CHOOSER and len(trade.offered_copies) == 5
    wanted = [c.copy_id for c in trade.offered_copies][-d:]
    request = g.ChooseTradeCardRequest(
        request_id=uuid4().hex, trade_id=trade.trade_id, copy_ids=wanted
    )
    answer = await winner.call("ChooseTradeCard", request)
    again = await winner.call("ChooseTradeCard", request)  # a replayed request
    for reply in (answer, again):
        assert reply.trade.status == pb.TRADE_STATUS_COMPLETED
        assert list(reply.trade.chosen_copy_ids) == wanted and not reply.trade.auto_picked
    after = {winner.id: await collection(winner), loser.id: await collection(loser)}
    check_moves(before, after, dict.fromkeys(wanted, winner.id))
    told = await completed(sessions[loser.name], match_id)
    assert told.my_role == pb.TRADE_ROLE_GIVER and list(told.chosen_copy_ids) == wanted
    for session in sessions.values():
        await session.close()


async def test_a_difference_left_to_the_deadline_is_completed_at_random(api: Any) -> None:
    winner, loser, sessions, match_id, d = await difference_won(api)
    trade = await opened(winner, match_id)
    before = {winner.id: await collection(winner), loser.id: await collection(loser)}
    # neither choose nor wait by hand: the server draws the d copies at the deadline
    result = await asyncio.wait_for(
        completed(sessions[winner.name], match_id), WAIT + CHOICE_SECONDS
    )
    assert result.auto_picked and result.take_count == d
    chosen = list(result.chosen_copy_ids)
    assert len(set(chosen)) == d and set(chosen) <= {c.copy_id for c in trade.offered_copies}
    after = {winner.id: await collection(winner), loser.id: await collection(loser)}
    check_moves(before, after, dict.fromkeys(chosen, winner.id))
    # a choice now is refused: the server's draw is recorded and stands
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await winner.call(
            "ChooseTradeCard",
            g.ChooseTradeCardRequest(
                request_id=uuid4().hex, trade_id=trade.trade_id, copy_ids=chosen
            ),
        )
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already chosen by the server" in (refused.value.details() or "")
    for session in sessions.values():
        await session.close()


async def test_an_all_table_gives_the_winner_the_losers_whole_deck(api: Any) -> None:
    ann, bea, sessions = await pair(api)
    before = {ann.id: await collection(ann), bea.id: await collection(bea)}
    match_id = await table_match(ann, bea, table(pb.TRADE_RULE_ALL))
    deck = await deck_of(bea, match_id)
    await play((ann, bea), match_id, 2)
    await bea.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
    result = await completed(sessions[ann.name], match_id)
    assert result.trade_rule == pb.TRADE_RULE_ALL and set(result.chosen_copy_ids) == set(deck)
    after = {ann.id: await collection(ann), bea.id: await collection(bea)}
    check_moves(before, after, dict.fromkeys(deck, ann.id))
    for session in sessions.values():
        await session.close()


async def test_a_trade_rule_at_an_all_open_table_is_refused_saying_what_it_needs(
    api: Any,
) -> None:
    """RULES.md 13 Decision: Direct with All Open (any trade rule without Closed, Same,
    Plus and Combo) is refused at the edge with the rule named."""
    host = await join(api)
    rules = pb.Rules(
        visibility=pb.VISIBILITY_ALL_OPEN,
        same=True,
        plus=True,
        combo=True,
        trade_rule=pb.TRADE_RULE_DIRECT,
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await host.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex, settings=pb.TableSettings(rules=rules, random_deck=True)
            ),
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == (
        "Direct needs Closed visibility with Same, Plus and Combo on; "
        "this rule set lacks Closed visibility"
    )
