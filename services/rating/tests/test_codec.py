"""Event bytes in: the envelope's type and schema version decide how a payload is read."""

from __future__ import annotations

import pytest
from triad.v1 import events_pb2 as ev

from services.rating import codec
from services.rating.domain import WIN
from services.rating.tests.builders import envelope, game


def test_an_envelope_of_match_finished_decodes_to_the_game_it_came_from() -> None:
    g = game("m1", "ann", "bea", WIN)
    back = codec.decode(envelope(g))
    assert back is not None and (back.match_id, back.seats, back.score_a) == (
        "m1",
        g.seats,
        WIN,
    )


def test_an_envelope_without_a_schema_version_reads_as_version_1() -> None:
    sent = envelope(game("m1", "ann", "bea", WIN))
    sent.schema_version = 0
    assert codec.decode(sent) == codec.decode(envelope(game("m1", "ann", "bea", WIN)))


def test_an_event_type_the_ladders_do_not_rate_decodes_to_nothing() -> None:
    assert codec.decode(ev.EventEnvelope(event_type="triad.v1.CardPlaced", payload=b"x")) is None


def test_a_payload_that_does_not_parse_is_a_decode_error() -> None:
    sent = envelope(game("m1", "ann", "bea"))
    sent.payload = b"\xff\xff\xff"
    with pytest.raises(codec.DecodeError):
        codec.decode(sent)


def test_an_older_schema_version_goes_through_its_upcaster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Pretend MatchFinished is at version 2 and version 1 put the seats the other way
    # round: the upcaster swaps them back, and only an envelope at version 1 needs it.
    def swap_seats(payload: bytes) -> bytes:
        message = ev.MatchFinished.FromString(payload)
        a, b = list(message.seats)
        del message.seats[:]
        message.seats.extend([b, a])
        return message.SerializeToString()

    monkeypatch.setitem(codec.CURRENT_VERSION, codec.MATCH_FINISHED, 2)
    monkeypatch.setitem(codec.UPCASTERS, (codec.MATCH_FINISHED, 1), swap_seats)
    old = envelope(game("m1", "ann", "bea", WIN))
    upcast = codec.decode(old)
    assert upcast is not None and upcast.seats[0].player_id == "bea"
    current = envelope(game("m1", "ann", "bea", WIN))
    current.schema_version = 2
    read = codec.decode(current)
    assert read is not None and read.seats[0].player_id == "ann"
