"""Information and identity (issue 10, item 4), through the TLS gateway with every service
a process on real PostgreSQL and NATS.

- Nobody sees what they should not: two players play a Closed and two a Three Open
  custom-table match to the end; every message each of them receives (session stream
  pushes, the first snapshot of a session reopened mid-match, GetMatchView,
  GetActiveMatch, PlaceCard and GetPlayerStatus answers) is recorded and searched for
  the opponent's cards that were hidden when it was sent: copy id, character id and
  name, and the printed sides.
- Nobody acts for another: a stranger cannot see, place in or forfeit the match; a
  player cannot place the opponent's card. (Other players' decks, copies, seeds,
  drafts and trades are NOT_FOUND in
  tests/integration/gateway_services/test_gateway_services_collection.py
  ``test_another_players_things_are_not_found`` and
  tests/integration/gateway_services/test_gateway_services_matches.py
  ``..._settles_through_the_services``; tests/e2e/hostile/test_hostile_requests.py sends
  every RPC the other players' ids.)

test_identity_accounts.py covers tokens and plaintext.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from tests.e2e.identity.identity_players import Heard, Player, join

pytestmark = pytest.mark.integration


def secrets_of(card: pb.Card) -> list[bytes]:
    """What would give a card away: its ids, its character's id and name, its sides."""
    return [
        card.card_id.encode(),
        card.character.character_id.encode(),
        card.character.name.encode(),
        card.printed_sides.SerializeToString(),
        card.character.sides.SerializeToString(),
    ]


async def play_through(
    host: Player, guest: Player, visibility: int, rng: random.Random
) -> tuple[str, dict[str, list[pb.Card]], dict[str, dict[str, int]]]:
    """A custom table with ``visibility``; both play random legal moves to the end.
    Returns the match, each player's hand at the start and the version at which each
    card was placed."""
    sessions = [asyncio.create_task(p.listen()) for p in (host, guest)]
    while not (host.heard and guest.heard):
        await asyncio.sleep(0.02)
    rules = pb.Rules(visibility=visibility, same=True, plus=True, combo=True)  # type: ignore[arg-type]
    table = await host.ask(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex, settings=pb.TableSettings(rules=rules, random_deck=True)
        ),
    )
    joined = await guest.ask(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    )
    match_id = joined.match_id
    players = (host, guest)
    hands: dict[str, list[pb.Card]] = {}
    placed_at: dict[str, dict[str, int]] = {p.id: {} for p in players}
    stranger = await join(host.api)
    reopened = False
    while True:
        views = {
            p.id: (await p.ask("GetMatchView", g.GetMatchViewRequest(match_id=match_id))).view
            for p in players
        }
        for p in players:
            hands.setdefault(p.id, [h.card for h in views[p.id].my_hand])
        first = views[host.id]
        if first.status == pb.MATCH_STATUS_FINISHED:
            break
        mover = next(p for p in players if views[p.id].my_seat == first.turn_seat)
        other = guest if mover is host else host
        view = views[mover.id]
        if view.turn_number == 4 and not reopened:
            # A reconnect mid-match: the new session's first push is the whole view.
            reopened = True
            for p in players:
                sessions.append(asyncio.create_task(p.listen()))
            await asyncio.sleep(0.5)
            await asyncio.gather(
                *(p.ask("GetActiveMatch", g.GetActiveMatchRequest()) for p in players)
            )
            await asyncio.gather(
                *(p.ask("GetPlayerStatus", g.GetPlayerStatusRequest()) for p in players)
            )
            continue  # the reconnects are events of the match: look again
        await refused_impostors(match_id, view, mover, other, stranger, views[other.id])
        empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
        card = rng.choice(list(view.my_hand)).card
        try:
            placed = await mover.ask(
                "PlaceCard",
                g.PlaceCardRequest(
                    request_id=uuid4().hex,
                    match_id=match_id,
                    card_id=card.card_id,
                    cell=rng.choice(empty),
                    expected_version=view.version,
                ),
            )
        except grpc.aio.AioRpcError as error:  # a late presence report moved the version
            assert error.code() == grpc.StatusCode.ABORTED, error.details()
            continue
        placed_at[mover.id][card.card_id] = placed.view.version
    await asyncio.sleep(1.0)  # the last views reach the streams
    for task in sessions:
        task.cancel()
    await asyncio.gather(*sessions, return_exceptions=True)
    return match_id, hands, placed_at


