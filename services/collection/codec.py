"""Event bytes: the collection's events <-> stored ``triad.v1`` payloads, and the
other services' events it consumes.

Each event of ``domain/events.py`` is the protobuf message of the same name. Most are a
field-for-field copy, so one table (``SPECS``) says, per event, which field maps to
which and through which value mapper (``mapping.py``); ``encode`` and ``decode`` read it
both ways. A field that is the moment the event was recorded is not in the payload:
``decode`` takes it from the log.

Versions: ``encode`` stamps each payload with ``SCHEMA_VERSION``; ``decode`` reads the
stored version back and brings an older payload up to date through ``UPCASTERS`` (one
function per change, none yet: every payload is at version 1 and has only grown
additive fields). A version newer than this reader is read as the current one, as
protobuf readers do with additive changes; a change old readers cannot take gets a
new version and an upcaster here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.collection.domain.events import (
    BoosterOpened,
    CollectionEvent,
    CopiesLocked,
    CopiesReleased,
    CopyGranted,
    CopyTransferred,
    CurrencyCredited,
    CurrencyDebited,
    DeckDeleted,
    DeckSaved,
    DraftCardPicked,
    DraftCardRevealed,
    DraftCompleted,
    DraftCreated,
    DraftedDeck,
    DraftForfeited,
    DraftParticipant,
    FinishedMatch,
    FinishedSeat,
    PlayerRef,
    RandomDeckDrawn,
    ServerSeedCommitted,
    ServerSeedRevealed,
    TradeCardChosen,
    TradeOpened,
    TradeRule,
)
from services.collection.domain.events_auction import (
    ListingCancelled,
    ListingCreated,
    ListingExpired,
    ListingSold,
)
from services.collection.mapping import (
    REASONS,
    REASONS_BACK,
    booster_draw,
    booster_draw_back,
    draft_card,
    draft_card_back,
    holder,
    holder_back,
    optional_moment,
    owned_copy,
    owned_copy_back,
    player_ref,
    player_ref_back,
)
from services.platform import codec as events
from services.platform.codec import Upcaster
from services.wire import LADDERS, LADDERS_BACK, TRADE_RULES, TRADE_RULES_BACK, moment, timestamp

Encoded = events.Encoded
"""One event as stored (the platform's): type name, schema version, payload bytes."""

SCHEMA_VERSION = 1
"""The payload version ``encode`` writes and ``decode`` reads, for every event type."""
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(event type, version)`` -> the payload at that version rewritten as version + 1."""
READER = events.Reader(UPCASTERS, events.read_newer_as_current("collection"))
"""A newer version is logged and read as the current one (additive changes only)."""
MATCH_FINISHED = "triad.v1.MatchFinished"
BOOSTER = 5
"""Cards per draft booster in ``DraftParticipant.boosters``."""


def _same(value: Any) -> Any:
    return value


def _plain(value: Any) -> Any:
    """A payload field as the domain holds it: repeated fields become tuples."""
    return value if isinstance(value, str | int | float | bool) else tuple(value)


def _each(one: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda values: tuple(one(v) for v in values)


def _trade_rule_back(value: int) -> TradeRule:
    """A recorded trade's rule; unset (recorded before trade rules) is Trade One."""
    return TRADE_RULES_BACK.get(pb.TradeRule.ValueType(value), TradeRule.ONE)


def _holder(message: pb.LockHolder) -> Any:
    found = holder_back(message)
    if found is None:
        raise ValueError("a lock event names its holder")
    return found


def _participant(value: DraftParticipant) -> ev.DraftParticipant:
    pool = value.pool
    return ev.DraftParticipant(
        player=player_ref(value.player),
        boosters=[
            ev.DraftBoosterContents(
                booster_index=b,
                cards=[draft_card(c) for c in pool[b * BOOSTER : (b + 1) * BOOSTER]],
            )
            for b in range(len(pool) // BOOSTER)
        ],
    )


def _participant_back(message: ev.DraftParticipant) -> DraftParticipant:
    cards = (draft_card_back(c) for booster in message.boosters for c in booster.cards)
    return DraftParticipant(player_ref_back(message.player), tuple(cards))


def _deck(value: DraftedDeck) -> ev.DraftedDeck:
    return ev.DraftedDeck(
        player=player_ref(value.player),
        deck=[draft_card(c) for c in value.cards],
        auto_completed=value.auto_completed,
    )


def _deck_back(message: ev.DraftedDeck) -> DraftedDeck:
    cards = tuple(draft_card_back(c) for c in message.deck)
    return DraftedDeck(player_ref_back(message.player), cards, message.auto_completed)


@dataclass(frozen=True, slots=True)
class Field:
    """One field of an event: its payload name (a dotted path into a sub-message, or
    "" for the recording moment) and the mappers each way."""

    name: str
    payload: str | None = None
    out: Callable[[Any], Any] = _same
    back: Callable[[Any], Any] = _plain

    @property
    def path(self) -> str:
        return self.name if self.payload is None else self.payload


def _f(name: str, payload: str | None = None, *, out: Any = _same, back: Any = _plain) -> Field:
    return Field(name, payload, out, back)


PLAYER = _f("player_id")
COPY = _f("copy", out=owned_copy, back=owned_copy_back)
MONEY = (
    PLAYER,
    _f("amount"),
    _f("reason", out=REASONS.__getitem__, back=REASONS_BACK.__getitem__),
    _f("reference_id"),
    _f("balance_after"),
)
LOCK = (PLAYER, _f("copy_ids"), _f("holder", out=holder, back=_holder))
LADDER = (
    _f("ladder", "ladder.ladder", out=LADDERS.__getitem__, back=LADDERS_BACK.__getitem__),
    _f("season", "ladder.season"),
)
SELLER = _f("seller_id", "seller_player_id")
EXPIRES = _f("expires_at", "expire_time", out=timestamp, back=moment)
RECORDED = ""
"""The payload name of a field that is the moment the event was recorded."""

SPECS: dict[type[Any], tuple[type[Message], tuple[Field, ...]]] = {
    CopyGranted: (ev.CopyGranted, (PLAYER, COPY, _f("grant_id"))),
    ServerSeedCommitted: (
        ev.ServerSeedCommitted,
        (PLAYER, _f("seed_id"), _f("seed_hash", "server_seed_hash"), _f("client_seed")),
    ),
    ServerSeedRevealed: (
        ev.ServerSeedRevealed,
        (PLAYER, _f("seed_id"), _f("server_seed"), _f("draw_count")),
    ),
    BoosterOpened: (
        ev.BoosterOpened,
        (PLAYER, _f("draw", out=booster_draw, back=booster_draw_back), _f("boosters_since_pity")),
    ),
    CurrencyCredited: (ev.CurrencyCredited, MONEY),
    CurrencyDebited: (ev.CurrencyDebited, MONEY),
    DeckSaved: (ev.DeckSaved, (PLAYER, _f("deck_id"), _f("name"), _f("copy_ids"))),
    DeckDeleted: (ev.DeckDeleted, (PLAYER, _f("deck_id"))),
    RandomDeckDrawn: (ev.RandomDeckDrawn, (PLAYER, _f("purpose_id"), _f("copy_ids"))),
    CopiesLocked: (ev.CopiesLocked, LOCK),
    CopiesReleased: (ev.CopiesReleased, LOCK),
    TradeOpened: (
        ev.TradeOpened,
        (
            _f("trade_id"),
            _f("match_id"),
            _f("winner", out=player_ref, back=player_ref_back),
            _f("loser", out=player_ref, back=player_ref_back),
            _f("offered", "offered_copies", out=_each(owned_copy), back=_each(owned_copy_back)),
            _f("deadline", "choice_deadline_time", out=timestamp, back=moment),
            _f("opened_at", RECORDED),
            _f("rule", "trade_rule", out=TRADE_RULES.__getitem__, back=_trade_rule_back),
            # Recorded before trade rules: Trade One's one copy.
            _f("count", "take_count", back=lambda n: n or 1),
        ),
    ),
    TradeCardChosen: (
        ev.TradeCardChosen,
        (_f("trade_id"), _f("copy_id"), _f("auto_picked"), _f("drawn_index")),
    ),
    CopyTransferred: (
        ev.CopyTransferred,
        (_f("trade_id"), _f("copy_id"), _f("from_player_id"), _f("to_player_id"), COPY),
    ),
    DraftCreated: (
        ev.DraftCreated,
        (
            _f("draft_id"),
            *LADDER,
            _f("pairing_id"),
            _f("participants", out=_each(_participant), back=_each(_participant_back)),
            _f("pick_deadline", "pick_deadline_time", out=timestamp, back=moment),
            _f("inactivity_deadline", "inactivity_deadline_time", out=timestamp, back=moment),
            _f("created_at", RECORDED),
        ),
    ),
    DraftCardRevealed: (
        ev.DraftCardRevealed,
        (
            _f("draft_id"),
            PLAYER,
            _f("booster", "booster_index"),
            _f("slot", "card_index"),
            _f("card_id", "draft_card_id"),
            _f("inactivity_deadline", "inactivity_deadline_time", out=timestamp, back=moment),
        ),
    ),
    DraftCardPicked: (
        ev.DraftCardPicked,
        (
            _f("draft_id"),
            PLAYER,
            _f("card_id", "draft_card_id"),
            _f("pick_number"),
            _f("auto_picked"),
            _f(
                "inactivity_deadline",
                "inactivity_deadline_time",
                out=timestamp,
                back=optional_moment,
            ),
        ),
    ),
    DraftCompleted: (
        ev.DraftCompleted,
        (
            _f("draft_id"),
            *LADDER,
            _f("decks", out=_each(_deck), back=_each(_deck_back)),
            _f("match_id"),
        ),
    ),
    DraftForfeited: (
        ev.DraftForfeited,
        (
            _f("draft_id"),
            *LADDER,
            _f("forfeiting", "forfeiting_player_ids"),
            _f("winner", "winner_player_id"),
            _f("players", out=_each(player_ref), back=_each(player_ref_back)),
        ),
    ),
    ListingCreated: (
        ev.ListingCreated,
        (_f("listing_id"), SELLER, COPY, _f("price"), EXPIRES, _f("created_at", RECORDED)),
    ),
    ListingCancelled: (ev.ListingCancelled, (_f("listing_id"), SELLER)),
    ListingExpired: (ev.ListingExpired, (_f("listing_id"), SELLER)),
    ListingSold: (
        ev.ListingSold,
        (_f("listing_id"), SELLER, _f("buyer_id", "buyer_player_id"), _f("price"), _f("fee"), COPY),
    ),
}
BY_TYPE = {
    kind.DESCRIPTOR.full_name: (event, kind, fields) for event, (kind, fields) in SPECS.items()
}


def message(event: CollectionEvent) -> Message:
    """The protobuf payload of a domain event."""
    spec = SPECS.get(type(event))
    if spec is None:
        raise TypeError(f"not a collection event: {event!r}")
    kind, fields = spec
    values: dict[str, Any] = {}
    for field in fields:
        if field.path == RECORDED:
            continue
        *parents, leaf = field.path.split(".")
        into = values
        for parent in parents:
            into = into.setdefault(parent, {})
        into[leaf] = field.out(getattr(event, field.name))
    return kind(**values)


def encode(event: CollectionEvent) -> Encoded:
    return events.encode(message(event), SCHEMA_VERSION)


def upcast(name: str, version: int, data: bytes) -> bytes:
    """The payload brought up to ``SCHEMA_VERSION``, one upcaster per version behind
    (version 0, an unset one, is version 1)."""
    return READER.upcast(name, version, data, SCHEMA_VERSION)


def decode(name: str, data: bytes, at: datetime, version: int = SCHEMA_VERSION) -> CollectionEvent:
    """The domain event of a stored payload; ``at`` is when it was recorded."""
    found = BY_TYPE.get(name)
    if found is None:
        raise ValueError(f"unknown collection event type {name!r}")
    event, kind, fields = found
    payload = kind.FromString(upcast(name, version, data))
    values: Mapping[str, Any] = {
        f.name: at if f.path == RECORDED else f.back(_dig(payload, f.path)) for f in fields
    }
    result: CollectionEvent = event(**values)
    return result


def _dig(payload: Message, path: str) -> Any:
    value: Any = payload
    for name in path.split("."):
        value = getattr(value, name)
    return value


# --- consumed: other services' events -------------------------------------------------------


def finished_match(envelope: ev.EventEnvelope) -> FinishedMatch | None:
    """What the collection settles of a match's end; None for any other event."""
    if envelope.event_type != MATCH_FINISHED:
        return None
    message = ev.MatchFinished.FromString(
        upcast(envelope.event_type, envelope.schema_version, envelope.payload)
    )
    seats = tuple(
        FinishedSeat(
            PlayerRef(s.player.player_id, s.player.player_name),
            s.player.is_bot,
            tuple(s.original_card_ids),
            s.score,
            tuple(s.board_card_ids),
        )
        for s in message.seats
    )
    if len(seats) != 2:
        raise ValueError(f"match {message.match_id} has {len(seats)} seats, not two")
    outcome = message.outcome
    winner = None
    if outcome.WhichOneof("result") == "winner_seat":
        winner = {pb.SEAT_A: 0, pb.SEAT_B: 1}[outcome.winner_seat]
    return FinishedMatch(
        match_id=message.match_id,
        seats=(seats[0], seats[1]),
        winner=winner,
        trade=TRADE_RULES_BACK.get(message.trade_rule, TradeRule.NONE),  # unset: no trade
        finished_at=moment(outcome.finish_time),
        placements=message.placement_count,
    )
