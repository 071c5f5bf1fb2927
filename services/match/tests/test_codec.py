"""Every match event survives the trip to protobuf bytes and back unchanged."""

from __future__ import annotations

from random import Random

import pytest

from services.match import domain, mapping
from services.match.events import MatchCreated, MatchEvent
from services.match.rules import Visibility
from services.match.tests.builders import T0, after, created, later


def history(seed: int, visibility: Visibility) -> list[MatchEvent]:
    rng = Random(seed)
    events = created(visibility=visibility)
    match = domain.fold(events)
    assert match is not None
    events += (step := domain.presence(match, "p-a", True, "s1", later(1)))
    match = after(match, step)
    events += (step := domain.presence(match, "p-a", False, "s1", later(2)))
    match = after(match, step)
    events += (step := domain.time_out(match, 1, later(60), rng.randrange(1000)))
    match = after(match, step)
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        events += (
            step := domain.place(match, match.player(seat).player_id, card_id, cell, later(3))
        )
        match = after(match, step)
    return events


@pytest.mark.parametrize("visibility", list(Visibility))
def test_every_event_round_trips_through_its_payload(visibility: Visibility) -> None:
    events = history(5, visibility)
    first = events[0]
    assert isinstance(first, MatchCreated)
    cards = {c.card_id: c for seat in first.seats for c in seat.hand}
    kinds = set()
    for event in events:
        payload = mapping.encode(event, cards)
        name = mapping.type_name(payload)
        kinds.add(name)
        back = mapping.decode(name, payload.SerializeToString(), T0, first.setup)
        assert back == event
    assert {"triad.v1.MatchCreated", "triad.v1.CardPlaced", "triad.v1.MatchFinished"} <= kinds
    assert "triad.v1.PlayerDisconnected" in kinds and "triad.v1.TurnWarningIssued" in kinds


def test_an_unknown_event_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown match event type"):
        mapping.decode("triad.v1.Nonsense", b"", T0, None)
