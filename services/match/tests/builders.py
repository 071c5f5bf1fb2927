"""Builders for match-domain tests: two seats, two hands, a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.match import domain
from services.match.domain.events import (
    MatchCard,
    MatchEvent,
    MatchRules,
    Mode,
    SeatPlayer,
    TradeRule,
)
from services.rules import Rules, Seat, Visibility

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ALL = Rules(same=True, plus=True, combo=True)


def card(card_id: str, sides: tuple[int, int, int, int] = (5, 5, 5, 5)) -> MatchCard:
    return MatchCard(card_id, f"chr-{card_id}", f"Card {card_id}", 1, None, sides, sides)


def hand(prefix: str) -> tuple[MatchCard, ...]:
    return tuple(card(f"{prefix}{i}", (i + 1, i + 2, i + 1, i + 2)) for i in range(5))


def players(bot_b: bool = False) -> tuple[SeatPlayer, SeatPlayer]:
    b = SeatPlayer("p-b", "[BOT] Ada", True, "novice") if bot_b else SeatPlayer("p-b", "Bea")
    return SeatPlayer("p-a", "Ann"), b


def created(
    visibility: Visibility = Visibility.ALL_OPEN,
    mode: Mode = Mode.RANKED,
    bot_b: bool = False,
    first: Seat = Seat.A,
    trade_one: bool = True,
    turn_seconds: float = 60,
) -> list[MatchEvent]:
    setup = MatchRules(
        mode,
        ALL,
        visibility,
        trade=TradeRule.ONE if trade_one else TradeRule.NONE,
        ladder="ranked" if mode == Mode.RANKED else "",
    )
    hands = (hand("a"), hand("b"))
    reveal = {Visibility.ALL_OPEN: 5, Visibility.CLOSED: 0, Visibility.THREE_OPEN: 3}[visibility]
    draws = domain.StartDraws(
        first,
        (None,) * 9,
        (
            frozenset(c.card_id for c in hands[0][:reveal]),
            frozenset(c.card_id for c in hands[1][5 - reveal :]),
        ),
    )
    return domain.create(
        None, "m1", setup, players(bot_b), hands, draws, T0, turn_seconds, 120
    ).events


def started(**kw: object) -> domain.Match:
    match = domain.fold(created(**kw))  # type: ignore[arg-type]
    assert match is not None
    return match


def after(match: domain.Match, step: domain.Decision | list[MatchEvent]) -> domain.Match:
    """The state after ``step``: a decision's own state, checked to be what folding its
    events gives (a decision computes its state once; replay must agree)."""
    events = step.events if isinstance(step, domain.Decision) else step
    result = domain.fold(events, match)
    assert result is not None
    if isinstance(step, domain.Decision):
        assert step.state == result, "the decided state differs from its events folded"
    return result


def later(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)
