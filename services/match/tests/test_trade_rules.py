"""What a finished match tells the collection about its trade rule (RULES.md 7, 13): the
table's rule between two humans with a winner, Direct whatever the result, nothing with
a bot; the event's bytes carry the rule, each seat's score and its cards on the board."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev
from triad.v1 import match_pb2 as m

from services.match import codec, domain
from services.match.domain.events import MatchCreated, MatchFinished, MatchRules, TradeRule
from services.match.server import _setup
from services.match.tests.builders import created, later
from services.match.tests.test_domain import play_out
from services.platform.errors import InvalidArgument
from services.rules import Seat
from services.rules.compatibility import rule_set_problem


def started_with(rule: TradeRule, bot_b: bool = False) -> domain.Match:
    first, *rest = created(bot_b=bot_b, trade_one=False)
    assert isinstance(first, MatchCreated)
    match = domain.fold([replace(first, setup=replace(first.setup, trade=rule)), *rest])
    assert match is not None
    return match


def finished_games(rule: TradeRule) -> list[MatchFinished]:
    games = []
    for seed in range(60):
        match, _ = play_out(started_with(rule), Random(seed))
        assert match.finished is not None
        games.append(match.finished)
    assert any(g.winner is None for g in games) and any(g.winner is not None for g in games)
    return games


@pytest.mark.parametrize("rule", [TradeRule.DIFFERENCE, TradeRule.ALL, TradeRule.ONE])
def test_a_rule_that_needs_a_winner_applies_only_when_there_is_one(rule: TradeRule) -> None:
    for game in finished_games(rule):
        assert game.trade is (TradeRule.NONE if game.winner is None else rule)


def test_direct_applies_whatever_the_result_and_the_event_carries_the_final_board() -> None:
    for game in finished_games(TradeRule.DIRECT):
        assert game.trade is TradeRule.DIRECT
        message = ev.MatchFinished.FromString(codec.encode(game, {}).data)
        assert message.trade_rule == pb.TRADE_RULE_DIRECT
        seats = message.seats
        assert [s.score for s in seats] == list(game.scores)
        assert [tuple(s.board_card_ids) for s in seats] == list(game.board_cards)
        assert sum(len(b) for b in game.board_cards) == 9


def test_a_forfeit_settles_from_the_board_and_scores_of_that_moment() -> None:
    match = started_with(TradeRule.DIFFERENCE)
    seat = match.position.to_move
    index, cell = match.position.legal_moves()[0]
    card_id = match.position.hand(seat)[index].id
    step = domain.place(match, match.player(seat).player_id, card_id, cell, later(1))
    match = domain.fold(step.events, match) or match
    finished = domain.forfeit(match, match.player(seat).player_id, later(2)).events[-1]
    assert isinstance(finished, MatchFinished)
    assert finished.trade is TradeRule.DIFFERENCE and finished.winner is not None
    assert finished.board_cards[0 if seat is Seat.A else 1] == (card_id,)


def test_a_match_with_a_bot_trades_nothing_whatever_the_rule() -> None:
    match = started_with(TradeRule.DIRECT, bot_b=True)
    finished = domain.forfeit(match, "p-a", later(1)).events[-1]
    assert isinstance(finished, MatchFinished) and finished.trade is TradeRule.NONE


@pytest.mark.parametrize("name", ["Trade One", "Direct", "Difference", "All"])
def test_every_trade_rule_needs_closed_same_plus_and_combo(name: str) -> None:
    """RULES.md 13 Decision: Direct with All Open is refused, like every trade rule."""
    assert rule_set_problem(closed=True, same=True, plus=True, combo=True, trade=name) is None
    problem = rule_set_problem(closed=False, same=True, plus=True, combo=True, trade=name)
    assert problem == (
        f"{name} needs Closed visibility with Same, Plus and Combo on; "
        "this rule set lacks Closed visibility"
    )


def test_create_match_takes_every_trade_rule_and_refuses_one_it_cannot_play() -> None:
    def setup(**rules: object) -> MatchRules:
        request = m.MatchServiceCreateMatchRequest(
            mode=pb.MODE_CUSTOM,
            rules=pb.Rules(visibility=pb.VISIBILITY_CLOSED, **rules),  # type: ignore[arg-type]
        )
        return _setup(request)[0]

    assert setup().trade is TradeRule.NONE  # unset: no trade
    every = {"same": True, "plus": True, "combo": True}
    assert setup(trade_rule=pb.TRADE_RULE_DIRECT, **every).trade is TradeRule.DIRECT
    assert setup(trade_rule=pb.TRADE_RULE_ALL, **every).trades
    with pytest.raises(InvalidArgument, match=r"^Difference needs Closed visibility"):
        setup(trade_rule=pb.TRADE_RULE_DIFFERENCE, same=True, plus=True)
    with pytest.raises(InvalidArgument, match=r"rules\.trade_rule 9 is not"):
        setup(trade_rule=9, **every)
