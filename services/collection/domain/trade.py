"""The trade after a match (RULES.md 7, 13) as a small aggregate: a fold of its stream
and its decisions.

- **One** and **Difference** open with the loser's original deck offered and wait for
  the winner's choice (one copy; d copies at once, d the score difference) within the
  choice window (2 minutes); after it the server picks the copies at random, drawn by
  the handler and recorded. The chosen copies move with their holo bonus in the same
  transaction as the choice, so there is no moment at which the choice is known and
  a copy has not moved.
- **All** and **Direct** move their copies as they open, in one transaction: no
  choice, no deadline. Direct moves copies both ways (each copy from its owner to the
  opponent who holds it on the final board).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from uuid import NAMESPACE_URL, uuid5

from services.collection.domain.events import (
    CopySource,
    CopyTransferred,
    OwnedCopy,
    PlayerRef,
    TradeCardChosen,
    TradeEvent,
    TradeOpened,
    TradeRule,
    TradeTerms,
)
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    short_id,
)
from services.rules.deck import card_label

CHOICE_SECONDS = 120.0


class TradeNotFound(NotFound):
    """No such trade, or not one of the caller's: the same answer (:func:`no_trade`)."""


def no_trade(trade_id: str) -> TradeNotFound:
    """The one wording of a trade the caller has not: the trade as the client shows it."""
    return TradeNotFound(f"you have no trade {short_id(trade_id)}")


def _label(copy: OwnedCopy) -> str:
    return card_label(copy.copy_id, copy.character.name)


class NotTheChooser(PermissionDenied):
    pass


class CopyNotOffered(InvalidArgument):
    pass


class AlreadyChosen(FailedPrecondition):
    pass


class ChoiceTooLate(FailedPrecondition):
    pass


def trade_id_for(match_id: str) -> str:
    """One trade per match, however often its MatchFinished is delivered."""
    return str(uuid5(NAMESPACE_URL, f"triad:trade:{match_id}"))


@dataclass(frozen=True, slots=True)
class Trade(TradeTerms):
    version: int
    chosen: tuple[str, ...] = ()
    auto_picked: bool = False
    completed_at: datetime | None = None

    @property
    def completed(self) -> bool:
        return self.completed_at is not None

    def party(self, player_id: str) -> None:
        """Strangers learn nothing, not even that the trade exists."""
        if player_id not in (self.winner.player_id, self.loser.player_id):
            raise no_trade(self.trade_id)


def evolve(state: Trade | None, event: TradeEvent, at: datetime) -> Trade:
    if isinstance(event, TradeOpened):
        return Trade(
            event.trade_id,
            event.match_id,
            event.winner,
            event.loser,
            event.offered,
            event.deadline,
            event.opened_at,
            event.rule,
            event.count,
            version=1,
        )
    if state is None:
        raise ValueError(f"{type(event).__name__} before TradeOpened")
    if isinstance(event, TradeCardChosen):
        return replace(
            state,
            version=state.version + 1,
            chosen=(*state.chosen, event.copy_id),
            auto_picked=event.auto_picked,
        )
    if isinstance(event, CopyTransferred) and state.rule in (TradeRule.ALL, TradeRule.DIRECT):
        # Nobody chooses: what moves is what the rule moved.
        return replace(
            state,
            version=state.version + 1,
            chosen=(*state.chosen, event.copy_id),
            completed_at=at,
        )
    return replace(state, version=state.version + 1, completed_at=at)


def fold(events: Sequence[tuple[TradeEvent, datetime]]) -> Trade | None:
    state: Trade | None = None
    for event, at in events:
        state = evolve(state, event, at)
    return state


def difference(winner_score: int, loser_score: int, deck_size: int) -> int:
    """RULES.md 13: d is the winner's score minus the loser's, capped at the deck size;
    at least 1 (a forfeit loses a card even when the forfeiting player led)."""
    return max(1, min(winner_score - loser_score, deck_size))


def open_trade(
    match_id: str,
    winner: PlayerRef,
    loser: PlayerRef,
    offered: Sequence[OwnedCopy],
    now: datetime,
    choice_seconds: float = CHOICE_SECONDS,
    rule: TradeRule = TradeRule.ONE,
    count: int = 1,
) -> TradeOpened:
    """A trade that waits for the winner's choice (One: ``count`` 1; Difference)."""
    return TradeOpened(
        trade_id_for(match_id),
        match_id,
        winner,
        loser,
        tuple(offered),
        now + timedelta(seconds=choice_seconds),
        now,
        rule,
        min(count, len(offered)),
    )


