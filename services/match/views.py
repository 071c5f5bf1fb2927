"""What one player of a match may see, computed from the state (RULES.md 3, Visibility).

The opponent's unrevealed cards become :data:`HIDDEN` here, before anything leaves
the domain: the view holds no id, character or side of them. Revealed slots come
first, so a hidden slot's position tells nothing either. Bots get the same view.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.match.domain import SEATS, Match
from services.match.domain.ending import abandoned
from services.match.domain.events import (
    CardPlaced,
    FinishReason,
    MatchCard,
    MatchFinished,
    MatchRules,
    RealmMove,
    SeatPlayer,
)
from services.match.domain.realm import pile_left
from services.match.domain.state import RoundEnd
from services.rules import HIDDEN, Board, Element, Hidden, Seat, Sides, view_for
from services.rules.realm import RealmState


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    seat: Seat
    player: SeatPlayer
    score: int
    hand_size: int
    warned: bool
    connected: bool
    forfeit_at: datetime | None


@dataclass(frozen=True, slots=True)
class CellView:
    index: int
    mark: Element | None
    blocked: bool
    card: MatchCard | None = None
    owner: Seat | None = None
    adjusted: Sides | None = None
    placed_by: Seat | None = None
    placed_turn: int = 0


@dataclass(frozen=True, slots=True)
class RoundView:
    """An earlier Sudden Death round's final board, as both seats see it."""

    number: int
    first: Seat
    board: tuple[CellView, ...]
    scores: tuple[int, int]
    last: CardPlaced | None = None
    """The placement that filled the board, and its card."""
    last_card: MatchCard | None = None


@dataclass(frozen=True, slots=True)
class RealmInfo:
    """A Realm table's state as both seats see it (RULES.md 17): hexes spent, pending
    Rot, Lair and Resistance spent, the last move's Realm outcome and how many cards
    the draw pile still holds (never which)."""

    state: RealmState
    last: RealmMove | None
    pile_left: int
    tying: tuple[CardPlaced, MatchCard] | None = None
    """Realm Sudden Death, once it has replaced cards: the placement that filled the
    board with the scores tied, and its card."""
    replacements: tuple[Replacement, ...] = ()
    """Realm Sudden Death's replacements, in order."""


@dataclass(frozen=True, slots=True)
class Replacement:
    """A Realm Sudden Death replacement: the card removed from ``cell`` and the pile's
    card placed there for ``seat`` (both were face up on the board)."""

    cell: int
    removed: MatchCard
    drawn: MatchCard
    seat: Seat


@dataclass(frozen=True, slots=True)
class MatchView:
    """Everything one player may know of a match, and nothing else: it deliberately
    holds no reference to the match state, whose hands are whole."""

    match_id: str
    version: int
    setup: MatchRules
    first: Seat
    turn: int
    turn_seconds: float
    created_at: datetime
    seat: Seat
    revealed: frozenset[str]
    """The viewer's own card_ids that the opponent sees."""
    players: tuple[PlayerInfo, PlayerInfo]
    board: tuple[CellView, ...]
    hand: tuple[MatchCard, ...]
    opponent_hand: tuple[MatchCard | Hidden, ...]
    turn_seat: Seat | None
    deadline: datetime | None
    last: CardPlaced | None
    last_card: MatchCard | None
    """The card of the last placement: on the board, so visible to both players."""
    finished: MatchFinished | None
    round: int = 1
    """The round in progress (the last, once finished); ``first``, ``board`` and
    ``last`` are this round's."""
    earlier: tuple[RoundView, ...] = ()
    """Each earlier round's final board, oldest first."""
    realm: RealmInfo | None = None
    """At a Realm table: its Realm state; None at a standard table."""


