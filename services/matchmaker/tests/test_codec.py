"""Event bytes: what the store appends reads back through the codec at its recorded
schema version; an older payload goes through its upcaster first; a newer one, or one
with no upcaster, is refused rather than misread. Start plans survive their JSON."""

from __future__ import annotations

from datetime import UTC, datetime
from random import Random

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.matchmaker import codec
from services.matchmaker.clients import draw_deck
from services.matchmaker.domain import (
    MODE_RULES,
    BotLevel,
    CancelReason,
    DeckChoice,
    Mode,
    Seat,
    StartKind,
    StartPlan,
    Ticket,
)
from services.matchmaker.mapping import card
from services.matchmaker.store.plans import plan_from, plan_json

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_a_written_event_reads_back_at_its_schema_version() -> None:
    ticket = Ticket("t-1", "p-1", "ann", Mode.RANKED, 1512, T0, DeckChoice(deck_id="main"))
    encoded = codec.encode(codec.ticket_queued(ticket))
    assert (encoded.type, encoded.schema_version) == ("triad.v1.TicketQueued", 1)
    message = codec.decode(encoded.type, encoded.schema_version, encoded.data)
    assert isinstance(message, ev.TicketQueued)
    assert (message.ticket_id, message.rating, message.deck.deck_id) == ("t-1", 1512, "main")
    # An envelope that left the version unset (0) is read as version 1.
    cancelled = codec.encode(codec.ticket_cancelled("t-1", "p-1", CancelReason.PLAYER))
    assert codec.decode(cancelled.type, 0, cancelled.data) == ev.TicketCancelled.FromString(
        cancelled.data
    )


def test_an_older_payload_goes_through_its_upcaster(monkeypatch: pytest.MonkeyPatch) -> None:
    def rename_player(data: bytes) -> bytes:
        old = ev.TableClosed.FromString(data)
        new = ev.TableClosed(table_id=old.table_id, host_player_id="upcast-" + old.host_player_id)
        return new.SerializeToString()

    monkeypatch.setattr(codec, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(codec.UPCASTERS, ("triad.v1.TableClosed", 1), rename_player)
    stored = codec.table_closed("tb-1", "host").SerializeToString()
    message = codec.decode("triad.v1.TableClosed", 1, stored)
    assert isinstance(message, ev.TableClosed) and message.host_player_id == "upcast-host"
    assert codec.encode(codec.table_expired("tb-1")).schema_version == 2
    # Read at the current version: no upcaster runs.
    assert codec.decode("triad.v1.TableClosed", 2, stored) == ev.TableClosed.FromString(stored)
    with pytest.raises(ValueError, match=r"no upcaster for triad\.v1\.TableExpired"):
        codec.decode("triad.v1.TableExpired", 1, ev.TableExpired().SerializeToString())


def test_a_newer_or_foreign_payload_is_refused_not_misread() -> None:
    data = codec.table_expired("tb-1").SerializeToString()
    with pytest.raises(ValueError, match="newer than this service reads"):
        codec.decode("triad.v1.TableExpired", 2, data)
    with pytest.raises(ValueError, match=r"not a triad\.v1 event"):
        codec.decode("other.v1.TableExpired", 1, data)


def test_a_draft_completed_envelope_gives_both_seats_with_their_drafted_decks() -> None:
    decks = [draw_deck(Random(seed), f"d{seed}", "drafted") for seed in (1, 2)]
    message = ev.DraftCompleted(
        draft_id="dr-1",
        match_id="m-1",
        decks=[
            ev.DraftedDeck(
                player=pb.PlayerRef(player_id=f"p-{i}", player_name=f"n{i}"),
                deck=[card(c) for c in deck],
            )
            for i, deck in enumerate(decks)
        ],
    )
    envelope = ev.EventEnvelope(
        event_type="triad.v1.DraftCompleted", schema_version=1, payload=message.SerializeToString()
    )
    draft = codec.draft_completed(envelope)
    assert (draft.draft_id, draft.match_id) == ("dr-1", "m-1")
    assert [(s.player_id, s.name, s.cards) for s in draft.seats] == [
        ("p-0", "n0", decks[0]),
        ("p-1", "n1", decks[1]),
    ]


def test_a_start_plan_survives_its_json() -> None:
    cards = draw_deck(Random(3), "c", "owned_copy")
    plan = StartPlan(
        start_id="s-1",
        kind=StartKind.PAIRING,
        mode=Mode.RANKED,
        rules=MODE_RULES[Mode.RANKED],
        seats=(
            Seat("p-1", "ann", deck=DeckChoice(random=True), ticket_id="t-1", rating=1520,
                 waited=3.5, cards=cards),
            Seat("bot-1", "[BOT] Echo Lark", bot_level=BotLevel.HARD),
        ),
        match_id="m-1",
        origin_mode=Mode.RANKED,
        ladder="ranked",
        origin_id="s-1",
    )  # fmt: skip
    assert plan_from(plan_json(plan)) == plan
