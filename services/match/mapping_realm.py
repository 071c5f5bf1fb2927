"""The Realm part of the match's protobuf edge (RULES.md 17): the rules family and its
modules, a placement's Realm outcome and the Realm state, in events and in views."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.match.domain.events import MatchCard, RealmMove
from services.platform.enums import backwards, by_name
from services.rules import Cause, Rules
from services.rules.realm import (
    HEX_OF_TYPE,
    Comparison,
    Hex,
    Modifier,
    ModifierKind,
    Protection,
    RealmRules,
    RealmState,
    Saved,
)

CAUSES = by_name(Cause, pb.CaptureCause)
"""Capture causes (shared with :mod:`services.match.mapping`)."""
CAUSES_BACK = backwards(CAUSES)
HEXES = {None: pb.HEX_UNSPECIFIED} | by_name(Hex, pb.Hex)
MODIFIERS = by_name(ModifierKind, pb.RealmModifierKind)
MODIFIERS_BACK = backwards(MODIFIERS)
PROTECTIONS = by_name(Protection, pb.Protection)
PROTECTIONS_BACK = backwards(PROTECTIONS)


def rules_back(message: pb.Rules, rules: Rules) -> RealmRules | None:
    """The Realm modules of a ``Rules`` message (Same, Plus and Combo are ``rules``'s);
    None for the standard family."""
    if message.family != pb.RULES_FAMILY_REALM:
        return None
    m = message.realm
    return RealmRules(
        same=rules.same,
        plus=rules.plus,
        combo=rules.combo,
        type_advantage=m.type_advantage,
        clash=m.alignment_clash,
        lair=m.lair,
        resistance=m.resistance,
        cursed=m.cursed,
    )


def move(value: RealmMove) -> pb.RealmMove:
    return pb.RealmMove(
        lair=value.lair,
        saved=[
            pb.SavedCapture(cell=s.cell, cause=CAUSES[s.cause], by=PROTECTIONS[s.by])
            for s in value.saved
        ],
        comparisons=[
            pb.RealmComparison(
                attacker_cell=c.attacker,
                defender_cell=c.defender,
                attack=c.attack,
                defence=c.defence,
                attack_modifiers=modifiers(c.attack_modifiers),
                defence_modifiers=modifiers(c.defence_modifiers),
            )
            for c in value.comparisons
        ],
        replaced_card_id=value.replaced,
    )


def modifiers(values: tuple[Modifier, ...]) -> list[pb.RealmModifier]:
    return [pb.RealmModifier(kind=MODIFIERS[m.kind], amount=m.amount) for m in values]


def modifiers_back(values: Iterable[pb.RealmModifier]) -> tuple[Modifier, ...]:
    """The modifiers of one side of a comparison; none in an event written before they
    were recorded (its comparisons then show only the modified values)."""
    return tuple(Modifier(MODIFIERS_BACK[m.kind], m.amount) for m in values)


def state(
    value: RealmState, cards: tuple[MatchCard | None, ...] = (), cursed: bool = False
) -> pb.RealmView:
    """The Realm state as a view carries it; each cell's hex from its card (``cards``,
    when given) under Cursed."""
    cells = []
    for cell, (spent, rot) in enumerate(zip(value.hex_spent, value.rot, strict=True)):
        card = cards[cell] if cards else None
        kind = None if card is None or not cursed else card.kind
        hex_ = None if kind is None else HEX_OF_TYPE[kind]
        cells.append(pb.RealmCellState(hex=HEXES[hex_], hex_spent=spent, pending_rot=rot))
    return pb.RealmView(
        cells=cells,
        seats=[
            pb.RealmSeatState(
                seat=seat,
                lair_spent=value.lair_spent[i],
                resistance_spent=value.resistance_spent[i],
            )
            for i, seat in enumerate((pb.SEAT_A, pb.SEAT_B))
        ],
    )


def event_fields(value: RealmMove | None) -> dict[str, Any]:
    """The Realm fields of a ``CardPlaced`` event payload."""
    if value is None:
        return {}
    return {"realm_move": move(value), "realm_state": state(value.state)}


def event_back(message: ev.CardPlaced) -> RealmMove | None:
    if not message.HasField("realm_state"):
        return None
    m, s = message.realm_move, message.realm_state
    seats = {x.seat: x for x in s.seats}
    a, b = seats[pb.SEAT_A], seats[pb.SEAT_B]
    return RealmMove(
        lair=m.lair,
        saved=tuple(Saved(x.cell, CAUSES_BACK[x.cause], PROTECTIONS_BACK[x.by]) for x in m.saved),
        comparisons=tuple(
            Comparison(
                c.attacker_cell,
                c.defender_cell,
                c.attack,
                c.defence,
                modifiers_back(c.attack_modifiers),
                modifiers_back(c.defence_modifiers),
            )
            for c in m.comparisons
        ),
        state=RealmState(
            tuple(c.hex_spent for c in s.cells),
            tuple(c.pending_rot for c in s.cells),
            (a.resistance_spent, b.resistance_spent),
            (a.lair_spent, b.lair_spent),
        ),
        replaced=m.replaced_card_id,
    )