async def refused_impostors(
    match_id: str,
    view: pb.MatchView,
    mover: Player,
    other: Player,
    stranger: Player,
    other_view: pb.MatchView,
) -> None:
    """Nobody but the mover moves now: each attempt is refused and changes nothing."""
    empty = next(c.index for c in view.board if c.WhichOneof("content") == "empty")
    mine = view.my_hand[0].card.card_id
    attempts = [
        # the stranger, as if seated
        (stranger, "GetMatchView", g.GetMatchViewRequest(match_id=match_id), "NOT_FOUND"),
        (
            stranger,
            "PlaceCard",
            g.PlaceCardRequest(request_id=uuid4().hex, match_id=match_id, card_id=mine, cell=empty),
            "NOT_FOUND",
        ),
        (
            stranger,
            "Forfeit",
            g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id),
            "NOT_FOUND",
        ),
        # the waiting player placing the mover's card, on the mover's turn
        (
            other,
            "PlaceCard",
            g.PlaceCardRequest(request_id=uuid4().hex, match_id=match_id, card_id=mine, cell=empty),
            "FAILED_PRECONDITION",
        ),
    ]
    # the mover placing a card of the opponent's they can see (Three Open)
    for slot in view.opponent_hand:
        if slot.HasField("revealed"):
            attempts.append(
                (
                    mover,
                    "PlaceCard",
                    g.PlaceCardRequest(
                        request_id=uuid4().hex,
                        match_id=match_id,
                        card_id=slot.revealed.card_id,
                        cell=empty,
                    ),
                    "FAILED_PRECONDITION",
                )
            )
            break
    for who, rpc, request, code in attempts:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await who.ask(rpc, request)
        assert refused.value.code().name == code, (rpc, refused.value.details())
        hidden = {s.revealed.card_id for s in other_view.opponent_hand if s.HasField("revealed")}
        assert not any(c in (refused.value.details() or "") for c in hidden - {mine})
    after = await mover.ask("GetMatchView", g.GetMatchViewRequest(match_id=match_id))
    # (the version may move on: presence reports of the players' sessions are events too)
    assert list(after.view.board) == list(view.board), "a refused attempt changed the board"
    assert list(after.view.my_hand) == list(view.my_hand)
    assert after.view.turn_number == view.turn_number and after.view.status == view.status


def leaks(
    listener: Player,
    opponent_hand: list[pb.Card],
    revealed_from_start: set[str],
    placed_at: dict[str, int],
    everyone: list[pb.Card],
) -> list[str]:
    """Every recorded message to ``listener`` holding something of an opponent's card
    that was hidden at that message's version; a card never placed must be in none.

    A character, name or sides shared with another card of the match cannot give this
    card away, so only its ids are searched then."""
    found = []
    for card in opponent_hand:
        if card.card_id in revealed_from_start:
            continue
        shared = {s for c in everyone if c.card_id != card.card_id for s in secrets_of(c)}
        secrets = [
            s for s in secrets_of(card) if s and (s not in shared or s == card.card_id.encode())
        ]
        placed = placed_at.get(card.card_id)
        for heard in listener.heard:
            if placed is not None and (heard.version is None or heard.version >= placed):
                continue  # on the board by then, or not a view of the match
            found += [
                f"{heard.what} v{heard.version}: {secret!r} of {card.card_id}"
                for secret in secrets
                if secret in heard.data
            ]
    return found


@pytest.mark.parametrize("visibility", [pb.VISIBILITY_CLOSED, pb.VISIBILITY_THREE_OPEN])
async def test_no_message_to_a_player_holds_a_hidden_card_of_the_opponent(
    api: Any, visibility: int
) -> None:
    host, guest = await join(api), await join(api)
    rng = random.Random(visibility)
    match_id, hands, placed_at = await play_through(host, guest, visibility, rng)
    revealed = {}
    for p in (host, guest):
        view = (await p.ask("GetMatchView", g.GetMatchViewRequest(match_id=match_id))).view
        assert view.status == pb.MATCH_STATUS_FINISHED
    # What the owner is told the opponent saw from the start: none (Closed), three (Three Open).
    # (read from each player's first GetMatchView, asked before anyone placed a card)
    for p in (host, guest):
        assert any(h.what == "push match_view" for h in p.heard), "no view was pushed"
        first = next(h for h in p.heard if h.what == "GetMatchView")
        first_view = g.GetMatchViewResponse.FromString(first.data).view
        assert len(first_view.my_hand) == 5 and first_view.turn_number <= 1
        revealed[p.id] = {h.card.card_id for h in first_view.my_hand if h.revealed_to_opponent}
        expected = 0 if visibility == pb.VISIBILITY_CLOSED else 3
        assert len(revealed[p.id]) == expected
        assert len(hands[p.id]) == 5
    kinds = {h.what for p in (host, guest) for h in p.heard}
    assert {"push session_opened", "push match_view", "PlaceCard", "GetMatchView"} <= kinds
    assert any(h.what == "push session_opened" and h.version is not None for h in host.heard), (
        "the reopened session's first push carried the match"
    )
    never_placed = [
        c for p in (host, guest) for c in hands[p.id] if c.card_id not in placed_at[p.id]
    ]
    assert len(never_placed) == 1  # nine placements: the second player keeps one card
    messages = sum(len(p.heard) for p in (host, guest))
    everyone = hands[host.id] + hands[guest.id]
    problems = leaks(host, hands[guest.id], revealed[guest.id], placed_at[guest.id], everyone)
    problems += leaks(guest, hands[host.id], revealed[host.id], placed_at[host.id], everyone)
    assert not problems, f"{len(problems)} leaks in {messages} messages:\n" + "\n".join(
        problems[:20]
    )
    print(f"{messages} messages searched, no hidden card in any")
    # The search is not blind: a hidden card, had it been sent before it was placed, is found.
    owner, listener = host, guest
    secret = next(c for c in hands[owner.id] if c.card_id not in revealed[owner.id])
    listener.heard.append(Heard("planted", 0, secret.SerializeToString()))
    planted = leaks(listener, hands[owner.id], revealed[owner.id], placed_at[owner.id], everyone)
    assert planted and all(p.startswith("planted") for p in planted)
