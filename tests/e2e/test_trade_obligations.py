"""Trade One as the two players meet it at the end of a trading match (RULES.md 7): the
obligation exists from the moment the result is visible, and the copy the winner chose
is theirs the moment ChooseTradeCard answers (issue 16, items 4 and 9). Every service a
process on real PostgreSQL and NATS, behind the TLS gateway."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e.races.race_players import TRADE_TABLE, Player, code_of, join, table_match

pytestmark = pytest.mark.integration


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


def enqueue(p: Player) -> Any:
    return p.call(
        "Enqueue",
        g.EnqueueRequest(
            request_id=uuid4().hex,
            mode=pb.MODE_UNRANKED,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        ),
    )


async def status(p: Player) -> pb.PlayerStatus:
    return (await p.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status


async def opened_trade(p: Player, match_id: str) -> pb.Trade:
    for _ in range(400):
        reply = await p.call("GetPendingTrade", g.GetPendingTradeRequest())
        if reply.HasField("trade") and reply.trade.match_id == match_id:
            return reply.trade
        await asyncio.sleep(0.05)
    raise AssertionError(f"the trade of match {match_id} never opened")


async def legal(p: Player, count: int, avoid: set[str]) -> list[pb.OwnedCopy]:
    """``count`` free copies of the player's, of different characters none in ``avoid``,
    the lowest stars first (so within the deck's star limits)."""
    mine = (await p.call("ListCollection", g.ListCollectionRequest(page_size=200))).entries
    chosen: list[pb.OwnedCopy] = []
    for e in sorted(mine, key=lambda e: e.copy.character.stars):
        taken = {*avoid, *(c.character.character_id for c in chosen)}
        if e.copy.character.character_id not in taken and not e.HasField("lock"):
            chosen.append(e.copy)
        if len(chosen) == count:
            return chosen
    raise AssertionError(f"{p.name} has no {count} free copies of different characters")


async def test_queueing_right_after_a_trade_one_match_ends_is_refused(api: Any) -> None:
    """The moment the loser's forfeit answers (the result is visible), neither player
    may queue: the pending Trade One is named, and their status shows it; once the card
    has moved both queue again."""
    loser, winner = await join(api), await join(api)
    for _ in range(3):
        match_id = await table_match(loser, winner, TRADE_TABLE)
        ended = await loser.call(
            "Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id)
        )
        assert ended.view.status == pb.MATCH_STATUS_FINISHED
        statuses = await asyncio.gather(status(loser), status(winner))
        queued = await asyncio.gather(*(code_of(enqueue(p)) for p in (loser, winner)))
        for (code, answer), p in zip(queued, (loser, winner), strict=True):
            assert code == grpc.StatusCode.FAILED_PRECONDITION, (p.name, code, answer)
            # "the trade of your last match is being settled" until the trade opens,
            # then "a Trade One card must change hands before your next match"
            assert "trade" in answer.lower() and "match" in answer, answer
        for s in statuses:
            kinds = [o.kind for o in s.obligations]
            assert pb.OBLIGATION_KIND_PENDING_TRADE in kinds, s
            assert not s.HasField("ticket") or s.ticket.status != pb.TICKET_STATUS_QUEUED
        trade = await opened_trade(winner, match_id)
        # the obligation seen before the trade opened names it already
        for s in statuses:
            trades = [o.id for o in s.obligations if o.kind == pb.OBLIGATION_KIND_PENDING_TRADE]
            assert trades == [trade.trade_id], s
        await winner.call(
            "ChooseTradeCard",
            g.ChooseTradeCardRequest(
                request_id=uuid4().hex,
                trade_id=trade.trade_id,
                copy_id=trade.offered_copies[0].copy_id,
            ),
        )
        for p in (loser, winner):
            assert not (await status(p)).obligations
    # free again: both queue, and leave
    for p in (loser, winner):
        ticket = (await enqueue(p)).ticket
        await p.call(
            "CancelTicket",
            g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=ticket.ticket_id),
        )


