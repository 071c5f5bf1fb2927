"""Trades as a pure aggregate (RULES.md 7, 13): who may choose what, and when."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from services.collection.domain import trade
from services.collection.domain.events import (
    CopySource,
    CopyTransferred,
    PlayerRef,
    TradeCardChosen,
)
from services.collection.tests.builders import T0, legal_copies

WINNER = PlayerRef("w", "Winnie")
LOSER = PlayerRef("l", "Lou")


def opened() -> trade.Trade:
    offered = legal_copies(owner="l")
    event = trade.open_trade("m1", WINNER, LOSER, offered, T0)
    state = trade.evolve(None, event, T0)
    return state


def test_the_trade_id_is_derived_from_the_match() -> None:
    assert trade.trade_id_for("m1") == trade.trade_id_for("m1") != trade.trade_id_for("m2")
    assert opened().deadline == T0 + timedelta(seconds=120)


def test_the_winner_takes_an_offered_copy_with_its_holo_and_becomes_its_owner() -> None:
    state = opened()
    chosen, moved = trade.choose(state, state.trade_id, "w", ["c2"], T0 + timedelta(seconds=5))
    assert chosen == TradeCardChosen(state.trade_id, "c2", False)
    assert isinstance(moved, CopyTransferred)
    assert (moved.from_player_id, moved.to_player_id) == ("l", "w")
    assert moved.copy.owner_id == "w" and moved.copy.source is CopySource.TRADE
    assert moved.copy.character == state.offered[2].character
    assert (moved.copy.holo, moved.copy.holo_side) == (
        state.offered[2].holo,
        state.offered[2].holo_side,
    )


def test_bad_choices_are_refused_with_the_rule_named() -> None:
    state = opened()
    later = T0 + timedelta(seconds=10)
    with pytest.raises(trade.NotTheChooser, match="only the winner"):
        trade.choose(state, state.trade_id, "l", ["c1"], later)
    with pytest.raises(trade.TradeNotFound):
        trade.choose(state, state.trade_id, "stranger", ["c1"], later)
    with pytest.raises(trade.CopyNotOffered, match="not in the loser's deck"):
        trade.choose(state, state.trade_id, "w", ["elsewhere"], later)
    closed = (T0 + timedelta(seconds=120)).isoformat(timespec="seconds")
    with pytest.raises(trade.ChoiceTooLate, match=f"closed at {re.escape(closed)}"):
        trade.choose(state, state.trade_id, "w", ["c1"], T0 + timedelta(seconds=121))
    chosen, moved = trade.choose(state, state.trade_id, "w", ["c1"], later)
    after = trade.evolve(trade.evolve(state, chosen, later), moved, later)
    with pytest.raises(trade.AlreadyChosen, match=r"Pebblewick \(c1\)"):
        trade.choose(after, state.trade_id, "w", ["c0"], later)


def test_at_the_deadline_the_server_picks_the_drawn_card_and_records_the_draw() -> None:
    state = opened()
    assert trade.auto_pick(state, [3], T0 + timedelta(seconds=119)) is None
    picked = trade.auto_pick(state, [3], state.deadline)
    assert picked is not None
    chosen, moved = picked
    assert isinstance(chosen, TradeCardChosen) and isinstance(moved, CopyTransferred)
    assert chosen.auto_picked and chosen.drawn_index == 3 and chosen.copy_id == "c3"
    assert moved.copy_id == "c3"
    done = trade.evolve(trade.evolve(state, chosen, state.deadline), moved, state.deadline)
    assert done.completed and done.auto_picked
    assert trade.auto_pick(done, [1], state.deadline) is None


def test_at_the_deadline_itself_the_choice_is_closed_as_the_server_picks() -> None:
    """RULES.md 7: the winner has 2 minutes. The instant the server's pick is due
    (``auto_pick`` at ``now >= deadline``) no longer accepts the winner's own choice,
    so the outcome never depends on which of the two is processed first."""
    state = opened()
    assert trade.choose(state, state.trade_id, "w", ["c1"], T0 + timedelta(seconds=119.999))
    with pytest.raises(trade.ChoiceTooLate):
        trade.choose(state, state.trade_id, "w", ["c1"], state.deadline)
    assert trade.auto_pick(state, [1], state.deadline) is not None
