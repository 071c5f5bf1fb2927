"""A match: its state, the commands that decide events, and the fold that evolves state.

RULES.md sections 3 to 5. ``decide`` functions take the current state, the command's
arguments, the time and any random draw the handler made, and return the events; they
never read a clock or draw randomness themselves. ``evolve`` folds one event into the
state; it applies recorded outcomes and never re-runs rule code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple, TypeVar

from services.match.events import (
    CardPlaced,
    FinishReason,
    Forfeited,
    MatchCard,
    MatchCreated,
    MatchEvent,
    MatchFinished,
    MatchRules,
    PlayerDisconnected,
    PlayerReconnected,
    SeatPlayer,
    SeatStart,
    TurnTimedOut,
    TurnWarningIssued,
)
from services.match.rules import Board, Element, Geometry, Position, Seat, Visibility
from services.match.rules import errors as rule_errors
from services.platform.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    short_id,
)

SEATS = (Seat.A, Seat.B)


class MatchNotFound(NotFound):
    """No such match, or one the caller does not sit in: the same answer for both, so
    strangers learn nothing (:func:`no_match`)."""


def no_match(match_id: str) -> MatchNotFound:
    """The one wording of a match the caller has not: the match as the client shows it."""
    return MatchNotFound(f"you have no match {short_id(match_id)}")


class NotYourTurn(FailedPrecondition):
    pass


class MatchOver(FailedPrecondition):
    pass


class IllegalPlacement(InvalidArgument):
    """The cell is not on the board: malformed whatever the state."""


class CellUnavailable(FailedPrecondition):
    """The cell is occupied or blocked."""


class CardNotInHand(FailedPrecondition):
    pass


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
    finished: MatchFinished | None = None

    @property
    def last(self) -> CardPlaced | None:
        return self.placements[-1] if self.placements else None

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


# --- evolve -------------------------------------------------------------------------


def evolve(state: Match | None, event: MatchEvent) -> Match:
    """Fold one event into the state."""
    if isinstance(event, MatchCreated):
        return _created(event)
    if state is None:
        raise ValueError(f"{type(event).__name__} before MatchCreated")
    version = state.version + 1
    if isinstance(event, CardPlaced):
        index = state.position.index_of(event.seat, event.card_id)
        if state.position.to_move != event.seat:
            raise ValueError(f"recorded placement by {event.seat.name} out of turn")
        position = state.position.apply(index, event.cell, [c.cell for c in event.captures])
        warned = list(state.warned)
        warned[event.seat] = event.auto_played  # an auto-play keeps the warning on
        return state._replace(
            version=version,
            position=position,
            turn=state.turn + 1 if event.next_seat is not None else state.turn,
            deadline=event.next_deadline,
            warned=(warned[0], warned[1]),
            placements=(*state.placements, event),
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
    if isinstance(event, MatchFinished):
        return state._replace(
            version=version, finished=event, deadline=None, disconnected=(None, None)
        )
    # TurnTimedOut and Forfeited are facts for readers; MatchFinished follows them.
    return state._replace(version=version)


T = TypeVar("T")


def _put(pair: tuple[T, T], seat: Seat, value: T) -> tuple[T, T]:
    return (value, pair[1]) if seat == Seat.A else (pair[0], value)


def _created(event: MatchCreated) -> Match:
    setup = event.setup
    geometry = Geometry.of(setup.rows, setup.cols, setup.blocked)
    board = Board.empty(geometry, setup.rules, event.marks)
    hands = [tuple(c.rules_card() for c in seat.hand) for seat in event.seats]
    position = Position.start(board, hands[0], hands[1], event.first)
    cards = {c.card_id: c for seat in event.seats for c in seat.hand}
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
    )


def fold(events: list[MatchEvent], state: Match | None = None) -> Match | None:
    for event in events:
        state = evolve(state, event)
    return state


# --- decide ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartDraws:
    """The random draws of a match start, made by the handler (rules/draws.py)."""

    first: Seat
    marks: tuple[Element | None, ...]
    revealed: tuple[frozenset[str], frozenset[str]]


def create(
    state: Match | None,
    match_id: str,
    setup: MatchRules,
    players: tuple[SeatPlayer, SeatPlayer],
    hands: tuple[tuple[MatchCard, ...], tuple[MatchCard, ...]],
    draws: StartDraws,
    now: datetime,
    turn_seconds: float,
    disconnect_seconds: float,
    origin_id: str = "",
    sessions: tuple[str, str] | None = None,
) -> list[MatchEvent]:
    """``sessions``: each seat's open gateway session ("" for none). A human seat
    without one starts disconnected, with the grace from ``now`` (the contract: no
    open session counts as disconnected); None when presence is not known (every
    seat starts connected)."""
    if state is not None:
        raise AlreadyExists(f"match {match_id} exists already")
    if players[0].player_id == players[1].player_id:
        raise InvalidArgument("a player cannot sit in both seats of a match")
    geometry = Geometry.of(setup.rows, setup.cols, setup.blocked)
    sizes = {len(hand) for hand in hands}
    if len(sizes) != 1 or 2 * len(hands[0]) < len(geometry.playable) or not hands[0]:
        raise InvalidArgument(
            f"both hands need the same number of cards, together enough for the "
            f"{len(geometry.playable)} playable cells; got {len(hands[0])} and {len(hands[1])}"
        )
    ids = [c.card_id for hand in hands for c in hand]
    if len(set(ids)) != len(ids) or "" in ids:
        raise InvalidArgument("every card of a match needs its own non-empty card id")
    for seat, hand in zip(SEATS, hands, strict=True):
        expected = _revealed_count(setup.visibility, len(hand))
        revealed = draws.revealed[seat]
        if len(revealed) != expected or not revealed <= {c.card_id for c in hand}:
            raise InvalidArgument(f"seat {seat.name} must reveal {expected} of its own cards")
    if len(draws.marks) != geometry.size:
        raise InvalidArgument(f"the board has {geometry.size} cells to mark")
    forfeit_at = now + timedelta(seconds=disconnect_seconds)
    seats = tuple(
        SeatStart(players[i], hands[i], draws.revealed[i])
        if sessions is None or players[i].is_bot
        else SeatStart(
            players[i],
            hands[i],
            draws.revealed[i],
            session_id=sessions[i],
            forfeit_at=None if sessions[i] else forfeit_at,
        )
        for i in (0, 1)
    )
    marks = draws.marks if setup.rules.elemental else (None,) * geometry.size
    return [
        MatchCreated(
            match_id=match_id,
            setup=setup,
            seats=(seats[0], seats[1]),
            marks=marks,
            first=draws.first,
            first_deadline=now + timedelta(seconds=turn_seconds),
            turn_seconds=turn_seconds,
            disconnect_seconds=disconnect_seconds,
            created_at=now,
            origin_id=origin_id,
        )
    ]


def _revealed_count(visibility: Visibility, hand_size: int) -> int:
    if visibility is Visibility.ALL_OPEN:
        return hand_size
    if visibility is Visibility.CLOSED:
        return 0
    return min(3, hand_size)


def place(
    state: Match | None, player_id: str, card_id: str, cell: int, now: datetime
) -> list[MatchEvent]:
    """A player places one of their cards on an empty cell."""
    match = _existing(state)
    seat = match.seat_of(player_id)
    _check_in_progress(match)
    if match.position.to_move != seat:
        raise NotYourTurn(f"it is not your turn: wait for {match.player(seat.other).name}")
    try:
        index = match.position.index_of(seat, card_id)
    except rule_errors.CardNotInHand:
        raise CardNotInHand(f"card {card_id!r} is not in your hand") from None
    return _placement(match, seat, index, cell, now, auto_draw=None)


def time_out(state: Match | None, turn: int, now: datetime, draw: int) -> list[MatchEvent]:
    """The turn timer fired. ``draw`` is a random whole number the handler drew once;
    it picks the auto-played placement modulo the number of legal placements.

    A first miss auto-plays a random legal placement and warns the seat; a miss by a
    warned seat forfeits. A stale firing (another turn, a finished match, too early)
    decides nothing.
    """
    match = _existing(state)
    if not match.in_progress or match.turn != turn or match.deadline is None:
        return []
    if now < match.deadline:
        return []
    seat = match.position.to_move
    if match.warned[seat]:
        return [
            TurnTimedOut(match.match_id, turn, seat, 2),
            *_finish(match, now, FinishReason.TURN_TIMEOUT, forfeited=seat),
        ]
    moves = match.position.legal_moves()
    index, cell = moves[draw % len(moves)]
    return [
        TurnTimedOut(match.match_id, turn, seat, 1),
        TurnWarningIssued(match.match_id, seat, turn),
        *_placement(match, seat, index, cell, now, auto_draw=(len(moves), draw % len(moves))),
    ]


def forfeit(state: Match | None, player_id: str, now: datetime) -> list[MatchEvent]:
    match = _existing(state)
    seat = match.seat_of(player_id)
    _check_in_progress(match)
    return _finish(match, now, FinishReason.FORFEIT, forfeited=seat)


def presence(
    state: Match | None, player_id: str, connected: bool, session_id: str, now: datetime
) -> list[MatchEvent]:
    """The gateway reports a player's session coming or going.

    A report from a session that is no longer the seat's current one changes nothing,
    so a half-open old stream closing late cannot disconnect a player who came back.
    """
    match = _existing(state)
    seat = match.seat_of(player_id)
    if not match.in_progress or match.player(seat).is_bot:
        return []
    if connected:
        if match.sessions[seat] == session_id and match.disconnected[seat] is None:
            return []
        return [PlayerReconnected(match.match_id, seat, session_id)]
    if match.sessions[seat] != session_id or match.disconnected[seat] is not None:
        return []
    forfeit_at = now + timedelta(seconds=match.disconnect_seconds)
    return [PlayerDisconnected(match.match_id, seat, session_id, forfeit_at)]


def disconnect_expired(state: Match | None, seat: Seat, now: datetime) -> list[MatchEvent]:
    """The disconnect deadline of ``seat`` fired: it forfeits if still away."""
    match = _existing(state)
    due = match.disconnected[seat]
    if not match.in_progress or due is None or now < due:
        return []
    return _finish(match, now, FinishReason.DISCONNECT, forfeited=seat)


def _existing(state: Match | None) -> Match:
    if state is None:
        # The handler names the match (``handlers._execute``): the state has no id.
        raise MatchNotFound("you have no such match")
    return state


def _check_in_progress(match: Match) -> None:
    if not match.in_progress:
        raise MatchOver(f"match {short_id(match.match_id)} is over")


_RULE_ERRORS: dict[type[Exception], type[Exception]] = {
    rule_errors.CellOutsideBoard: IllegalPlacement,
    rule_errors.CellBlocked: CellUnavailable,
    rule_errors.CellOccupied: CellUnavailable,
}


def _placement(
    match: Match,
    seat: Seat,
    index: int,
    cell: int,
    now: datetime,
    auto_draw: tuple[int, int] | None,
) -> list[MatchEvent]:
    card = match.position.hand(seat)[index]
    try:
        after, placement = match.position.play(index, cell)
    except rule_errors.RuleViolation as exc:
        raise _RULE_ERRORS.get(type(exc), IllegalPlacement)(str(exc)) from None
    over = after.over
    placed = CardPlaced(
        match_id=match.match_id,
        turn=match.turn,
        seat=seat,
        card_id=card.id,
        cell=cell,
        captures=placement.captures,
        scores=(after.score(Seat.A), after.score(Seat.B)),
        next_seat=None if over else after.to_move,
        next_deadline=None if over else now + timedelta(seconds=match.turn_seconds),
        auto_played=auto_draw is not None,
        auto_draw=auto_draw,
        warning_cleared=auto_draw is None and match.warned[seat],
    )
    if not over:
        return [placed]
    return [placed, *_finish(evolve(match, placed), now, FinishReason.BOARD_FULL, None)]


def _finish(
    match: Match, now: datetime, reason: FinishReason, forfeited: Seat | None
) -> list[MatchEvent]:
    scores = match.scores()
    if forfeited is not None:
        winner: Seat | None = forfeited.other
    else:
        winner = Seat.A if scores[0] > scores[1] else Seat.B if scores[1] > scores[0] else None
    finished = MatchFinished(
        match_id=match.match_id,
        setup=match.setup,
        players=(match.player(Seat.A), match.player(Seat.B)),
        decks=(
            tuple(c.card_id for c in match.seats[0].hand),
            tuple(c.card_id for c in match.seats[1].hand),
        ),
        origin_id=match.origin_id,
        scores=scores,
        winner=winner,
        reason=reason,
        forfeited=forfeited,
        rated=bool(match.setup.ladder) and match.both_human,
        trade_one=match.setup.trade_one and match.both_human and winner is not None,
        placements=sum(1 for card in match.position.board.cards if card is not None),
        finished_at=now,
    )
    if forfeited is None:
        return [finished]
    return [Forfeited(match.match_id, forfeited, reason), finished]


# --- deadlines -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deadline:
    """A timer the service must fire: ``kind`` is "turn", "disconnect" or "bot"."""

    kind: str
    seat: Seat
    due: datetime
    turn: int


def deadlines(match: Match) -> list[Deadline]:
    """Every timer the current state needs; the store replaces a match's timers with
    these in the same transaction as the events that produced the state."""
    if not match.in_progress or match.deadline is None:
        return []
    seat = match.position.to_move
    found = [Deadline("turn", seat, match.deadline, match.turn)]
    if match.player(seat).is_bot:  # a bot moves as soon as its turn starts
        turn_start = match.deadline - timedelta(seconds=match.turn_seconds)
        found.append(Deadline("bot", seat, turn_start, match.turn))
    for other in SEATS:
        due = match.disconnected[other]
        if due is not None:
            found.append(Deadline("disconnect", other, due, match.turn))
    return found
