"""Domain values and events <-> ``triad.v1`` protobuf, for the event store and the server."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.collection.catalog import Character
from services.collection.draft import DraftCard
from services.collection.events import (
    BoosterDraw,
    BoosterOpened,
    CollectionEvent,
    CopiesLocked,
    CopiesReleased,
    CopyGranted,
    CopySource,
    CopyTransferred,
    CurrencyCredited,
    CurrencyDebited,
    CurrencyReason,
    DeckDeleted,
    DeckSaved,
    DraftCardPicked,
    DraftCardRevealed,
    DraftCompleted,
    DraftCreated,
    DraftedDeck,
    DraftForfeited,
    DraftParticipant,
    Holder,
    HolderKind,
    OwnedCopy,
    PlayerRef,
    RandomDeckDrawn,
    ServerSeedCommitted,
    ServerSeedRevealed,
    TradeCardChosen,
    TradeOpened,
)
from services.wire import (
    ELEMENTS,
    ELEMENTS_BACK,
    LADDERS,
    LADDERS_BACK,
    SIDES,
    SIDES_BACK,
    moment,
    sides,
    sides_back,
    timestamp,
)

SOURCES: dict[CopySource, pb.CopySource.ValueType] = {
    s: pb.CopySource.Value(f"COPY_SOURCE_{s.name}") for s in CopySource
}
SOURCES_BACK = {v: k for k, v in SOURCES.items()}
REASONS: dict[CurrencyReason, pb.CurrencyReason.ValueType] = {
    r: pb.CurrencyReason.Value(f"CURRENCY_REASON_{r.name}") for r in CurrencyReason
}
REASONS_BACK = {v: k for k, v in REASONS.items()}


def character(value: Character) -> pb.Character:
    return pb.Character(
        character_id=value.id,
        name=value.name,
        stars=value.stars,
        element=ELEMENTS[value.element],
        sides=sides(value.sides),
    )


def character_back(message: pb.Character) -> Character:
    return Character(
        message.character_id,
        message.name,
        message.stars,
        ELEMENTS_BACK[message.element],
        sides_back(message.sides),
    )


def owned_copy(value: OwnedCopy) -> pb.OwnedCopy:
    return pb.OwnedCopy(
        copy_id=value.copy_id,
        owner_player_id=value.owner_id,
        character=character(value.character),
        holo=value.holo,
        holo_side=SIDES[value.holo_side],
        printed_sides=sides(value.sides),
        source=SOURCES[value.source],
        acquire_time=timestamp(value.acquired_at),
    )


def owned_copy_back(message: pb.OwnedCopy) -> OwnedCopy:
    return OwnedCopy(
        message.copy_id,
        message.owner_player_id,
        character_back(message.character),
        message.holo,
        SIDES_BACK[message.holo_side],
        SOURCES_BACK[message.source],
        moment(message.acquire_time),
    )


def copy_card(value: OwnedCopy) -> pb.Card:
    """An owned copy as it is handed to a match (card id = copy id)."""
    return pb.Card(
        card_id=value.copy_id,
        origin=pb.CARD_ORIGIN_OWNED_COPY,
        character=character(value.character),
        holo=value.holo,
        holo_side=SIDES[value.holo_side],
        printed_sides=sides(value.sides),
    )


def draft_card(value: DraftCard) -> pb.Card:
    return pb.Card(
        card_id=value.id,
        origin=pb.CARD_ORIGIN_DRAFTED,
        character=character(value.character),
        holo=value.holo,
        holo_side=SIDES[value.holo_side],
        printed_sides=sides(value.sides),
    )


def draft_card_back(message: pb.Card) -> DraftCard:
    return DraftCard(
        message.card_id,
        character_back(message.character),
        SIDES_BACK[message.holo_side],
        message.holo,
    )


def holder(value: Holder) -> pb.LockHolder:
    if value.kind is HolderKind.MATCH:
        return pb.LockHolder(match_id=value.id)
    return pb.LockHolder(trade_id=value.id)


def holder_back(message: pb.LockHolder) -> Holder | None:
    which = message.WhichOneof("holder")
    if which == "match_id" and message.match_id:
        return Holder(HolderKind.MATCH, message.match_id)
    if which == "trade_id" and message.trade_id:
        return Holder(HolderKind.TRADE, message.trade_id)
    return None


def player_ref(value: PlayerRef) -> pb.PlayerRef:
    return pb.PlayerRef(player_id=value.player_id, player_name=value.name)


def player_ref_back(message: pb.PlayerRef) -> PlayerRef:
    return PlayerRef(message.player_id, message.player_name)


def ladder(name: str, season: int) -> pb.LadderKey:
    return pb.LadderKey(ladder=LADDERS[name], season=season)


def booster_draw(value: BoosterDraw) -> pb.BoosterDraw:
    return pb.BoosterDraw(
        draw_id=value.draw_id,
        seed_id=value.seed_id,
        server_seed_hash=value.seed_hash,
        client_seed=value.client_seed,
        counter=value.counter,
        algorithm=value.algorithm,
        copies=[owned_copy(c) for c in value.copies],
        pity_applied=value.pity_applied,
        price_coins=value.price,
        open_time=timestamp(value.opened_at),
    )


def booster_draw_back(message: pb.BoosterDraw) -> BoosterDraw:
    return BoosterDraw(
        message.draw_id,
        message.seed_id,
        message.server_seed_hash,
        message.client_seed,
        message.counter,
        message.algorithm,
        tuple(owned_copy_back(c) for c in message.copies),
        message.pity_applied,
        message.price_coins,
        moment(message.open_time),
    )


# --- events ---------------------------------------------------------------------------------


def type_name(message: Message) -> str:
    return message.DESCRIPTOR.full_name


def encode(event: CollectionEvent) -> Message:
    """The protobuf payload of a domain event."""
    match event:
        case CopyGranted():
            return ev.CopyGranted(
                player_id=event.player_id, copy=owned_copy(event.copy), grant_id=event.grant_id
            )
        case ServerSeedCommitted():
            return ev.ServerSeedCommitted(
                player_id=event.player_id,
                seed_id=event.seed_id,
                server_seed_hash=event.seed_hash,
                client_seed=event.client_seed,
            )
        case ServerSeedRevealed():
            return ev.ServerSeedRevealed(
                player_id=event.player_id,
                seed_id=event.seed_id,
                server_seed=event.server_seed,
                draw_count=event.draw_count,
            )
        case BoosterOpened():
            return ev.BoosterOpened(
                player_id=event.player_id,
                draw=booster_draw(event.draw),
                boosters_since_pity=event.boosters_since_pity,
            )
        case CurrencyCredited() | CurrencyDebited():
            money = (
                ev.CurrencyCredited if isinstance(event, CurrencyCredited) else ev.CurrencyDebited
            )
            return money(
                player_id=event.player_id,
                amount=event.amount,
                reason=REASONS[event.reason],
                reference_id=event.reference_id,
                balance_after=event.balance_after,
            )
        case DeckSaved():
            return ev.DeckSaved(
                player_id=event.player_id,
                deck_id=event.deck_id,
                name=event.name,
                copy_ids=event.copy_ids,
            )
        case DeckDeleted():
            return ev.DeckDeleted(player_id=event.player_id, deck_id=event.deck_id)
        case RandomDeckDrawn():
            return ev.RandomDeckDrawn(
                player_id=event.player_id, purpose_id=event.purpose_id, copy_ids=event.copy_ids
            )
        case CopiesLocked() | CopiesReleased():
            locks = ev.CopiesLocked if isinstance(event, CopiesLocked) else ev.CopiesReleased
            return locks(
                player_id=event.player_id, copy_ids=event.copy_ids, holder=holder(event.holder)
            )
        case TradeOpened():
            return ev.TradeOpened(
                trade_id=event.trade_id,
                match_id=event.match_id,
                winner=player_ref(event.winner),
                loser=player_ref(event.loser),
                offered_copies=[owned_copy(c) for c in event.offered],
                choice_deadline_time=timestamp(event.deadline),
            )
        case TradeCardChosen():
            return ev.TradeCardChosen(
                trade_id=event.trade_id,
                copy_id=event.copy_id,
                auto_picked=event.auto_picked,
                drawn_index=event.drawn_index,
            )
        case CopyTransferred():
            return ev.CopyTransferred(
                trade_id=event.trade_id,
                copy_id=event.copy_id,
                from_player_id=event.from_player_id,
                to_player_id=event.to_player_id,
                copy=owned_copy(event.copy),
            )
    return _encode_draft(event)


def _encode_draft(event: CollectionEvent) -> Message:
    match event:
        case DraftCreated():
            return ev.DraftCreated(
                draft_id=event.draft_id,
                ladder=ladder(event.ladder, event.season),
                pairing_id=event.pairing_id,
                participants=[
                    ev.DraftParticipant(
                        player=player_ref(p.player),
                        boosters=[
                            ev.DraftBoosterContents(
                                booster_index=b,
                                cards=[draft_card(c) for c in p.pool[b * 5 : b * 5 + 5]],
                            )
                            for b in range(len(p.pool) // 5)
                        ],
                    )
                    for p in event.participants
                ],
                pick_deadline_time=timestamp(event.pick_deadline),
                inactivity_deadline_time=timestamp(event.inactivity_deadline),
            )
        case DraftCardRevealed():
            return ev.DraftCardRevealed(
                draft_id=event.draft_id,
                player_id=event.player_id,
                booster_index=event.booster,
                card_index=event.slot,
                draft_card_id=event.card_id,
                inactivity_deadline_time=timestamp(event.inactivity_deadline),
            )
        case DraftCardPicked():
            return ev.DraftCardPicked(
                draft_id=event.draft_id,
                player_id=event.player_id,
                draft_card_id=event.card_id,
                pick_number=event.pick_number,
                auto_picked=event.auto_picked,
                inactivity_deadline_time=timestamp(event.inactivity_deadline),
            )
        case DraftCompleted():
            return ev.DraftCompleted(
                draft_id=event.draft_id,
                ladder=ladder(event.ladder, event.season),
                decks=[
                    ev.DraftedDeck(
                        player=player_ref(d.player),
                        deck=[draft_card(c) for c in d.cards],
                        auto_completed=d.auto_completed,
                    )
                    for d in event.decks
                ],
                match_id=event.match_id,
            )
        case DraftForfeited():
            return ev.DraftForfeited(
                draft_id=event.draft_id,
                ladder=ladder(event.ladder, event.season),
                forfeiting_player_ids=event.forfeiting,
                winner_player_id=event.winner,
                players=[player_ref(p) for p in event.players],
            )
    raise TypeError(f"not a collection event: {event!r}")


def _draft_created(m: ev.DraftCreated, at: datetime) -> DraftCreated:
    a, b = (
        DraftParticipant(
            player_ref_back(p.player),
            tuple(draft_card_back(c) for booster in p.boosters for c in booster.cards),
        )
        for p in m.participants
    )
    return DraftCreated(
        m.draft_id,
        LADDERS_BACK[m.ladder.ladder],
        m.ladder.season,
        m.pairing_id,
        (a, b),
        moment(m.pick_deadline_time),
        moment(m.inactivity_deadline_time),
        at,
    )


def _drafted(decks: Any) -> tuple[DraftedDeck, DraftedDeck]:
    a, b = (
        DraftedDeck(
            player_ref_back(d.player),
            tuple(draft_card_back(c) for c in d.deck),
            d.auto_completed,
        )
        for d in decks
    )
    return a, b


def _optional_moment(message: Any, field: str) -> datetime | None:
    return moment(getattr(message, field)) if message.HasField(field) else None


def _decode_player(m: Message) -> CollectionEvent | None:
    match m:
        case ev.CopyGranted():
            return CopyGranted(m.player_id, owned_copy_back(m.copy), m.grant_id)
        case ev.ServerSeedCommitted():
            return ServerSeedCommitted(m.player_id, m.seed_id, m.server_seed_hash, m.client_seed)
        case ev.ServerSeedRevealed():
            return ServerSeedRevealed(m.player_id, m.seed_id, m.server_seed, m.draw_count)
        case ev.BoosterOpened():
            return BoosterOpened(m.player_id, booster_draw_back(m.draw), m.boosters_since_pity)
        case ev.CurrencyCredited():
            return CurrencyCredited(
                m.player_id, m.amount, REASONS_BACK[m.reason], m.reference_id, m.balance_after
            )
        case ev.CurrencyDebited():
            return CurrencyDebited(
                m.player_id, m.amount, REASONS_BACK[m.reason], m.reference_id, m.balance_after
            )
        case ev.DeckSaved():
            return DeckSaved(m.player_id, m.deck_id, m.name, tuple(m.copy_ids))
        case ev.DeckDeleted():
            return DeckDeleted(m.player_id, m.deck_id)
        case ev.RandomDeckDrawn():
            return RandomDeckDrawn(m.player_id, m.purpose_id, tuple(m.copy_ids))
        case ev.CopiesLocked():
            return CopiesLocked(m.player_id, tuple(m.copy_ids), _holder(m.holder))
        case ev.CopiesReleased():
            return CopiesReleased(m.player_id, tuple(m.copy_ids), _holder(m.holder))
    return None


def _decode_other(m: Message, at: datetime) -> CollectionEvent | None:
    match m:
        case ev.TradeOpened():
            return TradeOpened(
                m.trade_id,
                m.match_id,
                player_ref_back(m.winner),
                player_ref_back(m.loser),
                tuple(owned_copy_back(c) for c in m.offered_copies),
                moment(m.choice_deadline_time),
                at,
            )
        case ev.TradeCardChosen():
            return TradeCardChosen(m.trade_id, m.copy_id, m.auto_picked, m.drawn_index)
        case ev.CopyTransferred():
            return CopyTransferred(
                m.trade_id, m.copy_id, m.from_player_id, m.to_player_id, owned_copy_back(m.copy)
            )
        case ev.DraftCreated():
            return _draft_created(m, at)
        case ev.DraftCardRevealed():
            return DraftCardRevealed(
                m.draft_id,
                m.player_id,
                m.booster_index,
                m.card_index,
                m.draft_card_id,
                moment(m.inactivity_deadline_time),
            )
        case ev.DraftCardPicked():
            return DraftCardPicked(
                m.draft_id,
                m.player_id,
                m.draft_card_id,
                m.pick_number,
                m.auto_picked,
                _optional_moment(m, "inactivity_deadline_time"),
            )
        case ev.DraftCompleted():
            return DraftCompleted(
                m.draft_id,
                LADDERS_BACK[m.ladder.ladder],
                m.ladder.season,
                _drafted(m.decks),
                m.match_id,
            )
        case ev.DraftForfeited():
            return DraftForfeited(
                m.draft_id,
                LADDERS_BACK[m.ladder.ladder],
                m.ladder.season,
                tuple(m.forfeiting_player_ids),
                m.winner_player_id,
                tuple(player_ref_back(p) for p in m.players),
            )
    return None


def _holder(message: pb.LockHolder) -> Holder:
    found = holder_back(message)
    if found is None:
        raise ValueError("a lock event names its holder")
    return found


def decode(name: str, data: bytes, at: datetime) -> CollectionEvent:
    """The domain event of a stored payload; ``at`` is when it was recorded."""
    kind = (
        getattr(ev, name.removeprefix("triad.v1."), None) if name.startswith("triad.v1.") else None
    )
    if kind is None:
        raise ValueError(f"unknown collection event type {name!r}")
    message = kind.FromString(data)
    event = _decode_player(message) or _decode_other(message, at)
    if event is None:
        raise ValueError(f"{name} is not a collection event")
    return event
