"""How a match ends: the :class:`MatchFinished` event (with :class:`Forfeited` before it
when a seat forfeits), its winner, its trade and whether it is rated; and who forfeits
when a disconnect grace runs out (RULES.md 5).

**Decision** (RULES.md 5 is silent on both players away): a seat whose grace ends
forfeits, as the rulebook says, when it left first. When both seats are away and their
graces end within :data:`SAME_MOMENT` of each other, neither left first as far as the
server can tell: one failure took both (a gateway dying under both players, whose
players the other gateways report away one by one; a network cut; the server's own
outage, after which both graces restart together). Then neither forfeits: the match is
abandoned, a draw by disconnection that is not rated and trades nothing (nobody played
it out), instead of a loss charged to whichever seat the timer loop reached first.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from services.match.domain.events import (
    FinishReason,
    Forfeited,
    MatchEvent,
    MatchFinished,
    TradeRule,
)
from services.match.domain.state import Match
from services.rules import Position, Seat

SAME_MOMENT = timedelta(seconds=5)
"""Graces ending this close together were started by one failure: see the docstring."""


def finish(
    match: Match, now: datetime, reason: FinishReason, forfeited: Seat | None
) -> list[MatchEvent]:
    """The events ending ``match`` now: ``forfeited`` loses; with no forfeit, the
    higher score wins (a draw at equal scores)."""
    scores = match.scores()
    if forfeited is not None:
        winner: Seat | None = forfeited.other
    else:
        winner = Seat.A if scores[0] > scores[1] else Seat.B if scores[1] > scores[0] else None
    return _ended(match, now, reason, forfeited, winner, played_out=True)


def grace_over(match: Match, seat: Seat, now: datetime) -> list[MatchEvent]:
    """``seat``'s disconnect grace is over (it is still away, past its forfeit moment):
    it forfeits; or the other seat does, away since before it; or, both away since the
    same moment, the match is abandoned (the module's decision)."""
    due, other = match.disconnected[seat], match.disconnected[seat.other]
    assert due is not None
    if other is None or other - due > SAME_MOMENT:
        return finish(match, now, FinishReason.DISCONNECT, forfeited=seat)
    if due - other > SAME_MOMENT:  # the other seat left first; its timer is behind
        return finish(match, now, FinishReason.DISCONNECT, forfeited=seat.other)
    return _ended(match, now, FinishReason.DISCONNECT, None, None, played_out=False)


def abandoned(finished: MatchFinished) -> bool:
    """Whether both seats were away past their grace (:func:`grace_over`)."""
    return finished.reason is FinishReason.DISCONNECT and finished.forfeited is None


def _ended(
    match: Match,
    now: datetime,
    reason: FinishReason,
    forfeited: Seat | None,
    winner: Seat | None,
    played_out: bool,
) -> list[MatchEvent]:
    finished = MatchFinished(
        match_id=match.match_id,
        setup=match.setup,
        players=(match.player(Seat.A), match.player(Seat.B)),
        decks=(
            tuple(c.card_id for c in match.seats[0].hand),
            tuple(c.card_id for c in match.seats[1].hand),
        ),
        origin_id=match.origin_id,
        scores=match.scores(),
        winner=winner,
        reason=reason,
        forfeited=forfeited,
        rated=played_out and bool(match.setup.ladder) and match.both_human,
        trade=_trade_now(match, winner) if played_out else TradeRule.NONE,
        placements=match.placement_count,
        finished_at=now,
        round=match.round,
        board_cards=_board_cards(match.position),
    )
    if forfeited is None:
        return [finished]
    return [Forfeited(match.match_id, forfeited, reason), finished]


def _trade_now(match: Match, winner: Seat | None) -> TradeRule:
    """RULES.md 7, 13: a trade between two humans; a draw trades only under Direct."""
    rule = match.setup.trade
    if not match.both_human or (winner is None and rule is not TradeRule.DIRECT):
        return TradeRule.NONE
    return rule


def _board_cards(position: Position) -> tuple[tuple[str, ...], tuple[str, ...]]:
    board = position.board
    cards = [
        (card.id, owner)
        for card, owner in zip(board.cards, board.owners, strict=True)
        if card is not None
    ]
    return (
        tuple(i for i, owner in cards if owner == Seat.A),
        tuple(i for i, owner in cards if owner == Seat.B),
    )
