"""The collection's protobuf edge: domain values <-> ``triad.v1`` messages, and the
request fields every RPC reads the same way (paging, filters, lock holders).

Event payloads are ``codec.py``'s; per-player views (trades, drafts, decks) are
``presenter.py``'s. Both build on the value mappers here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from triad.v1 import common_pb2 as pb

from services.collection.domain.catalog import Character, shipped_catalog
from services.collection.domain.decks import HouseCard
from services.collection.domain.draft import DraftCard
from services.collection.domain.events import (
    BoosterDraw,
    CopySource,
    CurrencyReason,
    Holder,
    HolderKind,
    OwnedCopy,
    PlayerRef,
)
from services.platform.edge import require, require_enum
from services.platform.enums import backwards, by_name
from services.platform.errors import InvalidArgument
from services.platform.pages import forged, key_token, key_token_back, page_size
from services.rules import Element, Side, Sides
from services.rules.cards import with_holo
from services.wire import (
    CREATURE_TYPES,
    CREATURE_TYPES_BACK,
    ELEMENTS,
    ELEMENTS_BACK,
    LADDERS,
    SIDES,
    SIDES_BACK,
    alignment,
    alignment_back,
    moment,
    sides,
    sides_back,
    timestamp,
)

T = TypeVar("T")
K = TypeVar("K")

SOURCES = by_name(CopySource, pb.CopySource)
SOURCES_BACK = backwards(SOURCES)
REASONS = by_name(CurrencyReason, pb.CurrencyReason)
REASONS_BACK = backwards(REASONS)
HOLDER_FIELDS = {
    HolderKind.MATCH: "match_id",
    HolderKind.TRADE: "trade_id",
    HolderKind.LISTING: "listing_id",
}


# --- values -------------------------------------------------------------------------------


def character(value: Character) -> pb.Character:
    return pb.Character(
        character_id=value.id,
        name=value.name,
        stars=value.stars,
        element=ELEMENTS[value.element],
        sides=sides(value.sides),
        creature_type=CREATURE_TYPES[value.kind],
        alignment=alignment(value.alignment),
        legendary=value.legendary,
    )


def character_back(message: pb.Character) -> Character:
    """A character from a message; one written before catalog version 2 (no creature
    type) takes the shipped catalog's Realm attributes for its id."""
    kind = CREATURE_TYPES_BACK.get(message.creature_type)
    aligned = alignment_back(message.alignment)
    if kind is None or aligned is None:
        shipped = shipped_catalog().get(message.character_id)
        if shipped is None:
            raise ValueError(f"character {message.character_id!r} has no creature type")
        kind, aligned = shipped.kind, shipped.alignment
    return Character(
        message.character_id,
        message.name,
        message.stars,
        ELEMENTS_BACK[message.element],
        sides_back(message.sides),
        kind,
        aligned,
    )


def _printed(
    value: Character, holo: bool, holo_side: Side | None, printed: Sides
) -> dict[str, Any]:
    """The fields every card-like message shares: character, holo and printed sides."""
    return {
        "character": character(value),
        "holo": holo,
        "holo_side": SIDES[holo_side],
        "printed_sides": sides(printed),
    }


def owned_copy(value: OwnedCopy) -> pb.OwnedCopy:
    return pb.OwnedCopy(
        copy_id=value.copy_id,
        owner_player_id=value.owner_id,
        source=SOURCES[value.source],
        acquire_time=timestamp(value.acquired_at),
        **_printed(value.character, value.holo, value.holo_side, value.sides),
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
        **_printed(value.character, value.holo, value.holo_side, value.sides),
    )


def draft_card(value: DraftCard) -> pb.Card:
    return pb.Card(
        card_id=value.id,
        origin=pb.CARD_ORIGIN_DRAFTED,
        **_printed(value.character, value.holo, value.holo_side, value.sides),
    )


def draft_card_back(message: pb.Card) -> DraftCard:
    return DraftCard(
        message.card_id,
        character_back(message.character),
        SIDES_BACK[message.holo_side],
        message.holo,
    )


def bot_card(card_id: str, value: Character) -> pb.Card:
    """A catalog character as a bot's card (no copy, no holo)."""
    return pb.Card(
        card_id=card_id,
        origin=pb.CARD_ORIGIN_BOT,
        character=character(value),
        printed_sides=sides(value.sides),
    )


