"""A match's state and the fold that evolves it, one event at a time.

``evolve`` applies recorded outcomes and never re-runs rule code: a placement's
captures come from its event.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, TypeVar

from services.match.domain.errors import no_match
from services.match.domain.events import (
    CardPlaced,
    ClocksRestarted,
    MatchCard,
    MatchCreated,
    MatchEvent,
    MatchFinished,
    MatchRules,
    PlayerDisconnected,
    PlayerReconnected,
    RoundStarted,
    SeatPlayer,
    SeatStart,
    TurnWarningIssued,
)
from services.rules import Board, Card, Geometry, Position, Seat
from services.rules.realm import RealmState

SEATS = (Seat.A, Seat.B)


class RoundEnd(NamedTuple):
    """An earlier round of a Sudden Death match, as it ended (a full board, a tie)."""

    number: int
    first: Seat
    board: Board
    placements: tuple[CardPlaced, ...]
    scores: tuple[int, int]


class Match(NamedTuple):
    """The state of one match, rebuilt by folding its events.

    A NamedTuple rather than a frozen dataclass: folding replaces a few fields per
    event, and ``_replace`` is several times cheaper than ``dataclasses.replace``
    (replay speed is a published target).
    """

    match_id: str
    version: int
    setup: MatchRules
    seats: tuple[SeatStart, SeatStart]
    first: Seat
    """The seat that placed first in the round in progress."""
    position: Position
    cards: dict[str, MatchCard]
    turn: int
    """The turn in progress, from 1; once finished, the number of placements."""
    deadline: datetime | None
    warned: tuple[bool, bool]
    """A seat that missed its last turn and has not moved itself since."""
    sessions: tuple[str, str]
    disconnected: tuple[datetime | None, datetime | None]
    """Per seat: when it forfeits unless it reconnects; None while connected."""
    turn_seconds: float
    disconnect_seconds: float
    created_at: datetime
    origin_id: str = ""
    placements: tuple[CardPlaced, ...] = ()
    """The placements of the round in progress (of the last round, once finished)."""
    finished: MatchFinished | None = None
    round: int = 1
    """The round in progress, from 1 (only Sudden Death plays more, RULES.md 12)."""
    revealed: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    """Per seat: its card_ids the opponent sees in this round."""
    earlier: tuple[RoundEnd, ...] = ()
    """The rounds before this one, oldest first."""
    realm: RealmState | None = None
    """At a Realm table (RULES.md 17): Ward/Ember spent, pending Rot, Lair and
    Resistance spent, as the last placement left them; None at a standard table."""
    draw_pile: tuple[str, ...] = ()
    """Realm Sudden Death: the pile's card_ids in draw order (never shown)."""
    pile_drawn: int = 0
    """How many cards of the draw pile have been placed."""
    restarted_turn: int = 0
    """The last turn whose clocks restarted after the server could not act (once a turn)."""

    @property
    def last(self) -> CardPlaced | None:
        """The last placement on the board of this round (None at a round's start)."""
        return self.placements[-1] if self.placements else None

    @property
    def placement_count(self) -> int:
        """Placements made in the whole match, every round."""
        return sum(len(r.placements) for r in self.earlier) + len(self.placements)

    @property
    def in_progress(self) -> bool:
        return self.finished is None

    def seat_of(self, player_id: str) -> Seat:
        for seat in SEATS:
            if self.seats[seat].player.player_id == player_id:
                return seat
        # Same answer as for a match that does not exist: no data for strangers.
        raise no_match(self.match_id)

    def player(self, seat: Seat) -> SeatPlayer:
        return self.seats[seat].player

    def scores(self) -> tuple[int, int]:
        return (self.position.score(Seat.A), self.position.score(Seat.B))

    @property
    def both_human(self) -> bool:
        return not (self.seats[0].player.is_bot or self.seats[1].player.is_bot)


def evolve(state: Match | None, event: MatchEvent) -> Match:
    """Fold one event into the state."""
    if isinstance(event, MatchCreated):
        return _created(event)
    if state is None:
        raise ValueError(f"{type(event).__name__} before MatchCreated")
    version = state.version + 1
    if isinstance(event, CardPlaced):
        realm = event.realm
        if realm is not None and realm.replaced:
            return placed(state, event, _replaced(state, event))
        index = state.position.index_of(event.seat, event.card_id)
        if state.position.to_move != event.seat:
            raise ValueError(f"recorded placement by {event.seat.name} out of turn")
        return placed(
            state, event, state.position.apply(index, event.cell, [c.cell for c in event.captures])
        )
    if isinstance(event, TurnWarningIssued):
        warned = list(state.warned)
        warned[event.seat] = True
        return state._replace(version=version, warned=(warned[0], warned[1]))
    if isinstance(event, PlayerDisconnected):
        return state._replace(
            version=version, disconnected=_put(state.disconnected, event.seat, event.forfeit_at)
        )
    if isinstance(event, PlayerReconnected):
        return state._replace(
            version=version,
            sessions=_put(state.sessions, event.seat, event.session_id),
            disconnected=_put(state.disconnected, event.seat, None),
        )
    if isinstance(event, RoundStarted):
        return next_round(state, event)
    if isinstance(event, ClocksRestarted):
        return state._replace(
            version=version,
            deadline=event.deadline,
            disconnected=event.forfeit_at,
            restarted_turn=event.turn,
        )
    if isinstance(event, MatchFinished):  # turn: a forfeit or timeout ends mid-turn
        return state._replace(
            version=version,
            finished=event,
            deadline=None,
            disconnected=(None, None),
            turn=state.placement_count,
        )
    # TurnTimedOut and Forfeited are facts for readers; MatchFinished follows them.
    return state._replace(version=version)


