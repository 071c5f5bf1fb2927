"""A draft session (RULES.md 8) as an aggregate: a fold of its stream and its decisions.

Each command returns a :class:`Decision`: its events and the draft they lead to,
folded once, here; saving writes that draft and never folds the same events again
(``fold(decision.events, before) == decision.state`` is what the tests hold it to).

Two participants each get three temporary boosters (``draft.draw_pool``, drawn by the
handler and recorded whole in ``DraftCreated``). A participant reveals cards and picks
five that make a legal deck within the pick window (3 minutes); a pick that would leave
no legal deck is refused, so the automatic completion at the deadline always exists.
A participant still picking who neither reveals nor picks for the inactivity window
(120 s) forfeits. Drafted cards exist only in this stream: they never become copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from random import Random
from uuid import NAMESPACE_URL, uuid5

from services.collection.domain.draft import DraftCard, can_complete, complete_at_deadline
from services.collection.domain.events import (
    DraftCardPicked,
    DraftCardRevealed,
    DraftCompleted,
    DraftCreated,
    DraftedDeck,
    DraftEvent,
    DraftForfeited,
    DraftParticipant,
    PlayerRef,
)
from services.platform.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from services.rules.deck import DECK_SIZE

PICK_SECONDS = 180.0
INACTIVITY_SECONDS = 120.0
SEAT_TAGS = ("a", "b")


class DraftNotFound(NotFound):
    pass


class DraftOver(FailedPrecondition):
    pass


class PickRefused(FailedPrecondition):
    pass


class Status(StrEnum):
    PICKING = "picking"
    COMPLETED = "completed"
    FORFEITED = "forfeited"


@dataclass(frozen=True, slots=True)
class Seat:
    player: PlayerRef
    pool: tuple[DraftCard, ...]
    revealed: frozenset[str]
    picks: tuple[str, ...]
    inactive_at: datetime
    auto_completed: bool = False

    @property
    def done(self) -> bool:
        return len(self.picks) == DECK_SIZE

    def card(self, card_id: str) -> DraftCard | None:
        return next((c for c in self.pool if c.id == card_id), None)

    def picked_cards(self) -> tuple[DraftCard, ...]:
        by_id = {c.id: c for c in self.pool}
        return tuple(by_id[i] for i in self.picks)


@dataclass(frozen=True, slots=True)
class Draft:
    draft_id: str
    ladder: str
    season: int
    pairing_id: str
    seats: tuple[Seat, Seat]
    pick_deadline: datetime
    version: int
    status: Status = Status.PICKING
    match_id: str = ""
    forfeiting: tuple[str, ...] = ()
    winner: str = ""

    def seat_index(self, player_id: str) -> int:
        for index, seat in enumerate(self.seats):
            if seat.player.player_id == player_id:
                return index
        raise DraftNotFound(f"you are not in draft {self.draft_id}")

    def with_seat(self, index: int, seat: Seat) -> tuple[Seat, Seat]:
        return (seat, self.seats[1]) if index == 0 else (self.seats[0], seat)


def match_id_for(draft_id: str) -> str:
    """The match that follows a draft: creating it twice is harmless."""
    return str(uuid5(NAMESPACE_URL, f"triad:draft-match:{draft_id}"))


def tag_pool(seat: int, pool: Sequence[DraftCard]) -> tuple[DraftCard, ...]:
    """Card ids unique within the draft and the match that follows (``a-b0-3``)."""
    return tuple(replace(c, id=f"{SEAT_TAGS[seat]}-{c.id}") for c in pool)


def evolve(state: Draft | None, event: DraftEvent) -> Draft:
    if isinstance(event, DraftCreated):
        a, b = (
            Seat(p.player, p.pool, frozenset(), (), event.inactivity_deadline)
            for p in event.participants
        )
        return Draft(
            event.draft_id,
            event.ladder,
            event.season,
            event.pairing_id,
            (a, b),
            event.pick_deadline,
            version=1,
        )
    if state is None:
        raise ValueError(f"{type(event).__name__} before DraftCreated")
    state = replace(state, version=state.version + 1)
    if isinstance(event, DraftCardRevealed):
        index = state.seat_index(event.player_id)
        seat = state.seats[index]
        seat = replace(
            seat, revealed=seat.revealed | {event.card_id}, inactive_at=event.inactivity_deadline
        )
        return replace(state, seats=state.with_seat(index, seat))
    if isinstance(event, DraftCardPicked):
        index = state.seat_index(event.player_id)
        seat = state.seats[index]
        seat = replace(
            seat,
            picks=(*seat.picks, event.card_id),
            revealed=seat.revealed | {event.card_id},
            inactive_at=event.inactivity_deadline or seat.inactive_at,
            auto_completed=seat.auto_completed or event.auto_picked,
        )
        return replace(state, seats=state.with_seat(index, seat))
    if isinstance(event, DraftCompleted):
        return replace(state, status=Status.COMPLETED, match_id=event.match_id)
    return replace(state, status=Status.FORFEITED, forfeiting=event.forfeiting, winner=event.winner)


def fold(events: Sequence[DraftEvent], state: Draft | None = None) -> Draft | None:
    for event in events:
        state = evolve(state, event)
    return state


@dataclass(frozen=True, slots=True)
class Decision:
    """What a command decided: its events, and the draft after them (the draft it was
    decided on when there are none)."""

    events: list[DraftEvent]
    state: Draft

    @classmethod
    def folding(cls, draft: Draft, events: list[DraftEvent]) -> Decision:
        """``events`` decided on ``draft``, folded onto it."""
        after = fold(events, draft)
        assert after is not None
        return cls(events, after)

    def then(self, events: list[DraftEvent]) -> Decision:
        """This decision followed by ``events`` decided on its draft."""
        after = Decision.folding(self.state, events)
        return Decision([*self.events, *after.events], after.state)


def create(
    existing: Draft | None,
    draft_id: str,
    ladder: str,
    season: int,
    pairing_id: str,
    players: tuple[PlayerRef, PlayerRef],
    pools: tuple[Sequence[DraftCard], Sequence[DraftCard]],
    now: datetime,
    pick_seconds: float = PICK_SECONDS,
    inactivity_seconds: float = INACTIVITY_SECONDS,
) -> Decision:
    """Start the draft; nothing when it exists with the same participants (a retry)."""
    ids = {p.player_id for p in players}
    if len(ids) != 2 or "" in ids:
        raise InvalidArgument("a draft has two different participants")
    if existing is not None:
        if {s.player.player_id for s in existing.seats} != ids:
            raise AlreadyExists(f"draft {draft_id} exists with other participants")
        return Decision([], existing)
    participants = (
        DraftParticipant(players[0], tag_pool(0, pools[0])),
        DraftParticipant(players[1], tag_pool(1, pools[1])),
    )
    created = DraftCreated(
        draft_id,
        ladder,
        season,
        pairing_id,
        participants,
        now + timedelta(seconds=pick_seconds),
        now + timedelta(seconds=inactivity_seconds),
        now,
    )
    return Decision([created], evolve(None, created))


def _open_for(draft: Draft | None, draft_id: str, player_id: str, now: datetime) -> int:
    if draft is None:
        raise DraftNotFound(f"you are not in draft {draft_id}")
    index = draft.seat_index(player_id)
    if draft.status is not Status.PICKING:
        raise DraftOver(f"draft {draft_id} is over ({draft.status.value})")
    seat = draft.seats[index]
    if not seat.done and now >= seat.inactive_at:
        # As ``expire`` decides at this moment, whenever its timer fires (RULES.md 8).
        raise DraftOver("you neither revealed nor picked a card in time: you forfeit")
    if now >= draft.pick_deadline:
        raise DraftOver("the 3-minute pick window is over; the server completes your deck")
    return index


def reveal(
    draft: Draft | None,
    draft_id: str,
    player_id: str,
    booster: int,
    slots: Sequence[int],
    now: datetime,
    inactivity_seconds: float = INACTIVITY_SECONDS,
) -> Decision:
    if not 0 <= booster < 3:
        raise InvalidArgument(f"booster {booster} does not exist; boosters are 0, 1 and 2")
    bad = [s for s in slots if not 0 <= s < 5]
    if bad:
        raise InvalidArgument(f"card positions run from 0 to 4, got {bad}")
    index = _open_for(draft, draft_id, player_id, now)
    assert draft is not None
    seat = draft.seats[index]
    wanted = dict.fromkeys(slots or range(5))
    inactive = now + timedelta(seconds=inactivity_seconds)
    revealed: list[DraftEvent] = [
        DraftCardRevealed(draft_id, player_id, booster, slot, card.id, inactive)
        for slot in wanted
        if (card := seat.pool[booster * 5 + slot]).id not in seat.revealed
    ]
    return Decision.folding(draft, revealed)


def pick(
    draft: Draft | None,
    draft_id: str,
    player_id: str,
    card_id: str,
    now: datetime,
    inactivity_seconds: float = INACTIVITY_SECONDS,
) -> Decision:
    index = _open_for(draft, draft_id, player_id, now)
    assert draft is not None
    seat = draft.seats[index]
    card = seat.card(card_id)
    if card is None:
        raise InvalidArgument(f"{card_id} is not one of your draft cards")
    if card_id in seat.picks:
        raise PickRefused(f"you picked {card.character.name} already; each card is picked once")
    if seat.done:
        raise PickRefused(f"you picked {DECK_SIZE} cards already: your deck is complete")
    if card_id not in seat.revealed:
        raise PickRefused(f"reveal {card_id} before picking it")
    if not can_complete((*seat.picked_cards(), card), seat.pool):
        raise PickRefused(
            f"picking {card.character.name} would leave no legal deck among your cards "
            "(five different characters, at most one 5★ and at most two 4★ or better)"
        )
    picked = DraftCardPicked(
        draft_id,
        player_id,
        card_id,
        len(seat.picks) + 1,
        False,
        now + timedelta(seconds=inactivity_seconds),
    )
    return _completion(Decision([picked], evolve(draft, picked)))


def _completion(decision: Decision) -> Decision:
    """``decision``, and the draft's completion should it leave every deck done."""
    draft = decision.state
    if not all(s.done for s in draft.seats):
        return decision
    completed = DraftCompleted(
        draft.draft_id,
        draft.ladder,
        draft.season,
        (_deck(draft.seats[0]), _deck(draft.seats[1])),
        match_id_for(draft.draft_id),
    )
    return decision.then([completed])


