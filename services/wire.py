"""The ``triad.v1`` wire vocabulary every service edge speaks the same way: points and
spans of time, card sides, elements, holo sides, ladders, visibilities, trade rules, the
Realm attributes (creature types, alignments) and the ``Rules`` message of a rule set.
One definition, so a card or a timestamp means the same bytes whichever service wrote
it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import common_pb2 as pb

from services.platform.enums import backwards, by_name
from services.platform.errors import InvalidArgument
from services.rules import Element, Side, Sides, Visibility
from services.rules.realm import Alignment, CreatureType, Law, Moral
from services.rules.trade import TradeRule

ELEMENTS = {None: pb.ELEMENT_UNSPECIFIED} | by_name(Element, pb.Element)
ELEMENTS_BACK = backwards(ELEMENTS)
SIDES = {None: pb.SIDE_UNSPECIFIED} | by_name(Side, pb.Side)
SIDES_BACK = backwards(SIDES)
LADDERS: dict[str, pb.Ladder.ValueType] = {
    "": pb.LADDER_UNSPECIFIED,
    "ranked": pb.LADDER_RANKED,
    "draft": pb.LADDER_DRAFT,
}
LADDERS_BACK = backwards(LADDERS)
VISIBILITIES = by_name(Visibility, pb.Visibility)
VISIBILITIES_BACK = backwards(VISIBILITIES)
TRADE_RULES = by_name(TradeRule, pb.TradeRule)
TRADE_RULES_BACK: dict[int, TradeRule] = backwards(TRADE_RULES)
"""Unset (a request or an event before trade rules) is read as NONE by its caller."""


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


MAX_DURATION_SECONDS = 315_576_000_000
"""The protobuf ``Duration``'s documented range: about 10,000 years either way."""


def span(message: Duration, field: str) -> timedelta:
    """A ``Duration`` as a timedelta (to the microsecond); InvalidArgument naming
    ``field`` when it is no valid Duration (seconds beyond its range, nanos beyond a
    second or of the other sign), which ``ToTimedelta`` would take or overflow on."""
    seconds, nanos = message.seconds, message.nanos
    if (
        abs(seconds) > MAX_DURATION_SECONDS
        or abs(nanos) >= NANOS_PER_SECOND
        or (seconds > 0 and nanos < 0)
        or (seconds < 0 and nanos > 0)
    ):
        raise InvalidArgument(f"{field} is not a valid duration ({seconds} s, {nanos} ns)")
    return timedelta(seconds=seconds, microseconds=nanos // 1_000)


def sides(values: Sides) -> pb.Sides:
    return pb.Sides(top=values[0], right=values[1], bottom=values[2], left=values[3])


def sides_back(message: pb.Sides) -> Sides:
    return (message.top, message.right, message.bottom, message.left)


# ---- Realm Triad (issue 20): creature types and alignments ----------------------------

CREATURE_TYPES = {None: pb.CREATURE_TYPE_UNSPECIFIED} | by_name(CreatureType, pb.CreatureType)
CREATURE_TYPES_BACK = backwards(CREATURE_TYPES)
LAWS = by_name(Law, pb.AlignmentLaw)
LAWS_BACK = backwards(LAWS)
MORALS = by_name(Moral, pb.AlignmentMoral)
MORALS_BACK = backwards(MORALS)


def alignment(value: Alignment | None) -> pb.Alignment | None:
    return None if value is None else pb.Alignment(law=LAWS[value.law], moral=MORALS[value.moral])


def alignment_back(message: pb.Alignment) -> Alignment | None:
    """None when the message carries no alignment (written before catalog version 2)."""
    law, moral = LAWS_BACK.get(message.law), MORALS_BACK.get(message.moral)
    return None if law is None or moral is None else Alignment(law, moral)


# ---- rule sets: the ``Rules`` message a match, a table or a queue carries ----------------


class PlacementRules(Protocol):
    """The placement rules a ``Rules`` message carries as flags (RULES.md 3, 4)."""

    @property
    def same(self) -> bool: ...
    @property
    def plus(self) -> bool: ...
    @property
    def combo(self) -> bool: ...
    @property
    def elemental(self) -> bool: ...
    @property
    def same_wall(self) -> bool: ...


class RealmFlags(Protocol):
    """The Realm modules a ``Rules`` message of the Realm family names (RULES.md 17)."""

    @property
    def type_advantage(self) -> bool: ...
    @property
    def clash(self) -> bool: ...
    @property
    def lair(self) -> bool: ...
    @property
    def resistance(self) -> bool: ...
    @property
    def cursed(self) -> bool: ...


class TableRules(Protocol):
    """What a ``Rules`` message says beside its placement rules and its board."""

    @property
    def visibility(self) -> Visibility: ...
    @property
    def trade(self) -> TradeRule: ...
    @property
    def sudden_death(self) -> bool: ...
    @property
    def house_hands(self) -> bool: ...
    @property
    def realm(self) -> RealmFlags | None: ...


def _realm_fields(value: RealmFlags | None) -> dict[str, Any]:
    """The Realm fields of a ``Rules`` message: the family and its modules; none for
    the standard family."""
    if value is None:
        return {}
    modules = pb.RealmModules(
        type_advantage=value.type_advantage,
        alignment_clash=value.clash,
        lair=value.lair,
        resistance=value.resistance,
        cursed=value.cursed,
    )
    return {"family": pb.RULES_FAMILY_REALM, "realm": modules}


def rules_message(table: TableRules, placement: PlacementRules, board: pb.BoardShape) -> pb.Rules:
    """The ``Rules`` message of ``table``'s choices, its ``placement`` rules and its
    ``board`` (each service knows its board in its own terms)."""
    return pb.Rules(
        visibility=VISIBILITIES[table.visibility],
        same=placement.same,
        plus=placement.plus,
        combo=placement.combo,
        elemental=placement.elemental,
        same_wall=placement.same_wall,
        sudden_death=table.sudden_death,
        trade_rule=TRADE_RULES[table.trade],
        board=board,
        house_hands=table.house_hands,
        **_realm_fields(table.realm),
    )
