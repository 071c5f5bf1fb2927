"""The ``triad.v1`` wire vocabulary every service edge speaks the same way: points and
spans of time, card sides, elements, holo sides, ladders and the Realm attributes
(creature types, alignments). One definition, so a card or a timestamp means the same
bytes whichever service wrote it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import common_pb2 as pb

from services.match.rules import Element, Side, Sides
from services.match.rules.realm import Alignment, CreatureType, Law, Moral

ELEMENTS: dict[Element | None, pb.Element.ValueType] = {None: pb.ELEMENT_UNSPECIFIED} | {
    e: pb.Element.Value(f"ELEMENT_{e.name}") for e in Element
}
ELEMENTS_BACK = {v: k for k, v in ELEMENTS.items()}
SIDES: dict[Side | None, pb.Side.ValueType] = {None: pb.SIDE_UNSPECIFIED} | {
    s: pb.Side.Value(f"SIDE_{s.name}") for s in Side
}
SIDES_BACK = {v: k for k, v in SIDES.items()}
LADDERS: dict[str, pb.Ladder.ValueType] = {
    "": pb.LADDER_UNSPECIFIED,
    "ranked": pb.LADDER_RANKED,
    "draft": pb.LADDER_DRAFT,
}
LADDERS_BACK = {v: k for k, v in LADDERS.items()}


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NANOS_PER_SECOND = 1_000_000_000


def timestamp(moment: datetime | None) -> Timestamp | None:
    """The same value ``Timestamp.FromDatetime`` gives (a naive moment is UTC), set
    directly: every view carries several, and FromDatetime's time tuple and timegm cost
    about four times as much."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    since = moment - EPOCH
    stamp = Timestamp()
    stamp.seconds = since.days * 86_400 + since.seconds
    stamp.nanos = since.microseconds * 1_000
    return stamp


def moment(stamp: Timestamp) -> datetime:
    return stamp.ToDatetime(tzinfo=UTC)


def duration(seconds: float) -> Duration:
    """The same value ``Duration.FromTimedelta`` gives (to the microsecond, nanos
    taking the sign of seconds), set directly."""
    span = timedelta(seconds=seconds)
    whole = span.days * 86_400 + span.seconds
    nanos = span.microseconds * 1_000
    if whole < 0 and nanos > 0:
        whole += 1
        nanos -= NANOS_PER_SECOND
    message = Duration()
    message.seconds = whole
    message.nanos = nanos
    return message


def sides(values: Sides) -> pb.Sides:
    return pb.Sides(top=values[0], right=values[1], bottom=values[2], left=values[3])


def sides_back(message: pb.Sides) -> Sides:
    return (message.top, message.right, message.bottom, message.left)


# ---- Realm Triad (issue 20): creature types and alignments ----------------------------

CREATURE_TYPES: dict[CreatureType | None, pb.CreatureType.ValueType] = {
    None: pb.CREATURE_TYPE_UNSPECIFIED
} | {t: pb.CreatureType.Value(f"CREATURE_TYPE_{t.name}") for t in CreatureType}
CREATURE_TYPES_BACK = {v: k for k, v in CREATURE_TYPES.items()}
LAWS = {law: pb.AlignmentLaw.Value(f"ALIGNMENT_LAW_{law.name}") for law in Law}
LAWS_BACK = {v: k for k, v in LAWS.items()}
MORALS = {moral: pb.AlignmentMoral.Value(f"ALIGNMENT_MORAL_{moral.name}") for moral in Moral}
MORALS_BACK = {v: k for k, v in MORALS.items()}


def alignment(value: Alignment | None) -> pb.Alignment | None:
    return None if value is None else pb.Alignment(law=LAWS[value.law], moral=MORALS[value.moral])


def alignment_back(message: pb.Alignment) -> Alignment | None:
    """None when the message carries no alignment (written before catalog version 2)."""
    law, moral = LAWS_BACK.get(message.law), MORALS_BACK.get(message.moral)
    return None if law is None or moral is None else Alignment(law, moral)
