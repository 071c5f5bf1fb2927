"""The commands of a match: RULES.md sections 3 to 5.

Each takes the current state, the command's arguments, the time and any random draw
the handler made (it never reads a clock or draws randomness itself) and returns a
:class:`Decision`: the events and the state they lead to. The state is computed once,
here, from the board the rules engine just played; nothing folds the same events
again to save them (``fold(decision.events, before) == decision.state`` is what the
tests hold it to).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from random import Random

from services.match.domain import realm
from services.match.domain.ending import finish, grace_over
from services.match.domain.errors import (
    CardNotInHand,
    CellUnavailable,
    IllegalPlacement,
    MatchNotFound,
    MatchOver,
    NotYourTurn,
    TurnOver,
)
from services.match.domain.events import (
    CardPlaced,
    FinishReason,
    MatchCard,
    MatchCreated,
    MatchEvent,
    MatchRules,
    PlayerDisconnected,
    PlayerReconnected,
    SeatPlayer,
    SeatStart,
    TurnTimedOut,
    TurnWarningIssued,
)
from services.match.domain.rounds import next_round, plays_on
from services.match.domain.state import SEATS, Match, evolve, fold, placed
from services.platform.errors import AlreadyExists, InvalidArgument, short_id
from services.rules import Element, Geometry, Seat, Visibility
from services.rules import errors as rule_errors


@dataclass(frozen=True, slots=True)
class Decision:
    """What a command decided: its events, and the state after them (the state it was
    decided on when there are none)."""

    events: list[MatchEvent]
    state: Match

    @classmethod
    def folding(cls, match: Match, events: list[MatchEvent]) -> Decision:
        """``events`` decided on ``match``, folded onto it: for events that touch no
        board, where folding is a few field replacements."""
        after = fold(events, match)
        assert after is not None
        return cls(events, after)


def _unchanged(match: Match) -> Decision:
    return Decision([], match)


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
    draw_pile: tuple[MatchCard, ...] = (),
) -> Decision:
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
    realm.check_setup(setup, hands, draw_pile)
    ids = [c.card_id for hand in (*hands, draw_pile) for c in hand]
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
    created = MatchCreated(
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
        draw_pile=draw_pile,
    )
    return Decision([created], evolve(None, created))


def _revealed_count(visibility: Visibility, hand_size: int) -> int:
    if visibility is Visibility.ALL_OPEN:
        return hand_size
    if visibility is Visibility.CLOSED:
        return 0
    return min(3, hand_size)


def place(
    state: Match | None,
    player_id: str,
    card_id: str,
    cell: int,
    now: datetime,
    seed: int = 0,
    lair: bool = False,
    by_bot: bool = False,
) -> Decision:
    """A player places one of their cards on an empty cell (declaring Lair at a Realm
    table when ``lair``). ``seed``: a random whole number the handler drew, from which
    the next round's draws are made should this placement tie a Sudden Death round
    (they are recorded, never drawn again). A turn lasts its seconds to the instant the
    timer fires at: a player's placement then or later is refused (the turn is missed,
    RULES.md 5); a bot's move, made by that timer's own firing, is not held to it."""
    match = _existing(state)
    seat = match.seat_of(player_id)
    try:  # malformed whatever the state: said before the turn, the timer or the end
        match.position.board.check_on(cell)
    except rule_errors.CellOutsideBoard as exc:
        raise IllegalPlacement(str(exc)) from None
    _check_in_progress(match)
    if match.position.to_move != seat:
        other = match.player(seat.other).name
        if match.warned[seat]:  # found from outside: a move just late read as out of turn
            raise NotYourTurn(
                f"it is not your turn: yours ran out and the server played a card for you; "
                f"wait for {other}"
            )
        raise NotYourTurn(f"it is not your turn: wait for {other}")
    if not by_bot and match.deadline is not None and now >= match.deadline:
        raise TurnOver("your turn is over: the server plays for a missed turn")
    try:
        index = match.position.index_of(seat, card_id)
    except rule_errors.CardNotInHand:
        raise CardNotInHand(f"card {card_id!r} is not in your hand") from None
    return _placement(match, seat, index, cell, now, None, seed, lair)


def time_out(state: Match | None, turn: int, now: datetime, draw: int, seed: int = 0) -> Decision:
    """The turn timer fired. ``draw`` is a random whole number the handler drew once;
    it picks the auto-played placement modulo the number of legal placements. ``seed``
    as for :func:`place`, should the auto-played card tie a Sudden Death round.

    A first miss auto-plays a random legal placement and warns the seat; a miss by a
    warned seat forfeits. A stale firing (another turn, a finished match, too early)
    decides nothing.
    """
    match = _existing(state)
    if not match.in_progress or match.turn != turn or match.deadline is None:
        return _unchanged(match)
    if now < match.deadline:
        return _unchanged(match)
    seat = match.position.to_move
    if match.warned[seat]:
        return Decision.folding(
            match,
            [
                TurnTimedOut(match.match_id, turn, seat, 2),
                *finish(match, now, FinishReason.TURN_TIMEOUT, forfeited=seat),
            ],
        )
    moves = match.position.legal_moves()
    index, cell = moves[draw % len(moves)]
    warned = Decision.folding(
        match,
        [
            TurnTimedOut(match.match_id, turn, seat, 1),
            TurnWarningIssued(match.match_id, seat, turn),
        ],
    )
    auto = _placement(warned.state, seat, index, cell, now, (len(moves), draw % len(moves)), seed)
    return Decision([*warned.events, *auto.events], auto.state)


def forfeit(state: Match | None, player_id: str, now: datetime) -> Decision:
    match = _existing(state)
    seat = match.seat_of(player_id)
    _check_in_progress(match)
    return Decision.folding(match, finish(match, now, FinishReason.FORFEIT, forfeited=seat))


def presence(
    state: Match | None, player_id: str, connected: bool, session_id: str, now: datetime
) -> Decision:
    """The gateway reports a player's session coming or going.

    A report from a session that is no longer the seat's current one changes nothing,
    so a half-open old stream closing late cannot disconnect a player who came back.
    A return at or after the seat's forfeit moment is not in time: it forfeits, as the
    disconnect timer firing then would (RULES.md 5).
    """
    match = _existing(state)
    seat = match.seat_of(player_id)
    if not match.in_progress or match.player(seat).is_bot:
        return _unchanged(match)
    due = match.disconnected[seat]
    if connected and due is not None and now >= due:
        return disconnect_expired(match, seat, now)
    if connected:
        if match.sessions[seat] == session_id and match.disconnected[seat] is None:
            return _unchanged(match)
        return Decision.folding(match, [PlayerReconnected(match.match_id, seat, session_id)])
    if match.sessions[seat] != session_id or match.disconnected[seat] is not None:
        return _unchanged(match)
    forfeit_at = now + timedelta(seconds=match.disconnect_seconds)
    return Decision.folding(
        match, [PlayerDisconnected(match.match_id, seat, session_id, forfeit_at)]
    )


def disconnect_expired(state: Match | None, seat: Seat, now: datetime) -> Decision:
    """The disconnect deadline of ``seat`` fired: it forfeits if still away (or, both
    seats away, as :func:`ending.grace_over` decides)."""
    match = _existing(state)
    due = match.disconnected[seat]
    if not match.in_progress or due is None or now < due:
        return _unchanged(match)
    return Decision.folding(match, grace_over(match, seat, now))


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
    seed: int,
    lair: bool = False,
) -> Decision:
    card = match.position.hand(seat)[index]
    move = None
    try:
        if match.setup.realm is None:
            realm.check_lair(match, seat, lair)
            after, placement = match.position.play(index, cell)
            captures = placement.captures
        else:
            after, captures, move = realm.play(match, seat, index, cell, lair)
    except rule_errors.RuleViolation as exc:
        raise _RULE_ERRORS.get(type(exc), IllegalPlacement)(str(exc)) from None
    over = after.over
    event = CardPlaced(
        match_id=match.match_id,
        turn=match.turn,
        seat=seat,
        card_id=card.id,
        cell=cell,
        captures=captures,
        scores=(after.score(Seat.A), after.score(Seat.B)),
        next_seat=None if over else after.to_move,
        next_deadline=None if over else now + timedelta(seconds=match.turn_seconds),
        auto_played=auto_draw is not None,
        auto_draw=auto_draw,
        warning_cleared=auto_draw is None and match.warned[seat],
        realm=move,
    )
    state = placed(match, event, after)  # the board just played, not applied again
    if not over:
        return Decision([event], state)
    if move is not None:  # Realm Sudden Death replaces cards instead of new rounds
        replaced, state = realm.replacements(state, now)
        ended = Decision.folding(state, finish(state, now, FinishReason.BOARD_FULL, None))
        return Decision([event, *replaced, *ended.events], ended.state)
    if plays_on(state):
        started = next_round(state, now, Random(seed))
        return Decision([event, started], evolve(state, started))
    ended = Decision.folding(state, finish(state, now, FinishReason.BOARD_FULL, None))
    return Decision([event, *ended.events], ended.state)
