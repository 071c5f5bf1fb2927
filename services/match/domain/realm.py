"""Realm tables in a match (RULES.md 17): placements resolved by the Realm engine with
the match's :class:`RealmState`, Lair declared with a placement, and Realm Sudden
Death's replacements from the recorded draw pile.

The Realm state lives in the match (:attr:`Match.realm`) and each :class:`CardPlaced`
records the state after it, so folding never runs the Realm engine again.
"""

from __future__ import annotations

from datetime import datetime

from services.match.domain.errors import LairRefused
from services.match.domain.events import CardPlaced, MatchCard, MatchRules, RealmMove
from services.match.domain.state import Match, placed
from services.platform.errors import InvalidArgument
from services.rules import Capture, Position, Seat
from services.rules.compatibility import realm_problem
from services.rules.realm import RealmBoard, RealmCard, RealmRules, weakest_cell

PILE_SIZE = 10
"""RULES.md 17, Decision: the draw pile is ten catalog cards drawn at match start."""


def check_setup(
    setup: MatchRules,
    hands: tuple[tuple[MatchCard, ...], tuple[MatchCard, ...]],
    draw_pile: tuple[MatchCard, ...],
) -> None:
    """A Realm match needs a Realm board, cards with creature types, no Elemental, and
    a draw pile of ten exactly when it plays Realm Sudden Death."""
    wants_pile = setup.realm is not None and setup.sudden_death
    if len(draw_pile) != (PILE_SIZE if wants_pile else 0):
        raise InvalidArgument(
            f"a Realm Sudden Death match needs a draw pile of {PILE_SIZE} cards, any other "
            f"match none; got {len(draw_pile)}"
        )
    if setup.realm is None:
        return
    problem = realm_problem(
        rows=setup.rows,
        cols=setup.cols,
        blocked=len(setup.blocked),
        elemental=setup.rules.elemental,
        same_wall=setup.rules.same_wall,
        trades=setup.trades,
    )
    if problem is not None:
        raise InvalidArgument(problem)
    untyped = [c.card_id for hand in (*hands, draw_pile) for c in hand if c.realm is None]
    if untyped:
        raise InvalidArgument(f"cards without a creature type cannot play Realm: {untyped[:3]}")


def modules(match: Match) -> RealmRules:
    rules = match.setup.realm
    assert rules is not None and match.realm is not None, "not a Realm table"
    return rules


def realm_board(match: Match) -> RealmBoard:
    """The match's board and Realm state as the Realm engine reads them."""
    assert match.realm is not None
    return RealmBoard(match.position.board, modules(match), match.realm)


def check_lair(match: Match, seat: Seat, lair: bool) -> None:
    """A Lair declared at a table without the module, or a second time, is refused."""
    if not lair:
        return
    if match.setup.realm is None or not match.setup.realm.lair:
        raise LairRefused("this table has no Lair module: place the card without Lair")
    assert match.realm is not None
    if match.realm.lair_spent[seat]:
        raise LairRefused("your Lair is spent: it can be declared once per match")


def play(
    match: Match, seat: Seat, index: int, cell: int, lair: bool
) -> tuple[Position, tuple[Capture, ...], RealmMove]:
    """``seat`` places the card at ``index`` of its hand on ``cell`` (declaring Lair
    when ``lair``): the position after it, the captures and the Realm outcome. Rule
    violations (cell taken, blocked, off the board) are the engine's."""
    check_lair(match, seat, lair)
    position = match.position
    card = position.hand(seat)[index]
    assert isinstance(card, RealmCard)
    _, placement = realm_board(match).place(cell, card, seat, lair)
    after = position.apply(index, cell, [c.cell for c in placement.captures])
    move = RealmMove(lair, placement.saved, placement.comparisons, placement.state)
    return after, placement.captures, move


def replacements(match: Match, now: datetime) -> tuple[list[CardPlaced], Match]:
    """Realm Sudden Death on a full board: while the scores are tied and the pile holds
    a card, the weakest card leaves and the pile's next is placed on its cell for the
    removed card's owner. Each replacement is a :class:`CardPlaced` recording the card
    it replaced; when the pile is empty the draw stands."""
    events: list[CardPlaced] = []
    while _tied(match) and match.pile_drawn < len(match.draw_pile):
        board = realm_board(match)
        cell = weakest_cell(board.cards)
        owner, removed = board.owners[cell], board.cards[cell]
        assert owner is not None and removed is not None
        drawn = match.cards[match.draw_pile[match.pile_drawn]]
        assert drawn.realm is not None
        after, placement = board.replace_weakest(drawn.realm)
        position = Position(after.board, match.position.hands, match.position.to_move)
        event = CardPlaced(
            match_id=match.match_id,
            turn=match.turn,
            seat=Seat(owner),
            card_id=drawn.card_id,
            cell=cell,
            captures=placement.captures,
            scores=(position.score(Seat.A), position.score(Seat.B)),
            next_seat=None,
            next_deadline=None,
            realm=RealmMove(
                False, placement.saved, placement.comparisons, placement.state, removed.id
            ),
        )
        match = placed(match, event, position)
        events.append(event)
    return events, match


def pile_left(match: Match) -> int:
    return len(match.draw_pile) - match.pile_drawn


def _tied(match: Match) -> bool:
    scores = match.scores()
    return match.setup.sudden_death and scores[0] == scores[1]