def match_view(match: Match, player_id: str, other_seat: MatchView | None = None) -> MatchView:
    """The view of the player ``player_id``; a stranger gets MatchNotFound.

    ``other_seat``: the other seat's view of the same version; the board and the
    players, which both seats see alike, are taken from it rather than computed again."""
    seat = match.seat_of(player_id)
    position = match.position
    opponent = seat.other
    rules_view = view_for(position, seat, match.setup.visibility, match.revealed[opponent])
    shown = [match.cards[c.id] for c in rules_view.opponent_hand if not isinstance(c, Hidden)]
    hidden = len(rules_view.opponent_hand) - len(shown)
    if other_seat is not None and (other_seat.match_id, other_seat.version) == (
        match.match_id,
        match.version,
    ):
        cells, players, earlier = other_seat.board, other_seat.players, other_seat.earlier
    else:
        cells, players = _board(match), _players(match)
        earlier = tuple(_round(match, ended) for ended in match.earlier)
    return MatchView(
        match_id=match.match_id,
        version=match.version,
        setup=match.setup,
        first=match.first,
        turn=match.turn,
        turn_seconds=match.turn_seconds,
        created_at=match.created_at,
        seat=seat,
        revealed=match.revealed[seat],
        players=players,
        board=cells,
        hand=tuple(match.cards[c.id] for c in rules_view.hand),
        opponent_hand=(*shown, *([HIDDEN] * hidden)),
        turn_seat=position.to_move if match.in_progress else None,
        deadline=match.deadline if match.in_progress else None,
        last=match.last,
        last_card=None if match.last is None else match.cards[match.last.card_id],
        finished=match.finished,
        round=match.round,
        earlier=earlier,
        realm=None if match.realm is None else _realm(match, match.realm),
    )


def _realm(match: Match, state: RealmState) -> RealmInfo:
    """The Realm state both seats see, with Realm Sudden Death's replacements (the
    placements that end the match, recorded after the one that tied the full board)."""
    last = None if match.last is None else match.last.realm
    placements = match.placements
    n = len(placements)
    while n and (move := placements[n - 1].realm) is not None and move.replaced:
        n -= 1
    if n == len(placements) or n == 0:
        return RealmInfo(state, last, pile_left(match))
    tying = placements[n - 1]
    replacements = tuple(
        Replacement(p.cell, match.cards[p.realm.replaced], match.cards[p.card_id], p.seat)
        for p in placements[n:]
        if p.realm is not None
    )
    return RealmInfo(
        state, last, pile_left(match), (tying, match.cards[tying.card_id]), replacements
    )


def _board(match: Match) -> tuple[CellView, ...]:
    return _cells(match, match.position.board, match.placements)


def _round(match: Match, ended: RoundEnd) -> RoundView:
    last = ended.placements[-1] if ended.placements else None
    return RoundView(
        ended.number,
        ended.first,
        _cells(match, ended.board, ended.placements),
        ended.scores,
        last,
        None if last is None else match.cards[last.card_id],
    )


def _cells(match: Match, board: Board, placements: tuple[CardPlaced, ...]) -> tuple[CellView, ...]:
    """A board as both seats see it: every placed card is face up."""
    placed = {p.cell: p for p in placements}
    return tuple(
        CellView(
            index=i,
            mark=board.marks[i],
            blocked=i in board.geometry.blocked,
            card=None if (card := board.cards[i]) is None else match.cards[card.id],
            owner=None if (owner := board.owners[i]) is None else Seat(owner),
            adjusted=board.adjusted[i],
            placed_by=placed[i].seat if i in placed else None,
            placed_turn=placed[i].turn if i in placed else 0,
        )
        for i in range(board.geometry.size)
    )


def _players(match: Match) -> tuple[PlayerInfo, PlayerInfo]:
    position = match.position
    end = match.finished
    # Found from outside: the last view showed the player who had just lost by
    # disconnection as connected (the end clears the disconnect clocks).
    gone: tuple[Seat | None, ...] = ()
    if end is not None and end.reason is FinishReason.DISCONNECT:
        gone = SEATS if abandoned(end) else (end.forfeited,)
    players = tuple(
        PlayerInfo(
            seat=s,
            player=match.player(s),
            score=position.score(s),
            hand_size=len(position.hands[s]),
            warned=match.warned[s],
            connected=match.disconnected[s] is None and s not in gone,
            forfeit_at=match.disconnected[s],
        )
        for s in SEATS
    )
    return players[0], players[1]
