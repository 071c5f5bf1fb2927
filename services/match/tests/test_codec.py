"""Every match event survives the trip to protobuf bytes and back unchanged."""

from __future__ import annotations

from random import Random

import pytest

from services.match import codec, domain
from services.match.domain.events import CardPlaced, MatchCreated, MatchEvent
from services.match.tests.builders import T0, after, created, later
from services.match.tests.test_realm import EVERYTHING, realm_card, realm_match
from services.rules import Seat, Visibility


def history(seed: int, visibility: Visibility) -> list[MatchEvent]:
    rng = Random(seed)
    events = created(visibility=visibility)
    match = domain.fold(events)
    assert match is not None
    events += (step := domain.presence(match, "p-a", True, "s1", later(1))).events
    match = after(match, step)
    events += (step := domain.presence(match, "p-a", False, "s1", later(2))).events
    match = after(match, step)
    events += (step := domain.time_out(match, 1, later(60), rng.randrange(1000))).events
    match = after(match, step)
    events += (step := domain.restart_clocks(match, later(200), 80.5)).events  # A away
    match = after(match, step)
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        events += (
            step := domain.place(match, match.player(seat).player_id, card_id, cell, later(3))
        ).events
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
        stored = codec.encode(event, cards)
        kinds.add(stored.type)
        back = codec.decode(stored.type, stored.schema_version, stored.data, T0, first.setup)
        assert back == event
    assert {"triad.v1.MatchCreated", "triad.v1.CardPlaced", "triad.v1.MatchFinished"} <= kinds
    assert "triad.v1.PlayerDisconnected" in kinds and "triad.v1.TurnWarningIssued" in kinds
    assert "triad.v1.ClocksRestarted" in kinds


def test_an_unknown_event_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown match event type"):
        codec.decode("triad.v1.Nonsense", 1, b"", T0, None)


def test_a_payload_of_an_older_schema_version_is_upcast_before_it_is_decoded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hook for a payload change: version 1 bytes reach the decoder through the
    registered upcaster once the current version is 2."""
    first = created()[0]
    stored = codec.encode(first, {})
    seen: list[bytes] = []

    def to_v2(data: bytes) -> bytes:
        seen.append(data)
        return data

    monkeypatch.setattr(codec, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(codec.UPCASTERS, (stored.type, 1), to_v2)
    assert codec.decode(stored.type, 1, stored.data, T0, None) == first
    assert seen == [stored.data]
    assert codec.decode(stored.type, 2, stored.data, T0, None) == first
    assert len(seen) == 1, "a payload at the current version is not upcast"


def test_a_schema_version_without_an_upcaster_or_from_the_future_is_refused() -> None:
    stored = codec.encode(created()[0], {})
    with pytest.raises(ValueError, match="newer than this service reads"):
        codec.decode(stored.type, codec.SCHEMA_VERSION + 1, stored.data, T0, None)
    with pytest.raises(ValueError, match="no upcaster"):
        codec.decode(stored.type, 0, stored.data, T0, None)


def test_a_realm_match_with_lair_and_sudden_death_round_trips_through_its_payloads() -> None:
    pile = (realm_card("p0", (9, 9, 9, 9)), *(realm_card(f"p{i}") for i in range(1, 10)))
    match = realm_match(EVERYTHING, sudden_death=True, pile=pile)
    events: list[MatchEvent] = [
        MatchCreated(
            "r1",
            match.setup,
            match.seats,
            (None,) * 9,
            Seat.A,
            later(60),
            60,
            120,
            T0,
            "",
            tuple(match.cards[i] for i in match.draw_pile),
        )
    ]
    lair = True
    while match.in_progress:
        seat = match.position.to_move
        card_id = match.position.hand(seat)[0].id
        step = domain.place(
            match,
            match.player(seat).player_id,
            card_id,
            match.position.board.empty_cells[0],
            later(3),
            lair=lair,
        )
        events += step.events
        match, lair = step.state, False  # Lair on the first move only: the board ties
    cards = {c.card_id: c for seat in match.seats for c in seat.hand} | {
        i: match.cards[i] for i in match.draw_pile
    }
    replaced = 0
    for event in events:
        stored = codec.encode(event, cards)
        back = codec.decode(stored.type, stored.schema_version, stored.data, T0, match.setup)
        assert back == event
        replaced += isinstance(event, CardPlaced) and bool(event.realm and event.realm.replaced)
    assert replaced >= 1 and match.realm is not None and match.realm.lair_spent == (True, False)
    assert domain.fold(events) == match
