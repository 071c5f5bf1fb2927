"""What a player is told when the backend refuses, through the TLS gateway, every service
a process on real PostgreSQL and NATS (issue 16, items 7 and 10):

- refusals are sentences: no code-like ``word:`` token in front, cards named by their
  character and short copy id and matches by their short id as the client shows them,
  and one wording for one case;
- an access token works until the expire time announced with it, and not after.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack
from tests.e2e.refusals.refusal_players import SHORT_TOKEN_MINUTES, Player, join

pytestmark = pytest.mark.integration


FULL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


CODE_TOKEN = re.compile(r"^[a-z]+(_[a-z]+)*: ")


TRADE_TABLE = pb.Rules(
    visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True, trade_rule=pb.TRADE_RULE_ONE
)


def label(copy: pb.OwnedCopy) -> str:
    """A copy as the client shows it (client/copies.py: name, copy_id[:8])."""
    return f"{copy.character.name} ({copy.copy_id[:8]})"


# ---- item 7: messages a person can act on --------------------------------------------


def readable(details: str, *, names: bool = True) -> str:
    assert not CODE_TOKEN.match(details), details
    if names:
        assert not FULL_UUID.search(details), details
    return details


async def test_refusals_name_cards_and_matches_the_way_the_client_shows_them(
    api: Any,
) -> None:
    winner, loser, stranger = await join(api), await join(api), await join(api)
    table = await loser.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex, settings=pb.TableSettings(rules=TRADE_TABLE, random_deck=True)
        ),
    )
    joined = await winner.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    )
    match_id = joined.match_id

    # Someone else's match and no match at all: one answer, the match as the client
    # shows it (render.py: match_id[:8]).
    nowhere = str(uuid4())
    for target in (match_id, nowhere):
        for rpc, request in (
            ("GetMatchView", g.GetMatchViewRequest(match_id=target)),
            (
                "PlaceCard",
                g.PlaceCardRequest(request_id=uuid4().hex, match_id=target, card_id="c", cell=0),
            ),
            ("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=target)),
        ):
            code, details = await stranger.refusal(rpc, request)
            assert (code, details) == (grpc.StatusCode.NOT_FOUND, f"you have no match {target[:8]}")

    await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
    trade = None
    for _ in range(200):
        reply = await winner.call("GetPendingTrade", g.GetPendingTradeRequest())
        if reply.HasField("trade"):
            trade = reply.trade
            break
        await asyncio.sleep(0.05)
    assert trade is not None
    offered = {c.copy_id: c for c in trade.offered_copies}
    mine = await loser.copies()

    # The winner naming the loser's copies: they are not the winner's; their locks are
    # none of the winner's business and not what refuses the deck.
    code, details = await winner.refusal(
        "SaveDeck", g.SaveDeckRequest(request_id=uuid4().hex, name="won", copy_ids=list(offered))
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    strangers = ", ".join(f"copy {i[:8]}" for i in offered)
    assert readable(details) == f"{strangers} are not in your collection", details
    assert "lock" not in details

    # The loser's locked copies, by name and short id.
    free = [i for i in mine if i not in offered]
    deck = [*list(offered)[:2], *free[:3]]
    code, details = await loser.refusal(
        "SaveDeck", g.SaveDeckRequest(request_id=uuid4().hex, name="mine", copy_ids=deck)
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    locked = ", ".join(label(mine[i]) for i in deck[:2])
    assert readable(details).startswith(f"{locked} are locked by "), details

    # A copy the trade does not offer: the five it does, by name.
    code, details = await winner.refusal(
        "ChooseTradeCard",
        g.ChooseTradeCardRequest(request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=free[0]),
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert readable(details).endswith(
        "choose one of " + ", ".join(label(c) for c in offered.values())
    ), details
    code, details = await stranger.refusal(
        "ChooseTradeCard",
        g.ChooseTradeCardRequest(
            request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=next(iter(offered))
        ),
    )
    assert (code, readable(details)) == (
        grpc.StatusCode.NOT_FOUND,
        f"you have no trade {trade.trade_id[:8]}",
    )

    # Both parties of the pending trade are told the same thing, whichever way they try
    # to start a match, and it is the obligation their status shows.
    status = await winner.call("GetPlayerStatus", g.GetPlayerStatusRequest())
    (obligation,) = [
        o for o in status.status.obligations if o.kind == pb.OBLIGATION_KIND_PENDING_TRADE
    ]
    random_deck = pb.DeckChoice(random=pb.RandomDeck())
    for player in (winner, loser):
        starts: tuple[tuple[str, Message], ...] = (
            (
                "Enqueue",
                g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_RANKED, deck=random_deck),
            ),
            (
                "StartPractice",
                g.StartPracticeRequest(
                    request_id=uuid4().hex,
                    origin_mode=pb.MODE_UNRANKED,
                    bot_level=pb.BOT_LEVEL_EASY,
                    deck=random_deck,
                ),
            ),
        )
        for rpc, start in starts:
            code, details = await player.refusal(rpc, start)
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            assert readable(details).endswith(obligation.message), details
            assert "lock" not in details


# ---- item 10: tokens expire when they say --------------------------------------------


async def test_an_access_token_works_until_its_announced_expire_time_and_not_after(
    backend: Stack,
) -> None:
    async def works_until_announced(player: Player) -> None:
        expires = player.tokens.access_token_expire_time.ToDatetime().timestamp()
        assert expires - time.time() >= SHORT_TOKEN_MINUTES * 60 - 1.0
        while time.time() < expires - 0.15:
            await player.call("GetActiveMatch", g.GetActiveMatchRequest())  # still works
            await asyncio.sleep(0.05)
        await asyncio.sleep(max(0.0, expires - time.time() + 0.05))
        code, details = await player.refusal("GetActiveMatch", g.GetActiveMatchRequest())
        assert code == grpc.StatusCode.UNAUTHENTICATED and "expired" in details

    async with backend.channel(backend.gateways[1]) as channel:
        api = backend.api(channel)
        # Two tokens issued half a second apart: whatever the fractions of a second of
        # the moments they are issued, an expiry cut short by a rounding shows on one.
        first = asyncio.create_task(works_until_announced(await join(api)))
        await asyncio.sleep(0.5)
        await works_until_announced(await join(api))
        await first


async def test_a_deck_that_is_not_yours_is_not_found_wherever_it_is_brought(api: Any) -> None:
    """Found from outside: StartPractice answered a made-up or someone else's deck with
    FAILED_PRECONDITION ("your deck cannot play: you have no deck ..."), where Enqueue
    and CreateTable answer NOT_FOUND."""
    owner, other = await join(api), await join(api)
    weakest = sorted((await owner.copies()).values(), key=lambda c: c.character.stars)[:5]
    saved = await owner.call(
        "SaveDeck",
        g.SaveDeckRequest(
            request_id=uuid4().hex, name="mine", copy_ids=[c.copy_id for c in weakest]
        ),
    )
    for deck_id in (saved.deck.deck_id, str(uuid4())):
        deck = pb.DeckChoice(deck_id=deck_id)
        answers = []
        for rpc, request in (
            ("Enqueue", g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_UNRANKED, deck=deck)),
            (
                "StartPractice",
                g.StartPracticeRequest(
                    request_id=uuid4().hex,
                    origin_mode=pb.MODE_UNRANKED,
                    bot_level=pb.BOT_LEVEL_EASY,
                    deck=deck,
                ),
            ),
        ):
            answers.append(await other.refusal(rpc, request))
        assert answers[0][0] == grpc.StatusCode.NOT_FOUND, answers
        assert answers[1] == answers[0], "one wording for one case"
    # and when switching a queued ticket to practice (found from outside the same way)
    queued = await other.call(
        "Enqueue",
        g.EnqueueRequest(
            request_id=uuid4().hex,
            mode=pb.MODE_UNRANKED,
            deck=pb.DeckChoice(random=pb.RandomDeck()),
        ),
    )
    for deck_id in (saved.deck.deck_id, str(uuid4())):
        switch = g.SwitchToPracticeRequest(
            request_id=uuid4().hex,
            ticket_id=queued.ticket.ticket_id,
            bot_level=pb.BOT_LEVEL_EASY,
            deck=pb.DeckChoice(deck_id=deck_id),
        )
        code, details = await other.refusal("SwitchToPractice", switch)
        assert code == grpc.StatusCode.NOT_FOUND and details == f"you have no deck {deck_id[:8]}"
    status = (await other.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
    assert status.ticket.status == pb.TICKET_STATUS_QUEUED and not status.active_match_id
    await other.call(
        "CancelTicket",
        g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=queued.ticket.ticket_id),
    )


async def test_copies_no_deck_could_hold_are_refused_before_any_check(api: Any) -> None:
    """Found from outside: ValidateDeck took 150,000 made-up copies and answered a 3.7 MB
    reply whose one message named every one. More copies than the largest deck (13) are
    INVALID_ARGUMENT in one line; a wrong size a deck may be near is still a violation."""
    ann = await join(api)
    many = g.ValidateDeckRequest(copies=pb.CopySelection(copy_ids=[f"c{i}" for i in range(14)]))
    code, details = await ann.refusal("ValidateDeck", many)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details == "a deck holds 5 cards (3x3 board), 8 (4x4) or 13 (5x5); this one holds 14"
    six = sorted(await ann.copies())[:6]
    checked = await ann.call(
        "ValidateDeck", g.ValidateDeckRequest(copies=pb.CopySelection(copy_ids=six))
    )
    assert not checked.valid and pb.DECK_RULE_FIVE_CARDS in [v.rule for v in checked.violations]


async def test_a_copy_id_no_copy_could_have_is_refused_as_save_deck_refuses_it(api: Any) -> None:
    """Found from outside: ValidateDeck took five empty copy ids ("copy  appears 5 times")
    and five of 100,000 characters each, echoing half a megabyte back in its violations,
    where SaveDeck refuses both as malformed. Both calls now answer alike."""
    ann = await join(api)
    mine = sorted(await ann.copies())[:4]
    for bad, words in (("", "copies.copy_ids is required"), ("c" * 100_000, "longer than 200")):
        copies = pb.CopySelection(copy_ids=[*mine, bad])
        code, details = await ann.refusal("ValidateDeck", g.ValidateDeckRequest(copies=copies))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and words in details, details
        assert len(details) < 200
        save = g.SaveDeckRequest(request_id=uuid4().hex, name="d", copy_ids=copies.copy_ids)
        code, _ = await ann.refusal("SaveDeck", save)
        assert code == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_battle_asked_of_start_practice_names_the_call_that_starts_one(api: Any) -> None:
    """Found from outside: StartPractice with custom_settings.battle answered "rules.visibility
    is required", which sends the player after Triad rules for a battle."""
    ann = await join(api)
    request = g.StartPracticeRequest(
        request_id=uuid4().hex,
        origin_mode=pb.MODE_CUSTOM,
        bot_level=pb.BOT_LEVEL_EASY,
        custom_settings=pb.TableSettings(battle=True),
    )
    code, details = await ann.refusal("StartPractice", request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "StartPracticeBattle" in details, details
