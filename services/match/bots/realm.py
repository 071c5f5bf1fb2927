"""Bots at Realm tables (RULES.md 17): the four levels, deciding from the seat's own
view with the Realm engine, Lair among the moves.

What the seat knows is :class:`RealmKnowledge`, built from its redacted view only: the
board (every placed card face up, with its type and alignment), the match's Realm state
(public: hexes spent, pending Rot, Lair and Resistance spent), its own hand, the
opponent's shown cards and the *number* of hidden ones. The draw pile is not in the
view, so not here either. Hidden cards are guessed (:func:`_guess`) from public data:
the catalog when given, else plausible sides.

- **novice**: a random card on a random empty cell, never Lair.
- **easy**: the best placement one move deep (Lair included), ties drawn at random.
- **normal**: its placement and the opponent's best reply, over a few guesses of the
  hidden cards (one placement deep if that does not fit in the budget).
- **hard**: deepens (alpha-beta, best moves first) until the budget runs out or the
  board is full, over guesses of the hidden cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random

from services.match.bots.levels import Budget, Level
from services.match.bots.sampling import CatalogEntry
from services.match.domain.events import MatchCard
from services.match.views import MatchView
from services.rules import Board, Geometry, Rules, Seat
from services.rules.realm import (
    NEUTRAL,
    CreatureType,
    RealmBoard,
    RealmCard,
    RealmRules,
    RealmState,
)
from services.rules.solver import STOP_POLL

RealmMove = tuple[int, int, bool]
"""(index in the mover's hand, cell, Lair declared)."""

NORMAL_SAMPLES = 2
HARD_SAMPLES = 3
MAX_HARD_DEPTH = 4


class Stopped(Exception):
    """The budget ran out mid-search."""


@dataclass(frozen=True, slots=True)
class RealmKnowledge:
    """The public facts a bot seat at a Realm table decides from (picklable)."""

    seat: Seat
    to_move: Seat | None
    rules: RealmRules
    rows: int
    cols: int
    board: tuple[tuple[RealmCard, Seat] | None, ...]
    state: RealmState
    hand: tuple[RealmCard, ...]
    opponent_known: tuple[RealmCard, ...]
    opponent_hidden: int
    level: str


@dataclass(frozen=True, slots=True)
class BotMove:
    card_id: str
    cell: int
    lair: bool = False


def realm_knowledge(view: MatchView) -> RealmKnowledge:
    """The public facts of the bot seat whose view this is (a Realm table's)."""
    setup, realm = view.setup, view.realm
    assert setup.realm is not None and realm is not None, "not a Realm table"

    def typed(card: MatchCard) -> RealmCard:
        found = card.realm
        assert found is not None, "a Realm table's card has a creature type"
        return found

    known = [c for c in view.opponent_hand if isinstance(c, MatchCard)]
    return RealmKnowledge(
        seat=view.seat,
        to_move=view.turn_seat,
        rules=setup.realm,
        rows=setup.rows,
        cols=setup.cols,
        board=tuple(
            None if c.card is None or c.owner is None else (typed(c.card), c.owner)
            for c in view.board
        ),
        state=realm.state,
        hand=tuple(typed(c) for c in view.hand),
        opponent_known=tuple(typed(c) for c in known),
        opponent_hidden=len(view.opponent_hand) - len(known),
        level=view.players[view.seat].player.bot_level,
    )


@dataclass(frozen=True, slots=True)
class _Node:
    board: RealmBoard
    hands: tuple[tuple[RealmCard, ...], tuple[RealmCard, ...]]
    to_move: Seat

    def moves(self) -> list[RealmMove]:
        """Distinct moves: one per different card (same sides, type, alignment), every
        empty cell, with and without Lair when the mover may declare it."""
        board, seat = self.board, self.to_move
        lairs = (False, True) if board.rules.lair and not board.state.lair_spent[seat] else (False,)
        seen, moves = set(), []
        for index, card in enumerate(self.hands[seat]):
            key = (card.sides, card.kind, card.alignment, card.legendary)
            if key in seen:
                continue
            seen.add(key)
            moves += [(index, c, lair) for c in board.board.empty_cells for lair in lairs]
        return moves

    def play(self, move: RealmMove) -> _Node:
        index, cell, lair = move
        seat = self.to_move
        hand = self.hands[seat]
        board, _ = self.board.place(cell, hand[index], seat, lair)
        rest = hand[:index] + hand[index + 1 :]
        hands = (rest, self.hands[1]) if seat is Seat.A else (self.hands[0], rest)
        return _Node(board, hands, seat.other)

    def margin(self, seat: Seat) -> int:
        """Cards the seat owns (board and hand) minus the opponent's."""
        owners = self.board.owners
        mine = owners.count(seat) + len(self.hands[seat])
        theirs = owners.count(seat.other) + len(self.hands[seat.other])
        return mine - theirs

    @property
    def over(self) -> bool:
        return self.board.board.full or not self.hands[self.to_move]


def _node(seat: RealmKnowledge, guesses: tuple[RealmCard, ...]) -> _Node:
    geometry = Geometry.of(seat.rows, seat.cols)
    board = Board.empty(geometry, Rules())
    for cell, entry in enumerate(seat.board):
        if entry is not None:
            board = board.with_card(cell, entry[0], entry[1])
    opponent = seat.opponent_known + guesses
    hands = (seat.hand, opponent) if seat.seat is Seat.A else (opponent, seat.hand)
    assert seat.to_move is not None
    return _Node(RealmBoard(board, seat.rules, seat.state), hands, seat.to_move)


KINDS = tuple(CreatureType)


def _guess(
    seat: RealmKnowledge, rng: Random, catalog: Sequence[CatalogEntry] | None
) -> tuple[RealmCard, ...]:
    """Cards for the opponent's hidden slots, from public data only."""
    cards = []
    for n in range(seat.opponent_hidden):
        if catalog:
            sides = rng.choice(catalog).sides
        else:
            sides = (rng.randint(2, 7), rng.randint(2, 7), rng.randint(2, 7), rng.randint(2, 7))
        cards.append(
            RealmCard(sides, None, f"guess-{n}", kind=rng.choice(KINDS), alignment=NEUTRAL)
        )
    return tuple(cards)


def decide(
    seat: RealmKnowledge,
    seed: int,
    budget: Budget | None = None,
    catalog: Sequence[CatalogEntry] | None = None,
) -> BotMove:
    """The move of the bot seat that knows ``seat``, at its level."""
    if seat.to_move is not seat.seat or not seat.hand:
        raise ValueError("a bot decides only on its own turn, with a card in hand")
    rng = Random(seed)
    level = Level.of(seat.level)
    if level is Level.NOVICE:
        empty = [c for c, entry in enumerate(seat.board) if entry is None]
        return BotMove(rng.choice(seat.hand).id, rng.choice(empty))
    samples = (
        1
        if level is Level.EASY or not seat.opponent_hidden
        else (NORMAL_SAMPLES if level is Level.NORMAL else HARD_SAMPLES)
    )
    nodes = [_node(seat, _guess(seat, rng, catalog)) for _ in range(samples)]
    move = _best(nodes, 1, rng, None)
    deepest = {Level.EASY: 1, Level.NORMAL: 2}.get(level, MAX_HARD_DEPTH)
    stop = (budget or Budget()).stopper()  # deeper than one placement within the budget
    for depth in range(2, deepest + 1):
        try:
            move = _best(nodes, depth, rng, stop)
        except Stopped:
            break
    index, cell, lair = move
    return BotMove(seat.hand[index].id, cell, lair)


def _best(
    nodes: list[_Node], depth: int, rng: Random, stop: Callable[[], bool] | None
) -> RealmMove:
    """The root move with the best mean value over ``nodes`` at ``depth``."""
    counter = [0]
    root = nodes[0]
    seat = root.to_move
    moves = root.moves()
    rng.shuffle(moves)
    totals = dict.fromkeys(moves, 0.0)
    for node in nodes:
        for move in moves:
            child = node.play(move)
            totals[move] += -_negamax(child, depth - 1, -99, 99, counter, stop, seat.other)
    return max(moves, key=totals.__getitem__)


def _negamax(
    node: _Node,
    depth: int,
    alpha: int,
    beta: int,
    counter: list[int],
    stop: Callable[[], bool] | None,
    seat: Seat,
) -> int:
    """The value for ``seat`` (to move in ``node``) of searching ``depth`` more plies."""
    counter[0] += 1
    if stop is not None and counter[0] % STOP_POLL == 0 and stop():
        raise Stopped
    if depth == 0 or node.over:
        return node.margin(seat)
    best = -99
    for move in node.moves():
        value = -_negamax(node.play(move), depth - 1, -beta, -alpha, counter, stop, seat.other)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best