def _moved(copy: OwnedCopy, to: str, now: datetime) -> OwnedCopy:
    return replace(copy, owner_id=to, source=CopySource.TRADE, acquired_at=now)


def _transfer(trade: Trade, copy: OwnedCopy, now: datetime) -> CopyTransferred:
    moved = _moved(copy, trade.winner.player_id, now)
    return CopyTransferred(
        trade.trade_id, copy.copy_id, trade.loser.player_id, trade.winner.player_id, moved
    )


def settle_at_once(
    match_id: str,
    winner: PlayerRef,
    loser: PlayerRef,
    rule: TradeRule,
    moving: Sequence[tuple[OwnedCopy, str]],
    now: datetime,
) -> list[TradeEvent]:
    """All and Direct (RULES.md 13): the trade opens and every copy of ``moving`` (the
    copy as its owner holds it, and who receives it) moves in the same events. With
    Direct on a draw, ``winner`` and ``loser`` are simply the two players."""
    trade_id = trade_id_for(match_id)
    offered = tuple(copy for copy, _ in moving)
    events: list[TradeEvent] = [
        TradeOpened(trade_id, match_id, winner, loser, offered, now, now, rule, len(offered))
    ]
    for copy, to in moving:
        events.append(
            CopyTransferred(trade_id, copy.copy_id, copy.owner_id, to, _moved(copy, to, now))
        )
    return events


def choose(
    trade: Trade | None,
    trade_id: str,
    player_id: str,
    copy_ids: Sequence[str],
    now: datetime,
) -> tuple[TradeEvent, ...]:
    """The winner takes one of the loser's original cards (RULES.md 7), or, under
    Difference, the trade's d cards at once (RULES.md 13)."""
    if trade is None:
        raise no_trade(trade_id)
    trade.party(player_id)
    if len(set(copy_ids)) != len(copy_ids):  # malformed whatever the trade is at
        raise CopyNotOffered("each card can be taken once: name each copy only once")
    if trade.rule in (TradeRule.ALL, TradeRule.DIRECT):
        raise AlreadyChosen(
            f"a {trade.rule.label} trade has no choice: its cards moved when the match ended"
        )
    if player_id != trade.winner.player_id:
        raise NotTheChooser("only the winner chooses the card; the loser gives it")
    offered = {c.copy_id: c for c in trade.offered}
    if trade.chosen:
        names = ", ".join(
            _label(offered[i]) if i in offered else card_label(i) for i in trade.chosen
        )
        moves = "one card" if trade.count == 1 else f"{trade.count} cards, chosen at once"
        raise AlreadyChosen(
            f"{'cards were' if len(trade.chosen) > 1 else 'a card was'} already chosen"
            f"{' by the server' if trade.auto_picked else ''}: {names}; a trade moves {moves}"
        )
    if now >= trade.deadline:  # the moment auto_pick decides from
        raise ChoiceTooLate(
            f"the choice closed at {trade.deadline.isoformat(timespec='seconds')}; "
            f"the server picks {'a card' if trade.count == 1 else 'the cards'} at random"
        )
    for copy_id in copy_ids:
        if copy_id not in offered:
            raise CopyNotOffered(
                f"{card_label(copy_id)} is not in the loser's deck of this match; choose "
                f"{'one' if trade.count == 1 else trade.count} of "
                f"{', '.join(_label(c) for c in offered.values())}"
            )
    if len(copy_ids) != trade.count:
        raise CopyNotOffered(
            f"this {trade.rule.label} trade takes {trade.count} "
            f"card{'s' if trade.count != 1 else ''}, all in one choice; "
            f"{len(copy_ids)} {'was' if len(copy_ids) == 1 else 'were'} named"
        )
    chosen: list[TradeEvent] = [TradeCardChosen(trade.trade_id, i, False) for i in copy_ids]
    moved: list[TradeEvent] = [_transfer(trade, offered[i], now) for i in copy_ids]
    return (*chosen, *moved)


def auto_pick(trade: Trade, drawn: Sequence[int], now: datetime) -> tuple[TradeEvent, ...] | None:
    """At the deadline the server picks the cards the handler drew (``count`` distinct
    indices into ``offered``); None if chosen or not due."""
    if trade.chosen or trade.completed or now < trade.deadline:
        return None
    copies = [trade.offered[i] for i in drawn]
    chosen: list[TradeEvent] = [
        TradeCardChosen(trade.trade_id, c.copy_id, True, i)
        for c, i in zip(copies, drawn, strict=True)
    ]
    return (*chosen, *(_transfer(trade, c, now) for c in copies))
