"""The ``triad.v1`` wire vocabulary every service edge speaks the same way: points and
spans of time, card sides, elements, holo sides and ladders. One definition, so a
card or a timestamp means the same bytes whichever service wrote it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import common_pb2 as pb

from services.match.rules import Element, Side, Sides

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


def timestamp(moment: datetime | None) -> Timestamp | None:
    if moment is None:
        return None
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def moment(stamp: Timestamp) -> datetime:
    return stamp.ToDatetime(tzinfo=UTC)


def duration(seconds: float) -> Duration:
    span = Duration()
    span.FromTimedelta(timedelta(seconds=seconds))
    return span


def sides(values: Sides) -> pb.Sides:
    return pb.Sides(top=values[0], right=values[1], bottom=values[2], left=values[3])


def sides_back(message: pb.Sides) -> Sides:
    return (message.top, message.right, message.bottom, message.left)
