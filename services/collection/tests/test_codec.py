"""Every collection event survives the trip through its protobuf payload unchanged."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from random import Random

import pytest
from triad.v1 import events_pb2 as ev

from services.collection import codec
from services.collection.domain import auction, decks, seeds, trade, wealth
from services.collection.domain import draft_session as session
from services.collection.domain.draft import draw_pool
from services.collection.domain.events import (
    CollectionEvent,
    CopiesLocked,
    CopiesReleased,
    CopySource,
    CurrencyReason,
    DeckDeleted,
    DeckSaved,
    DraftCardRevealed,
    Holder,
    HolderKind,
    PlayerRef,
    RandomDeckDrawn,
)
from services.collection.domain.events_auction import ListingExpired
from services.collection.domain.seeds import ActiveSeed
from services.collection.tests.builders import CATALOG, T0, legal_copies
from services.rules import Side


def every_event() -> list[CollectionEvent]:
    rng = Random(5)
    starter = wealth.starter_characters(CATALOG, rng)
    granted = wealth.grant(
        "p1", "g1", starter[:2], [(True, Side.LEFT), (False, None)], CopySource.STARTER, T0
    )
    seed = ActiveSeed("s1", "ab" * 32, "hash", "client", 4, T0)
    paid, opened = seeds.open_booster(CATALOG, "p1", "draw1", 500, seed, 9, T0)
    revealed, committed = seeds.rotate_seed("p1", seed, "s2", "cd" * 32, "new-client")
    match_holder = Holder(HolderKind.MATCH, "m1")
    offered = legal_copies(owner="l")
    trade_opened = trade.open_trade("m1", PlayerRef("w", "W"), PlayerRef("l", "L"), offered, T0)
    state = trade.evolve(None, trade_opened, T0)
    picked = trade.auto_pick(state, [2], state.deadline)
    assert picked is not None
    chosen, moved = picked
    pools = (draw_pool(list(CATALOG), rng), draw_pool(list(CATALOG), rng))
    players = (PlayerRef("a", "A"), PlayerRef("b", "B"))
    started = session.create(None, "d1", "draft", 0, "pair", players, pools, T0)
    draft = started.state
    end = session.expire(draft, draft.pick_deadline, rng)  # both idle: forfeit
    draft_events = [*started.events, *end.events]
    reveal = DraftCardRevealed("d1", "a", 1, 2, "a-b1-2", T0 + timedelta(seconds=120))
    return [
        *granted,
        wealth.credit("p1", 0, 300, CurrencyReason.STARTER, "g1"),
        paid,
        opened,
        revealed,
        committed,
        decks.save_deck(
            "p1", "deck1", "Main", [c.copy_id for c in offered], {c.copy_id: c for c in offered},
            {}, None, 0,
        ),
        DeckDeleted("p1", "deck1"),
        RandomDeckDrawn("p1", "m1", ("a", "b", "c", "d", "e")),
        CopiesLocked("p1", ("a", "b"), match_holder),
        CopiesReleased("p1", ("a",), Holder(HolderKind.TRADE, "t1")),
        trade_opened,
        chosen,
        moved,
        *draft_events,
        reveal,
        *listing_events(),
    ]  # fmt: skip


def listing_events() -> list[CollectionEvent]:
    """A listing's life: created (with a holo copy), sold, and the other two closes."""
    holo = replace(legal_copies(owner="s")[0], holo=True, holo_side=Side.TOP)
    created = auction.create("L1", holo, 250, T0)
    state = auction.fold([(created, T0)])
    assert state is not None
    return [
        created,
        auction.buy(state, "b", T0),
        auction.cancel(state, "s", T0),
        ListingExpired("L1", "s"),
        CopiesLocked("s", (holo.copy_id,), Holder(HolderKind.LISTING, "L1")),
    ]


@pytest.mark.parametrize("event", every_event(), ids=lambda e: type(e).__name__)
def test_an_event_decodes_to_what_was_encoded(event: CollectionEvent) -> None:
    encoded = codec.encode(event)
    assert encoded.schema_version == codec.SCHEMA_VERSION
    at = getattr(event, "opened_at", getattr(event, "created_at", T0))
    assert codec.decode(encoded.type, encoded.data, at, encoded.schema_version) == event


def test_a_completed_draft_carries_both_decks_in_full() -> None:
    rng = Random(8)
    pools = (draw_pool(list(CATALOG), rng), draw_pool(list(CATALOG), rng))
    players = (PlayerRef("a", "A"), PlayerRef("b", "B"))
    draft = session.create(None, "d1", "draft", 0, "p", players, pools, T0).state
    # Both keep acting, so the deadline completes their decks rather than forfeits them.
    awake = [replace(s, inactive_at=draft.pick_deadline + timedelta(1)) for s in draft.seats]
    active = replace(draft, seats=(awake[0], awake[1]))
    events = session.expire(active, draft.pick_deadline, rng).events
    completed = events[-1]
    payload = codec.message(completed)
    assert isinstance(payload, ev.DraftCompleted)
    assert len(payload.decks) == 2 and all(len(d.deck) == 5 for d in payload.decks)
    encoded = codec.encode(completed)
    assert codec.decode(encoded.type, encoded.data, T0) == completed


def test_an_older_payload_is_brought_up_to_date_by_its_upcaster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Version 2 of DeckSaved (say) trims names: a version-1 payload read back passes
    through the upcaster of version 1, and a current one does not."""
    saved = DeckSaved("p1", "d1", "  Main  ", ("c1",))

    def trim(data: bytes) -> bytes:
        message = ev.DeckSaved.FromString(data)
        message.name = message.name.strip()
        return message.SerializeToString()

    monkeypatch.setattr(codec, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(codec.UPCASTERS, ("triad.v1.DeckSaved", 1), trim)
    old = codec.encode(saved)
    assert codec.decode(old.type, old.data, T0, 1) == replace(saved, name="Main")
    assert codec.decode(old.type, old.data, T0, 2) == saved


def test_an_unknown_event_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown collection event type"):
        codec.decode("triad.v1.MatchFinished", b"", T0)
