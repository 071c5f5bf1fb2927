"""Trade rules at custom tables (RULES.md 13, 16): None, One, Direct, Difference or All
cross the edge both ways, are kept by the table (in memory and in PostgreSQL) and the
start plan, filter the lobby, and reach CreateMatch; a trade rule without Closed, Same,
Plus and Combo is refused naming the rule; practice never trades."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from triad.v1 import common_pb2 as pb

from services.matchmaker import handlers_lobby, handlers_queues, mapping
from services.matchmaker.domain import (
    DeckChoice,
    Mode,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    Table,
    TableFilter,
    TableSettings,
    TradeRule,
    Visibility,
)
from services.matchmaker.handlers import Context
from services.matchmaker.store import TableQuery
from services.matchmaker.store.plans import plan_from, plan_json
from services.matchmaker.tests.conftest import DECK, Fakes, player
from services.matchmaker.tests.test_store_contract import Adapter, adapter, key
from services.matchmaker.tests.test_store_contract_lobby import table
from services.platform.errors import InvalidArgument

__all__ = ["adapter"]  # the fixture, parametrised over both adapters

RULES = {
    TradeRule.ONE: pb.TRADE_RULE_ONE,
    TradeRule.DIRECT: pb.TRADE_RULE_DIRECT,
    TradeRule.DIFFERENCE: pb.TRADE_RULE_DIFFERENCE,
    TradeRule.ALL: pb.TRADE_RULE_ALL,
}


def closed(trade: TradeRule) -> RuleSet:
    return RuleSet(Visibility.CLOSED, True, True, True, trade=trade)


@pytest.mark.parametrize("trade", list(RULES))
def test_every_trade_rule_crosses_the_edge_both_ways(trade: TradeRule) -> None:
    message = pb.Rules(
        visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True, trade_rule=RULES[trade]
    )
    rules = mapping.rules_back(message)
    assert rules == closed(trade) and rules.trades
    assert mapping.rules(rules).trade_rule == RULES[trade]
    assert mapping.rules_back(pb.Rules(visibility=pb.VISIBILITY_CLOSED)).trade is TradeRule.NONE
    with pytest.raises(InvalidArgument, match=r"rules\.trade_rule"):
        mapping.rules_back(pb.Rules(visibility=pb.VISIBILITY_CLOSED, trade_rule=42))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("trade", "name"),
    [(TradeRule.DIRECT, "Direct"), (TradeRule.DIFFERENCE, "Difference"), (TradeRule.ALL, "All")],
)
async def test_a_trade_rule_without_closed_same_plus_and_combo_is_refused_by_name(
    ctx: Context, trade: TradeRule, name: str
) -> None:
    """RULES.md 13 Decision: Direct with All Open, for one, is refused."""
    open_table = TableSettings(RuleSet(Visibility.ALL_OPEN, True, True, True, trade=trade))
    with pytest.raises(
        InvalidArgument,
        match=f"^{name} needs Closed visibility with Same, Plus and Combo on; "
        "this rule set lacks Closed visibility$",
    ):
        await handlers_lobby.create_table(ctx, "t", player("ho"), open_table, DECK)
    with pytest.raises(InvalidArgument, match="lacks Combo"):
        no_combo = RuleSet(Visibility.CLOSED, True, True, False, trade=trade)
        await handlers_lobby.create_table(ctx, "t2", player("ho"), TableSettings(no_combo), DECK)
    with pytest.raises(InvalidArgument, match="practice never trades"):
        await handlers_queues.start_practice(
            ctx, "p", player("pr"), Mode.CUSTOM, None, DeckChoice(random=True), closed(trade)
        )


async def test_a_difference_table_starts_a_match_that_trades_difference(
    ctx: Context, fakes: Fakes
) -> None:
    settings = TableSettings(closed(TradeRule.DIFFERENCE))
    hosted = await handlers_lobby.create_table(ctx, "t", player("ho"), settings, DECK)
    joined = await handlers_lobby.join_table(ctx, "j", player("gu"), hosted.table_id, DECK)
    spec = fakes.matches.created[joined.match_id]
    assert spec.rules.trade is TradeRule.DIFFERENCE
    assert mapping.rules(spec.rules).trade_rule == pb.TRADE_RULE_DIFFERENCE


async def test_a_table_keeps_its_trade_rule_and_the_lobby_filters_by_it(
    adapter: Adapter,
) -> None:
    made = [
        _with(table("di", 0), closed(TradeRule.DIRECT)),
        _with(table("df", 1), closed(TradeRule.DIFFERENCE)),
        _with(table("on", 2), closed(TradeRule.ONE)),
        table("no", 3),
    ]
    for t in made:
        await adapter.lobby.create_table(t, key(t.host_name, "t"))

    async def shown(*trades: TradeRule) -> list[str]:
        found = await adapter.lobby.list_tables(
            TableQuery(
                "viewer",
                "viewer",
                TableFilter(trades=frozenset(trades)),
                made[0].created_at,
                10,
                None,
            )
        )
        return sorted(t.host_name for t in found)

    assert await shown(TradeRule.DIRECT) == ["di"]
    assert await shown(TradeRule.DIFFERENCE, TradeRule.NONE) == ["df", "no"]
    assert await shown() == ["df", "di", "no", "on"]
    (kept,) = [
        t
        for t in await adapter.lobby.list_tables(
            TableQuery("viewer", "viewer", TableFilter(), made[0].created_at, 10, None)
        )
        if t.host_name == "df"
    ]
    assert kept.settings.rules == closed(TradeRule.DIFFERENCE)


def _with(made: Table, rules: RuleSet) -> Table:
    return replace(made, settings=TableSettings(rules))


def test_the_start_plan_keeps_the_trade_rule_and_reads_older_plans() -> None:
    plan = StartPlan(
        start_id="s-1",
        kind=StartKind.TABLE,
        mode=Mode.CUSTOM,
        rules=closed(TradeRule.ALL),
        seats=(Seat("p-0", "ann", deck=DECK), Seat("p-1", "bea", deck=DECK)),
        match_id="m-1",
        origin_id="t-1",
        table_id="t-1",
    )
    assert plan_from(plan_json(plan)) == plan
    older = json.loads(plan_json(plan))
    older["rules"][6] = True  # written before trade rules: the Trade One flag
    assert plan_from(json.dumps(older)).rules.trade is TradeRule.ONE
    older["rules"][6] = False
    assert plan_from(json.dumps(older)).rules.trade is TradeRule.NONE


@pytest.mark.parametrize("rule", list(RULES))
async def test_a_trade_rule_takes_every_other_rule_on_a_larger_board(
    ctx: Context, rule: TradeRule
) -> None:
    """RULES.md 13 Decision: Elemental, Same Wall, Sudden Death, Random and larger boards
    may be added to a trading table (Closed, Same, Plus, Combo); house hands may not."""
    rules = replace(
        closed(rule), elemental=True, same_wall=True, sudden_death=True, board=5, blocked=5
    )
    settings = TableSettings(rules, random_deck=True)
    hosted = await handlers_lobby.create_table(ctx, "t", player("ho"), settings, None)
    assert hosted.settings.rules == rules
    assert mapping.rules_back(mapping.rules(rules)) == rules
    with pytest.raises(InvalidArgument, match="house hands never trade"):
        await handlers_lobby.create_table(
            ctx, "t2", player("h2"), TableSettings(replace(rules, house_hands=True)), None
        )
