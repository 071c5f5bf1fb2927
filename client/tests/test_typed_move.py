"""A move typed at the match screen: the card is the one at that place in the hand the
player is looking at, and placing it is one call (no read of the match before it)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import ClientError
from client.play import card_id, typed
from client.session import Followed
from client.tests import views


class Gateway:
    """Answers PlaceCard with the next version of the view; records every call."""

    def __init__(self, view: pb.MatchView) -> None:
        self.view = view
        self.calls: list[tuple[str, Any]] = []
        self.stub: Any = argparse.Namespace(
            PlaceCard="PlaceCard", GetMatchView="GetMatchView", Forfeit="Forfeit"
        )

    async def call(self, method: str, request: Any) -> Any:
        self.calls.append((method, request))
        after = pb.MatchView()
        after.CopyFrom(self.view)
        after.version += 1
        return g.PlaceCardResponse(view=after)


async def test_a_typed_move_places_the_card_shown_at_that_place_in_one_call() -> None:
    shown = views.view(hand=5)
    gateway = Gateway(shown)
    told = Followed()
    told.show(shown)

    await typed(gateway, told, "2 4", shown, None)  # type: ignore[arg-type]

    assert [method for method, _ in gateway.calls] == ["PlaceCard"]
    request = gateway.calls[0][1]
    assert request.card_id == shown.my_hand[2].card.card_id
    assert (request.match_id, request.cell) == (shown.match_id, 4)
    assert told.view is not None and told.view.version == shown.version + 1


def test_a_card_place_outside_the_hand_says_which_places_there_are() -> None:
    shown = views.view(hand=3)
    with pytest.raises(ClientError, match=r"cards 0\.\.2"):
        card_id(shown, "3")
    assert card_id(shown, shown.my_hand[1].card.card_id) == shown.my_hand[1].card.card_id


async def test_a_card_typed_as_no_place_and_no_id_in_the_hand_is_refused_before_a_call() -> None:
    """Found from outside: '-1 4' at the match screen was sent as a card id, and the
    server's "card '-1' is not in your hand" said nothing of the numbers to type."""
    shown = views.view(hand=5)
    gateway = Gateway(shown)
    told = Followed()
    told.show(shown)
    for line in ("-1 4", "some-card-id 4"):
        with pytest.raises(ClientError, match=r"your hand has cards 0\.\.4"):
            await typed(gateway, told, line, shown, None)  # type: ignore[arg-type]
    assert gateway.calls == []


async def test_not_your_turn_is_said_until_the_match_moves_on() -> None:
    """Found from outside: "Not your turn yet." stayed under "Your turn - 58 s left"
    once the opponent had moved."""
    theirs = views.view(hand=5)
    theirs.turn_seat = pb.SEAT_B if theirs.my_seat == pb.SEAT_A else pb.SEAT_A
    told = Followed()
    told.show(theirs)
    await typed(Gateway(theirs), told, "0 4", theirs, None)  # type: ignore[arg-type]
    assert told.note == "Not your turn yet."
    mine = pb.MatchView()
    mine.CopyFrom(theirs)
    mine.version, mine.turn_seat = theirs.version + 1, theirs.my_seat
    told.show(mine)
    assert told.note == ""