def _deck(seat: Seat) -> DraftedDeck:
    return DraftedDeck(seat.player, seat.picked_cards(), seat.auto_completed)


def due(draft: Draft) -> datetime | None:
    """When this draft next needs the server: an inactivity forfeit or the pick deadline."""
    if draft.status is not Status.PICKING:
        return None
    idle = [s.inactive_at for s in draft.seats if not s.done]
    return min([draft.pick_deadline, *idle])


def expire(draft: Draft, now: datetime, rng: Random) -> Decision:
    """What the deadlines decide at ``now``: inactivity forfeits first (120 s < 3 min),
    else at the pick deadline a random legal completion of each unfinished deck."""
    if draft.status is not Status.PICKING:
        return Decision([], draft)
    idle = tuple(s.player.player_id for s in draft.seats if not s.done and s.inactive_at <= now)
    if idle:
        others = [s.player.player_id for s in draft.seats if s.player.player_id not in idle]
        forfeited = DraftForfeited(
            draft.draft_id,
            draft.ladder,
            draft.season,
            idle,
            others[0] if others else "",
            (draft.seats[0].player, draft.seats[1].player),
        )
        return Decision([forfeited], evolve(draft, forfeited))
    if now < draft.pick_deadline:
        return Decision([], draft)
    events: list[DraftEvent] = []
    state = draft
    for seat in draft.seats:
        extra = complete_at_deadline(seat.picked_cards(), seat.pool, rng)
        for number, card in enumerate(extra, start=len(seat.picks) + 1):
            event = DraftCardPicked(
                draft.draft_id, seat.player.player_id, card.id, number, True, None
            )
            events.append(event)
            state = evolve(state, event)
    return _completion(Decision(events, state))
