"""Matchmaker events <-> stored bytes: the ``triad.v1`` payloads the store appends (each
change of a ticket, pairing, practice or table), their type names and schema versions,
and the events the matchmaker consumes (``DraftCompleted``).

Every event is written at :data:`SCHEMA_VERSION`. Reading one back takes the version
recorded beside it (``Recorded.schema_version``, ``EventEnvelope.schema_version``); a
payload written at an older version is first brought up to date by the upcasters
registered in :data:`UPCASTERS` for its type, one step per version, so the decoders
only ever see the current shape. None are registered yet: every payload is at version 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.matchmaker.domain import CancelReason, Card, Seat, StartPlan, Table, Ticket
from services.matchmaker.mapping import (
    CANCEL_REASONS,
    MODES,
    card,
    card_back,
    deck_choice,
    duration,
    rules,
    seat_player,
    table_settings,
    timestamp,
)
from services.platform import codec as events
from services.platform.codec import Encoded, Upcaster

SCHEMA_VERSION = 1
"""The schema version every matchmaker event is written at today."""

UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(type name, version) -> upcaster`` to ``version + 1``. A change to a payload that
old readers would misread gets a new :data:`SCHEMA_VERSION` and an entry here."""

READER = events.Reader(UPCASTERS, events.refuse_newer)
"""Newer versions are refused (run the newer release); version 0 reads as 1."""

DRAFT_COMPLETED = "triad.v1.DraftCompleted"


@dataclass(frozen=True, slots=True)
class CompletedDraft:
    """A DraftCompleted as the matchmaker reads it: the draft, the match id it names,
    and both seats with their drafted decks."""

    draft_id: str
    match_id: str
    seats: tuple[Seat, ...]


def encode(message: Message) -> Encoded:
    return events.encode(message, SCHEMA_VERSION)


def upcast(name: str, version: int, data: bytes) -> bytes:
    """``data`` of ``name`` at ``version`` brought up to :data:`SCHEMA_VERSION`.
    Version 0 (an envelope that left it unset) is version 1; a newer one is refused."""
    return READER.upcast(name, version, data, SCHEMA_VERSION)


def decode(name: str, version: int, data: bytes) -> Message:
    """A stored or consumed event's payload as its ``triad.v1`` message, upcast first."""
    message_type = getattr(ev, name.removeprefix("triad.v1."), None)
    if message_type is None or not name.startswith("triad.v1."):
        raise ValueError(f"{name} is not a triad.v1 event")
    message: Message = message_type.FromString(upcast(name, version, data))
    return message


def draft_completed(envelope: ev.EventEnvelope) -> CompletedDraft:
    """A consumed DraftCompleted, read at the envelope's schema version."""
    message = decode(envelope.event_type, envelope.schema_version, envelope.payload)
    assert isinstance(message, ev.DraftCompleted), envelope.event_type
    seats = tuple(
        Seat(d.player.player_id, d.player.player_name, cards=tuple(card_back(c) for c in d.deck))
        for d in message.decks
    )
    return CompletedDraft(message.draft_id, message.match_id, seats)


# --------------------------------------------------------------------------- written


def ticket_queued(value: Ticket) -> ev.TicketQueued:
    return ev.TicketQueued(
        ticket_id=value.ticket_id,
        player=pb.PlayerRef(player_id=value.player_id, player_name=value.player_name),
        mode=MODES[value.mode],
        deck=deck_choice(value.deck),
        rating=value.rating,
    )


def ticket_cancelled(ticket_id: str, player_id: str, reason: CancelReason) -> ev.TicketCancelled:
    return ev.TicketCancelled(
        ticket_id=ticket_id, player_id=player_id, reason=CANCEL_REASONS[reason]
    )


def _bot_seat(plan: StartPlan, bot_cards: Sequence[Card]) -> ev.BotSeat | None:
    for index, seat in enumerate(plan.seats):
        if seat.is_bot:
            return ev.BotSeat(player=seat_player(seat, index), deck=[card(c) for c in bot_cards])
    return None


def tickets_paired(plan: StartPlan, bot_cards: Sequence[Card]) -> ev.TicketsPaired:
    message = ev.TicketsPaired(
        pairing_id=plan.start_id,
        mode=MODES[plan.mode],
        tickets=[
            ev.PairedTicket(
                ticket_id=seat.ticket_id,
                player=pb.PlayerRef(player_id=seat.player_id, player_name=seat.name),
                rating=seat.rating,
                wait_duration=duration(seat.waited),
            )
            for seat in plan.humans
        ],
        bot=_bot_seat(plan, bot_cards),
        rules=rules(plan.rules),
        rating_gap=plan.rating_gap,
    )
    if plan.draft_id:
        message.draft_id = plan.draft_id
    else:
        message.match_id = plan.match_id
    return message


def practice_started(
    plan: StartPlan, bot_cards: Sequence[Card], cancelled_ticket_id: str = ""
) -> ev.PracticeStarted:
    human = plan.humans[0]
    return ev.PracticeStarted(
        practice_id=plan.start_id,
        player=pb.PlayerRef(player_id=human.player_id, player_name=human.name),
        origin_mode=MODES[plan.origin_mode or plan.mode],
        rules=rules(plan.rules),
        bot=_bot_seat(plan, bot_cards),
        match_id=plan.match_id,
        cancelled_ticket_id=cancelled_ticket_id,
    )


def table_created(value: Table) -> ev.TableCreated:
    return ev.TableCreated(
        table_id=value.table_id,
        host=pb.PlayerRef(player_id=value.host_id, player_name=value.host_name),
        settings=table_settings(value.settings),
        host_deck=deck_choice(value.host_deck),
        challenged_player_name=value.challenged_name,
        expire_time=timestamp(value.expire_at),
        challenged=pb.PlayerRef(player_id=value.challenged_id, player_name=value.challenged_name)
        if value.challenged_id
        else None,
    )


def table_joined(plan: StartPlan) -> ev.TableJoined:
    guest = plan.seats[1]
    return ev.TableJoined(
        table_id=plan.table_id,
        guest=pb.PlayerRef(player_id=guest.player_id, player_name=guest.name),
        guest_deck=deck_choice(guest.deck),
        match_id=plan.match_id,
    )


def table_closed(table_id: str, host_id: str) -> ev.TableClosed:
    return ev.TableClosed(table_id=table_id, host_player_id=host_id)


def table_expired(table_id: str) -> ev.TableExpired:
    return ev.TableExpired(table_id=table_id)


def table_declined(value: Table) -> ev.TableDeclined:
    return ev.TableDeclined(
        table_id=value.table_id,
        challenged=pb.PlayerRef(player_id=value.challenged_id, player_name=value.challenged_name),
    )