def placed(state: Match, event: CardPlaced, position: Position) -> Match:
    """The state after ``event``, whose board and hands are ``position``: folding
    computes it from the recorded captures; a decision hands over the one it played."""
    warned = list(state.warned)
    warned[event.seat] = event.auto_played  # an auto-play keeps the warning on
    after = state._replace(
        version=state.version + 1,
        position=position,
        turn=state.turn + 1 if event.next_seat is not None else state.turn,
        deadline=event.next_deadline,
        warned=(warned[0], warned[1]),
        placements=(*state.placements, event),
    )
    realm = event.realm
    if realm is None:  # a standard table: nothing more (replay speed is a target)
        return after
    return after._replace(realm=realm.state, pile_drawn=state.pile_drawn + bool(realm.replaced))


def _replaced(state: Match, event: CardPlaced) -> Position:
    """The position after a recorded Realm Sudden Death replacement: the weakest card
    leaves its cell, the pile's card goes down there for ``event.seat`` with the
    recorded captures."""
    position = state.position
    card = state.cards[event.card_id].realm
    assert card is not None
    board = position.board.without(event.cell)
    after = board.apply(event.cell, card, event.seat, [c.cell for c in event.captures])
    return Position(after, position.hands, position.to_move)


def next_round(state: Match, event: RoundStarted) -> Match:
    """The state at the start of a Sudden Death round: the ended round kept as it was,
    an empty board with the round's recorded draws, the recorded hands. The missed-turn
    warnings carry over; turn numbers go on counting."""
    setup = state.setup
    geometry = Geometry.of(setup.rows, setup.cols, event.blocked)
    board = Board.empty(geometry, setup.rules, event.marks)
    cards = state.cards
    hands = [tuple(_card(cards[card_id], setup) for card_id in hand) for hand in event.hands]
    ended = RoundEnd(
        state.round, state.first, state.position.board, state.placements, state.scores()
    )
    return state._replace(
        version=state.version + 1,
        round=event.round,
        first=event.first,
        position=Position.start(board, hands[0], hands[1], event.first),
        turn=state.turn + 1,
        deadline=event.deadline,
        placements=(),
        revealed=event.revealed,
        earlier=(*state.earlier, ended),
    )


T = TypeVar("T")


def _put(pair: tuple[T, T], seat: Seat, value: T) -> tuple[T, T]:
    return (value, pair[1]) if seat == Seat.A else (pair[0], value)


def _created(event: MatchCreated) -> Match:
    setup = event.setup
    geometry = Geometry.of(setup.rows, setup.cols, setup.blocked)
    board = Board.empty(geometry, setup.rules, event.marks)
    hands = [tuple(_card(c, setup) for c in seat.hand) for seat in event.seats]
    position = Position.start(board, hands[0], hands[1], event.first)
    cards = {c.card_id: c for seat in event.seats for c in seat.hand}
    cards |= {c.card_id: c for c in event.draw_pile}
    return Match(
        match_id=event.match_id,
        version=1,
        setup=setup,
        seats=event.seats,
        first=event.first,
        position=position,
        cards=cards,
        turn=1,
        deadline=event.first_deadline,
        warned=(False, False),
        sessions=(event.seats[0].session_id, event.seats[1].session_id),
        disconnected=(event.seats[0].forfeit_at, event.seats[1].forfeit_at),
        turn_seconds=event.turn_seconds,
        disconnect_seconds=event.disconnect_seconds,
        created_at=event.created_at,
        origin_id=event.origin_id,
        revealed=(event.seats[0].revealed, event.seats[1].revealed),
        realm=None if setup.realm is None else RealmState.fresh(geometry.size),
        draw_pile=tuple(c.card_id for c in event.draw_pile),
    )


def _card(card: MatchCard, setup: MatchRules) -> Card:
    """The card the rules engine plays: a Realm card at a Realm table."""
    if setup.realm is None:
        return card.rules
    if card.realm is None:
        raise ValueError(f"card {card.card_id} has no creature type for a Realm table")
    return card.realm


def fold(events: list[MatchEvent], state: Match | None = None) -> Match | None:
    for event in events:
        state = evolve(state, event)
    return state