async def test_the_chosen_copy_is_the_winners_when_the_choice_answers(api: Any) -> None:
    """SaveDeck with the copy just won, sent the moment ChooseTradeCard returns, is
    accepted every time; the copy moved exactly once, and the answer says COMPLETED."""
    ann, bea = await join(api), await join(api)
    for round_ in range(6):
        # they take turns losing, so that neither runs out of copies for a deck
        loser, winner = (ann, bea) if round_ % 2 else (bea, ann)
        before = {p.id: await p.copies() for p in (winner, loser)}
        match_id = await table_match(loser, winner, TRADE_TABLE)
        await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
        trade = await opened_trade(winner, match_id)
        # a legal deck: the won copy and four of the winner's own, of other characters
        won = min(trade.offered_copies, key=lambda c: c.character.stars)
        rest = await legal(winner, 4, avoid={won.character.character_id})
        answer = await winner.call(
            "ChooseTradeCard",
            g.ChooseTradeCardRequest(
                request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=won.copy_id
            ),
        )
        saved = await code_of(
            winner.call(
                "SaveDeck",
                g.SaveDeckRequest(
                    request_id=uuid4().hex,
                    name="won",
                    copy_ids=[won.copy_id, *(c.copy_id for c in rest)],
                ),
            )
        )
        assert saved[0] == grpc.StatusCode.OK, saved
        assert answer.trade.status == pb.TRADE_STATUS_COMPLETED, answer.trade
        assert answer.trade.chosen_copy_id == won.copy_id
        after = {p.id: await p.copies() for p in (winner, loser)}
        assert after[winner.id] - before[winner.id] == {won.copy_id}
        assert before[loser.id] - after[loser.id] == {won.copy_id}
        # A copy named twice is malformed whatever the trade is at (found from outside:
        # once chosen, "a card was already chosen", as if it could be asked again).
        twice = g.ChooseTradeCardRequest(
            request_id=uuid4().hex, trade_id=trade.trade_id, copy_ids=[won.copy_id] * 2
        )
        code, details = await code_of(winner.call("ChooseTradeCard", twice))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "only once" in details, details
        await winner.call(
            "DeleteDeck", g.DeleteDeckRequest(request_id=uuid4().hex, deck_id=saved[1].deck.deck_id)
        )


async def test_a_ticket_the_server_cancels_says_why(api: Any) -> None:
    """Ann queues Ranked with a saved deck and deletes it while she waits: when she is
    paired, her match cannot start, and the cancelled ticket pushed on her session says
    why; Bea, who could play, waits on."""
    ann, bea = await join(api), await join(api)
    copies = await legal(ann, 5, avoid=set())
    deck = await ann.call(
        "SaveDeck",
        g.SaveDeckRequest(
            request_id=uuid4().hex, name="gone", copy_ids=[c.copy_id for c in copies]
        ),
    )
    session = api.OpenSession(g.OpenSessionRequest(), metadata=ann.meta)
    try:
        pushes = aiter(session)
        await anext(pushes)  # session opened
        ticket = (
            await ann.call(
                "Enqueue",
                g.EnqueueRequest(
                    request_id=uuid4().hex,
                    mode=pb.MODE_RANKED,
                    deck=pb.DeckChoice(deck_id=deck.deck.deck_id),
                ),
            )
        ).ticket
        await ann.call(
            "DeleteDeck", g.DeleteDeckRequest(request_id=uuid4().hex, deck_id=deck.deck.deck_id)
        )
        other = (
            await bea.call(
                "Enqueue",
                g.EnqueueRequest(
                    request_id=uuid4().hex,
                    mode=pb.MODE_RANKED,
                    deck=pb.DeckChoice(random=pb.RandomDeck()),
                ),
            )
        ).ticket
        ended = None
        while ended is None:
            push = await asyncio.wait_for(anext(pushes), 20)
            seen = push.queue_status.ticket
            if push.HasField("queue_status") and seen.status != pb.TICKET_STATUS_QUEUED:
                ended = seen
    finally:
        session.cancel()
    assert ended.ticket_id == ticket.ticket_id
    assert ended.status == pb.TICKET_STATUS_CANCELLED
    assert "could not start" in ended.cancel_message, ended
    assert "deck" in ended.cancel_message, ended  # what she can act on
    bea_status = await status(bea)
    assert bea_status.ticket.ticket_id == other.ticket_id  # back in the queue
    await bea.call(
        "CancelTicket", g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=other.ticket_id)
    )
