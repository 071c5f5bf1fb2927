"""Trade One (RULES.md 7) as a small aggregate: a fold of its stream and its decisions.

A trade opens from a finished match with a winner and Trade One in force. The winner
chooses one copy of the loser's original five within the choice window (2 minutes);
after it the server picks one at random, drawn by the handler and recorded. The
chosen copy moves with its holo bonus in the same transaction as the choice, so there
is no moment at which the choice is known and the copy has not moved.
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
    TradeTerms,
)
from services.match.rules.deck import card_label
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    short_id,
)

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
    chosen: str | None = None
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
            version=1,
        )
    if state is None:
        raise ValueError(f"{type(event).__name__} before TradeOpened")
    if isinstance(event, TradeCardChosen):
        return replace(
            state, version=state.version + 1, chosen=event.copy_id, auto_picked=event.auto_picked
        )
    return replace(state, version=state.version + 1, completed_at=at)


def fold(events: Sequence[tuple[TradeEvent, datetime]]) -> Trade | None:
    state: Trade | None = None
    for event, at in events:
        state = evolve(state, event, at)
    return state


def open_trade(
    match_id: str,
    winner: PlayerRef,
    loser: PlayerRef,
    offered: Sequence[OwnedCopy],
    now: datetime,
    choice_seconds: float = CHOICE_SECONDS,
) -> TradeOpened:
    return TradeOpened(
        trade_id_for(match_id),
        match_id,
        winner,
        loser,
        tuple(offered),
        now + timedelta(seconds=choice_seconds),
        now,
    )


def _transfer(trade: Trade, copy: OwnedCopy, now: datetime) -> CopyTransferred:
    moved = replace(copy, owner_id=trade.winner.player_id, source=CopySource.TRADE, acquired_at=now)
    return CopyTransferred(
        trade.trade_id, copy.copy_id, trade.loser.player_id, trade.winner.player_id, moved
    )


def choose(
    trade: Trade | None, trade_id: str, player_id: str, copy_id: str, now: datetime
) -> tuple[TradeCardChosen, CopyTransferred]:
    """The winner takes one of the loser's original five (RULES.md 7)."""
    if trade is None:
        raise no_trade(trade_id)
    trade.party(player_id)
    if player_id != trade.winner.player_id:
        raise NotTheChooser("only the winner chooses the card; the loser gives it")
    offered = {c.copy_id: c for c in trade.offered}
    if trade.chosen is not None:
        chosen = offered.get(trade.chosen)
        raise AlreadyChosen(
            f"a card was already chosen{' by the server' if trade.auto_picked else ''}: "
            f"{_label(chosen) if chosen else card_label(trade.chosen)}; a trade moves one card"
        )
    if now > trade.deadline:
        raise ChoiceTooLate(
            f"the choice closed at {trade.deadline.isoformat(timespec='seconds')}; "
            "the server picks a card at random"
        )
    if copy_id not in offered:
        raise CopyNotOffered(
            f"{card_label(copy_id)} is not in the loser's deck of this match; choose one of "
            f"{', '.join(_label(c) for c in offered.values())}"
        )
    return TradeCardChosen(trade.trade_id, copy_id, False), _transfer(trade, offered[copy_id], now)


def auto_pick(
    trade: Trade, drawn_index: int, now: datetime
) -> tuple[TradeCardChosen, CopyTransferred] | None:
    """At the deadline the server picks the card the handler drew; None if chosen."""
    if trade.chosen is not None or now < trade.deadline:
        return None
    copy = trade.offered[drawn_index]
    return (
        TradeCardChosen(trade.trade_id, copy.copy_id, True, drawn_index),
        _transfer(trade, copy, now),
    )