def house_card(card_id: str, dealt: HouseCard) -> pb.Card:
    """A house hand's card (RULES.md 11): a catalog character, maybe Holographic, owned
    by nobody."""
    value, holo_side = dealt.character, dealt.holo_side
    return pb.Card(
        card_id=card_id,
        origin=pb.CARD_ORIGIN_HOUSE,
        **_printed(value, dealt.holo, holo_side, with_holo(value.sides, holo_side)),
    )


def holder(value: Holder) -> pb.LockHolder:
    return pb.LockHolder(**{HOLDER_FIELDS[value.kind]: value.id})


def holder_back(message: pb.LockHolder) -> Holder | None:
    which = message.WhichOneof("holder")
    for kind, field in HOLDER_FIELDS.items():
        if which == field and getattr(message, field):
            return Holder(kind, getattr(message, field))
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


def optional_moment(stamp: Any) -> datetime | None:
    """A timestamp field that may be unset (an unset one is empty)."""
    return moment(stamp) if stamp.ByteSize() else None


# --- request fields -----------------------------------------------------------------------


def page(size: int, token: str, cap: int, default: int = 50) -> tuple[int, int]:
    """(limit, offset) of an AIP-158 page; the token is the offset of the page."""
    limit = page_size(size, default, cap, refusal="page_size cannot be negative")
    # isascii: str.isdigit also holds for "²", which int() refuses
    if token and not (token.isascii() and token.isdigit() and len(token) < 10):
        raise InvalidArgument("page_token is not one this service gave out")
    return limit, int(token or 0)


COUNTER_MAX = 2**31 - 1
"""The largest draw counter (a PostgreSQL ``integer``)."""


def draw_token(value: BoosterDraw) -> str:
    """A booster draw page's token: its last draw's (opened_at, counter, draw_id)."""
    return key_token(value.opened_at, f"{value.counter}|{value.draw_id}")


def draw_token_back(token: str) -> tuple[datetime, int, str] | None:
    """The position ``draw_token`` wrote (None: the first page); INVALID_ARGUMENT if it
    is not one of ours: the counter in canonical decimal within an integer, an id."""
    found = key_token_back(token)
    if found is None:
        return None
    at, key = found
    counter, _, draw_id = key.partition("|")
    canonical = counter.isascii() and counter.isdigit() and str(int(counter)) == counter
    if not canonical or int(counter) > COUNTER_MAX or not draw_id:
        raise forged()
    return at, int(counter), draw_id


def next_token(offset: int, limit: int, got: int) -> str:
    return str(offset + limit) if got > limit else ""


class PageRequest(Protocol):
    @property
    def page_size(self) -> int: ...

    @property
    def page_token(self) -> str: ...


async def keyed(
    request: PageRequest,
    cap: int,
    back: Callable[[str], K | None],
    fetch: Callable[[int, K | None], Awaitable[Sequence[T]]],
    token: Callable[[T], str],
) -> tuple[Sequence[T], str]:
    """The page ``request`` asks for, of ``fetch(limit, after)`` from the position its
    keyset token holds (``back``: None for the first page), and the next page's token
    (``token`` of the page's last item): one more than the page is fetched to tell if
    there is a next. An item added or removed between two pages moves none past it."""
    limit, _ = page(request.page_size, "", cap)
    found = await fetch(limit + 1, back(request.page_token))
    return found[:limit], token(found[limit - 1]) if len(found) > limit else ""


def stars(values: Iterable[int]) -> frozenset[int]:
    values = list(values)
    bad = [s for s in values if not 1 <= s <= 5]
    if bad:
        raise InvalidArgument(f"stars run from 1 to 5, got {bad}")
    return frozenset(values)


def elements(values: Iterable[int]) -> frozenset[Element | None]:
    values = list(values)
    for value in values:  # ELEMENT_UNSPECIFIED selects the characters without one
        require_enum(value, pb.Element.DESCRIPTOR, "filter.elements", unspecified_ok=True)
    return frozenset(ELEMENTS_BACK[v] for v in values)  # type: ignore[index]


def holder_of(message: pb.LockHolder, field: str = "holder") -> Holder:
    found = holder_back(message)
    if found is None:
        raise InvalidArgument(f"{field} must name a match or a trade")
    require(found.id, f"{field} id")
    return found


def reason_of(value: int) -> CurrencyReason:
    return REASONS_BACK[require_enum(value, pb.CurrencyReason.DESCRIPTOR, "reason")]  # type: ignore[index]
