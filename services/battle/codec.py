"""Battle events <-> stored bytes: the ``triad.v1`` Skirmish payloads (``battle.proto``),
their type names and schema versions.

Every event is written at :data:`SCHEMA_VERSION`; reading one back takes the version
recorded beside it and brings an older payload up to date through :data:`UPCASTERS`
(none yet: every battle event is at version 1). The engine's battle travels as its JSON
(``rules/FORMAT.md``), so a replay decodes the recorded state and never resolves a turn
again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from uuid import NAMESPACE_URL, UUID, uuid5

from google.protobuf.message import Message
from triad.v1 import battle_pb2 as b
from triad.v1 import common_pb2 as pb

from services import wire
from services.battle import mapping
from services.battle.domain import events as ev
from services.battle.rules import Battle
from services.battle.rules.codec import decode_battle, encode_battle
from services.platform import codec as events
from services.platform.codec import Upcaster
from services.platform.eventstore import NewEvent, Recorded

SCHEMA_VERSION = 1
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
READER = events.Reader(UPCASTERS, events.refuse_newer, unset_is_1=False)


def stream_id(battle_id: str) -> str:
    return f"battle-{battle_id}"


def event_id(battle_id: str, version: int) -> UUID:
    """The event at ``version`` of a battle has one id whoever writes it: a retried
    append is the same event (the relay's ``Nats-Msg-Id``)."""
    return uuid5(NAMESPACE_URL, f"triad:battle:{battle_id}:{version}")


def _state(battle: Battle) -> str:
    return json.dumps(encode_battle(battle), separators=(",", ":"), sort_keys=True)


def _state_back(text: str) -> Battle:
    return decode_battle(json.loads(text))


def payload(battle_id: str, event: ev.Event) -> Message:
    if isinstance(event, ev.Created):
        return b.BattleCreated(
            battle_id=battle_id,
            content_version=event.content_version,
            seats=[
                b.BattleSeatRecord(
                    player_id=s.player_id,
                    name=s.name,
                    bot_level=mapping.LEVELS[s.level],
                    characters=list(s.characters),
                    deck=list(s.deck),
                )
                for s in event.seats
            ],
            formation_deadline=wire.timestamp(event.formation_deadline),
            create_time=wire.timestamp(event.at),
        )
    if isinstance(event, ev.FormationSet):
        return b.BattleFormationSet(
            battle_id=battle_id,
            seat=event.seat,
            squares=[mapping.square(s) for s in event.squares],
            by_default=event.by_default,
        )
    if isinstance(event, ev.Started):
        return b.BattleStarted(
            battle_id=battle_id,
            state_json=_state(event.battle),
            selection_deadline=wire.timestamp(event.selection_deadline),
        )
    if isinstance(event, ev.PlanSet):
        return b.BattlePlanSet(
            battle_id=battle_id,
            seat=event.seat,
            turn=event.turn,
            actions=mapping.plan(event.plan),
            set_time=wire.timestamp(event.at),
        )
    if isinstance(event, ev.PlanCommitted):
        return b.BattlePlanCommitted(
            battle_id=battle_id,
            seat=event.seat,
            turn=event.turn,
            actions=mapping.plan(event.plan),
            commit_time=wire.timestamp(event.at),
            at_deadline=event.at_deadline,
            by_cpu=event.by_cpu,
        )
    if isinstance(event, ev.TurnResolved):
        return b.BattleTurnResolved(
            battle_id=battle_id,
            turn=event.turn,
            first=event.first,
            state_json=_state(event.battle),
            log=[mapping.entry(e) for e in event.log],
            selection_deadline=wire.timestamp(event.selection_deadline),
        )
    if isinstance(event, ev.SeatAway):
        return b.BattleSeatAway(
            battle_id=battle_id, seat=event.seat, takeover_time=wire.timestamp(event.until)
        )
    if isinstance(event, ev.SeatBack):
        return b.BattleSeatBack(battle_id=battle_id, seat=event.seat)
    if isinstance(event, ev.SeatTakenOver):
        return b.BattleSeatTakenOver(
            battle_id=battle_id, seat=event.seat, bot_level=mapping.LEVELS[event.level]
        )
    return b.BattleFinished(
        battle_id=battle_id,
        outcome=pb.BattleOutcome(winner_seat=event.winner, reason=event.reason.value),
        finish_time=wire.timestamp(event.at),
    )


def new_event(battle_id: str, version: int, event: ev.Event, players: list[str]) -> NewEvent:
    """The stored form of the event at ``version``; ``BattleFinished`` names the players
    (a consumer needs nothing but the payload)."""
    message = payload(battle_id, event)
    if isinstance(message, b.BattleFinished):
        message.player_ids.extend(players)
    encoded = events.encode(message, SCHEMA_VERSION)
    return NewEvent(
        encoded.type,
        encoded.data,
        {"battle_id": battle_id},
        event_id(battle_id, version),
        SCHEMA_VERSION,
    )


def _created(m: b.BattleCreated) -> ev.Created:
    seats = tuple(
        ev.SeatRecord(
            s.player_id,
            s.name,
            mapping.LEVELS_BACK[s.bot_level],
            (s.characters[0], s.characters[1], s.characters[2]),
            tuple(s.deck),
        )
        for s in m.seats
    )
    return ev.Created(
        (seats[0], seats[1]),
        m.content_version,
        wire.moment(m.formation_deadline),
        wire.moment(m.create_time),
    )


def _resolved(m: b.BattleTurnResolved) -> ev.TurnResolved:
    deadline = wire.moment(m.selection_deadline) if m.HasField("selection_deadline") else None
    return ev.TurnResolved(
        m.turn,
        m.first,
        _state_back(m.state_json),
        tuple(mapping.entry_back(e) for e in m.log),
        deadline,
    )


def _plan_set(m: b.BattlePlanSet) -> ev.PlanSet:
    return ev.PlanSet(m.seat, m.turn, mapping.plan_back(m.actions), wire.moment(m.set_time))


def _plan_committed(m: b.BattlePlanCommitted) -> ev.PlanCommitted:
    plan, at = mapping.plan_back(m.actions), wire.moment(m.commit_time)
    return ev.PlanCommitted(m.seat, m.turn, plan, at, m.at_deadline, m.by_cpu)


_DECODERS: dict[str, tuple[type[Message], Callable[[Message], ev.Event]]] = {}


def _register() -> None:
    def add(kind: type[Message], read: Callable[[Message], ev.Event]) -> None:
        _DECODERS[events.type_name(kind())] = (kind, read)

    add(b.BattleCreated, _created)  # type: ignore[arg-type]
    add(
        b.BattleFormationSet,
        lambda m: ev.FormationSet(m.seat, mapping.squares_back(m.squares), m.by_default),  # type: ignore[attr-defined]
    )
    add(
        b.BattleStarted,
        lambda m: ev.Started(
            _state_back(m.state_json),  # type: ignore[attr-defined]
            wire.moment(m.selection_deadline),  # type: ignore[attr-defined]
        ),
    )
    add(b.BattlePlanSet, _plan_set)  # type: ignore[arg-type]
    add(b.BattlePlanCommitted, _plan_committed)  # type: ignore[arg-type]
    add(b.BattleTurnResolved, _resolved)  # type: ignore[arg-type]
    add(
        b.BattleSeatAway,
        lambda m: ev.SeatAway(m.seat, wire.moment(m.takeover_time)),  # type: ignore[attr-defined]
    )
    add(b.BattleSeatBack, lambda m: ev.SeatBack(m.seat))  # type: ignore[attr-defined]
    add(
        b.BattleSeatTakenOver,
        lambda m: ev.SeatTakenOver(m.seat, mapping.LEVELS_BACK[m.bot_level]),  # type: ignore[attr-defined]
    )
    add(
        b.BattleFinished,
        lambda m: ev.Finished(
            m.outcome.winner_seat,  # type: ignore[attr-defined]
            ev.FinishReason(m.outcome.reason),  # type: ignore[attr-defined]
            wire.moment(m.finish_time),  # type: ignore[attr-defined]
        ),
    )


_register()


def decode(type_name: str, schema_version: int, data: bytes) -> ev.Event:
    kind, read = _DECODERS[type_name]
    message = kind()
    message.ParseFromString(READER.upcast(type_name, schema_version, data, SCHEMA_VERSION))
    return read(message)


def decode_record(record: Recorded) -> ev.Event:
    return decode(record.type, record.schema_version, record.data)
