"""A Sudden Death match's end as the collection settles it (RULES.md 12, 13): the
MatchFinished bytes the match service writes, read by the collection's own reader. Here,
not beside either service, because services never import each other's packages."""

from __future__ import annotations

from triad.v1 import events_pb2 as ev

from services.collection.codec import finished_match
from services.match import codec, domain
from services.match.tests.builders import after, later
from services.match.tests.test_sudden_death import CROSSED, _play, _start


def test_a_sudden_death_trade_one_settles_from_the_final_round() -> None:
    """The collection reads the MatchFinished bytes: the final round's winner, the
    original decks (copies never change owner during a match) and Trade One."""
    match, history = _start(nines=(0,), trade_one=True)
    match = _play(match, CROSSED, history)
    match = _play(match, [("b3", 4), ("a2", 1), ("b0", 2)], history)
    match = after(match, domain.forfeit(match, "p-a", later(5)))
    finished = match.finished
    assert finished is not None and finished.trade_one and finished.round == 2
    stored = codec.encode(finished, match.cards)
    envelope = ev.EventEnvelope(
        event_type=stored.type, schema_version=stored.schema_version, payload=stored.data
    )
    settled = finished_match(envelope)
    assert settled is not None and settled.trade_one and settled.winner == 1
    assert settled.seats[0].deck == ("a0", "a1", "a2", "a3", "a4")
    assert settled.placements == 12
