"""Sudden Death (RULES.md 12, 16) reaches the match a table or practice starts: the
request's flag is kept by the rule set, the table as stored (in memory and in
PostgreSQL), the start plan's JSON and the CreateMatch rules."""

from __future__ import annotations

import json
from random import Random

from triad.v1 import common_pb2 as pb

from services.matchmaker import mapping
from services.matchmaker.clients import draw_deck
from services.matchmaker.domain import (
    DeckChoice,
    Mode,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    TableFilter,
    Visibility,
)
from services.matchmaker.domain.modes import practice_rules
from services.matchmaker.store import TableQuery
from services.matchmaker.store.plans import plan_from, plan_json
from services.matchmaker.tests.test_store_contract import Adapter, adapter, key
from services.matchmaker.tests.test_store_contract_lobby import table

__all__ = ["adapter"]  # the fixture, parametrised over both adapters

SUDDEN = RuleSet(Visibility.THREE_OPEN, same=True, elemental=True, sudden_death=True)


def test_the_flag_crosses_the_edge_both_ways_and_into_practice() -> None:
    message = pb.Rules(visibility=pb.VISIBILITY_THREE_OPEN, same=True, sudden_death=True)
    rules = mapping.rules_back(message)
    assert rules.sudden_death and mapping.rules(rules).sudden_death
    assert not mapping.rules_back(pb.Rules(visibility=pb.VISIBILITY_CLOSED)).sudden_death
    assert practice_rules(Mode.CUSTOM, rules, 0).sudden_death
    assert rules.without_trade().sudden_death


async def test_a_table_keeps_sudden_death(adapter: Adapter) -> None:
    kept, plain = table("sd", 0, sudden_death=True), table("pl", 1)
    for t in (kept, plain):
        await adapter.lobby.create_table(t, key(t.host_name, "t"))
    found = await adapter.lobby.table(kept.table_id)
    assert found == kept and found is not None and found.settings.rules.sudden_death
    other = await adapter.lobby.table(plain.table_id)
    assert other is not None and not other.settings.rules.sudden_death


async def test_the_lobby_filters_by_sudden_death(adapter: Adapter) -> None:
    """RULES.md 6: tables are "filterable by rule"; Sudden Death is one (RULES.md 12)."""
    kept, plain = table("sd", 0, sudden_death=True), table("pl", 1)
    for t in (kept, plain):
        await adapter.lobby.create_table(t, key(t.host_name, "t"))

    async def listed(filters: TableFilter) -> set[str]:
        tables = await adapter.lobby.list_tables(
            TableQuery("v", "viewer", filters, plain.created_at, 10, None)
        )
        return {t.host_name for t in tables}

    assert await listed(TableFilter()) == {"sd", "pl"}
    assert await listed(TableFilter(sudden_death=True)) == {"sd"}
    assert await listed(TableFilter(sudden_death=False)) == {"pl"}
    oldest = await adapter.lobby.oldest_table(
        "v", TableFilter(sudden_death=False), plain.created_at, ()
    )
    assert oldest is not None and oldest.host_name == "pl"


def test_the_filter_crosses_the_edge_set_or_unset() -> None:
    assert mapping.table_filter_back(pb.TableFilter(sudden_death=True)).sudden_death is True
    assert mapping.table_filter_back(pb.TableFilter(sudden_death=False)).sudden_death is False
    assert mapping.table_filter_back(pb.TableFilter()).sudden_death is None


def test_a_start_plan_keeps_sudden_death_and_an_older_plan_reads_without() -> None:
    plan = StartPlan(
        start_id="s-1",
        kind=StartKind.TABLE,
        mode=Mode.CUSTOM,
        rules=SUDDEN,
        seats=tuple(
            Seat(f"p-{n}", name, deck=DeckChoice(random=True),
                 cards=draw_deck(Random(n), name, "owned_copy"))
            for n, name in enumerate(("ann", "bea"))
        ),  # type: ignore[arg-type]
        match_id="m-1",
        origin_id="t-1",
        table_id="t-1",
    )  # fmt: skip
    assert plan_from(plan_json(plan)) == plan
    older = json.loads(plan_json(plan))
    older["rules"] = older["rules"][:7]  # written before the flag
    assert not plan_from(json.dumps(older)).rules.sudden_death
