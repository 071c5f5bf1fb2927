"""Realm tables (RULES.md 17, issue 20) from the lobby to the match: the Realm family
and its modules cross the edge both ways, are kept by the table (in memory and in
PostgreSQL) and the start plan, and reach CreateMatch; a Realm Sudden Death table's
match gets a draw pile of ten catalog cards, the same on a retried start. What a Realm
table cannot play is refused saying why."""

from __future__ import annotations

import json
from dataclasses import replace
from random import Random

import pytest
from triad.v1 import common_pb2 as pb

from services.matchmaker import handlers_find, handlers_lobby, handlers_queues, mapping
from services.matchmaker.clients import draw_deck
from services.matchmaker.domain import (
    DeckChoice,
    Mode,
    RealmModules,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    TableFilter,
    TableSettings,
    TradeRule,
    Visibility,
)
from services.matchmaker.handlers import Context
from services.matchmaker.store import RequestReused, TableQuery
from services.matchmaker.store.plans import plan_from, plan_json
from services.matchmaker.tests.conftest import DECK, Fakes, player
from services.matchmaker.tests.test_store_contract import Adapter, adapter, key
from services.matchmaker.tests.test_store_contract_lobby import table
from services.platform.errors import InvalidArgument, NotFound

__all__ = ["adapter"]

EVERY_MODULE = RealmModules(True, True, True, True, True)
GREAT_CLOTH = RuleSet(
    Visibility.ALL_OPEN,
    same=True,
    plus=True,
    combo=True,
    sudden_death=True,
    board=4,
    house_hands=True,
    realm=EVERY_MODULE,
)


def test_the_realm_family_crosses_the_edge_both_ways() -> None:
    message = mapping.rules(GREAT_CLOTH)
    assert message.family == pb.RULES_FAMILY_REALM and message.realm.alignment_clash
    assert mapping.rules_back(message) == GREAT_CLOTH
    standard = mapping.rules(RuleSet(Visibility.CLOSED))
    assert standard.family == pb.RULES_FAMILY_UNSPECIFIED and not standard.HasField("realm")
    only_combo = pb.Rules(visibility=pb.VISIBILITY_CLOSED, combo=True, family=pb.RULES_FAMILY_REALM)
    assert mapping.rules_back(only_combo).realm == RealmModules()
    assert RealmModules.parse(EVERY_MODULE.text) == EVERY_MODULE


@pytest.mark.parametrize(
    ("rules", "says"),
    [
        (RuleSet(Visibility.ALL_OPEN, board=5, realm=RealmModules()), "not 5x5"),
        (RuleSet(Visibility.ALL_OPEN, elemental=True, realm=RealmModules()), "Elemental"),
        (
            RuleSet(
                Visibility.CLOSED,
                same=True,
                plus=True,
                combo=True,
                trade=TradeRule.ONE,
                realm=RealmModules(),
            ),
            "never trade",
        ),
    ],
)
async def test_what_a_realm_table_cannot_play_is_refused_saying_why(
    ctx: Context, rules: RuleSet, says: str
) -> None:
    with pytest.raises(InvalidArgument, match=says):
        await handlers_lobby.create_table(ctx, "t", player("ho"), TableSettings(rules), DECK)


def test_realm_modules_without_the_family_are_refused() -> None:
    message = pb.Rules(visibility=pb.VISIBILITY_CLOSED, realm=pb.RealmModules(lair=True))
    with pytest.raises(InvalidArgument, match="family REALM"):
        mapping.rules_back(message)


async def test_a_table_keeps_its_realm_modules_and_lists_them(adapter: Adapter) -> None:
    realm = replace(table("re", 0), settings=TableSettings(GREAT_CLOTH))
    plain = table("pl", 1)
    for t in (realm, plain):
        await adapter.lobby.create_table(t, key(t.host_name, "t"))
    found = await adapter.lobby.table(realm.table_id)
    assert found is not None and found.settings.rules.realm == EVERY_MODULE
    assert (await adapter.lobby.table(plain.table_id)).settings.rules.realm is None  # type: ignore[union-attr]
    listed = await adapter.lobby.list_tables(
        TableQuery("v", "viewer", TableFilter(), realm.created_at, 10, None)
    )
    shown = {t.host_name: mapping.table(t).settings.rules for t in listed}
    assert shown["re"].family == pb.RULES_FAMILY_REALM and shown["re"].realm.cursed
    assert shown["pl"].family == pb.RULES_FAMILY_UNSPECIFIED

    async def hosts(realm: bool) -> list[str]:
        wanted = mapping.table_filter_back(pb.TableFilter(realm=realm))
        found = await adapter.lobby.list_tables(
            TableQuery("v", "viewer", wanted, realm_at, 10, None)
        )
        oldest = await adapter.lobby.oldest_table("v", wanted, realm_at, ())
        assert oldest is not None and oldest.host_name == found[-1].host_name
        return [t.host_name for t in found]

    realm_at = realm.created_at
    assert await hosts(True) == ["re"] and await hosts(False) == ["pl"]
    for realm_flag in (None, False):  # modules without realm: refused, not "no table fits"
        with pytest.raises(InvalidArgument, match=r"set filter\.realm true"):
            modules = pb.RealmModules(lair=True)
            mapping.table_filter_back(pb.TableFilter(realm=realm_flag, realm_modules=modules))


async def test_find_game_like_this_takes_only_a_realm_table_with_the_same_modules(
    adapter: Adapter,
) -> None:
    """Found from outside: Find Game with Realm and only Cursed ticked seated the player
    at a Realm table with only Lair on. The filter names the modules, exactly."""
    lair = RuleSet(Visibility.ALL_OPEN, realm=RealmModules(lair=True))
    bare = RuleSet(Visibility.ALL_OPEN, realm=RealmModules())
    for n, rules in enumerate((lair, bare, GREAT_CLOTH)):
        t = replace(table(f"h{n}", n), settings=TableSettings(rules))
        await adapter.lobby.create_table(t, key(t.host_name, "t"))
    at = table("x", 9).created_at

    async def hosts(**modules: bool) -> list[str]:
        wanted = mapping.table_filter_back(
            pb.TableFilter(realm=True, realm_modules=pb.RealmModules(**modules))
        )
        found = await adapter.lobby.list_tables(TableQuery("v", "viewer", wanted, at, 10, None))
        oldest = await adapter.lobby.oldest_table("v", wanted, at, ())
        assert ([oldest.host_name] if oldest else []) == [t.host_name for t in found][-1:]
        return sorted(t.host_name for t in found)

    assert await hosts(cursed=True) == []
    assert await hosts(lair=True) == ["h0"]
    assert await hosts() == ["h1"]
    every = dict.fromkeys(
        ("type_advantage", "alignment_clash", "lair", "resistance", "cursed"), True
    )
    assert await hosts(**every) == ["h2"]
    # Without the modules, any Realm table.
    wanted = mapping.table_filter_back(pb.TableFilter(realm=True))
    listed = await adapter.lobby.list_tables(TableQuery("v", "viewer", wanted, at, 10, None))
    assert len(listed) == 3


def test_a_start_plan_keeps_the_realm_modules_and_an_older_plan_reads_standard() -> None:
    plan = StartPlan(
        start_id="s-1",
        kind=StartKind.TABLE,
        mode=Mode.CUSTOM,
        rules=GREAT_CLOTH,
        seats=tuple(
            Seat(f"p-{n}", name, deck=DeckChoice(random=True),
                 cards=draw_deck(Random(n), name, "house", 8))
            for n, name in enumerate(("ann", "bea"))
        ),  # type: ignore[arg-type]
        match_id="m-1",
        origin_id="t-1",
        table_id="t-1",
    )  # fmt: skip
    assert plan_from(plan_json(plan)) == plan
    older = json.loads(plan_json(plan))
    older["rules"] = older["rules"][:11]  # written before Realm tables
    assert plan_from(json.dumps(older)).rules.realm is None


async def test_a_realm_great_cloth_table_starts_a_match_with_typed_hands_and_a_pile(
    ctx: Context, fakes: Fakes
) -> None:
    hosted = await handlers_lobby.create_table(
        ctx, "t", player("ho"), TableSettings(GREAT_CLOTH), None
    )
    joined = await handlers_lobby.join_table(ctx, "j", player("gu"), hosted.table_id, None)
    spec = fakes.matches.created[joined.match_id]
    assert spec.rules == GREAT_CLOTH
    assert [len(s.cards) for s in spec.seats] == [8, 8]
    assert len(spec.draw_pile) == 10 and all(c.kind for c in spec.draw_pile)
    assert all(c.kind and c.alignment for s in spec.seats for c in s.cards)
    plain = await handlers_lobby.create_table(
        ctx, "t2", player("h2"), TableSettings(RuleSet(Visibility.ALL_OPEN, board=4)), DECK
    )
    other = await handlers_lobby.join_table(ctx, "j2", player("g2"), plain.table_id, DECK)
    assert fakes.matches.created[other.match_id].draw_pile == ()


async def test_a_realm_table_or_practice_with_random_decks_is_refused(ctx: Context) -> None:
    """RULES.md 17: Realm tables use house hands or saved decks."""
    realm = RuleSet(Visibility.ALL_OPEN, same=True, realm=RealmModules(lair=True))
    with pytest.raises(InvalidArgument, match="not Random decks"):
        await handlers_lobby.create_table(
            ctx, "t", player("ho"), TableSettings(realm, random_deck=True), None
        )
    with pytest.raises(InvalidArgument, match="not Random decks"):
        await handlers_queues.start_practice(
            ctx, "p", player("pr"), Mode.CUSTOM, None, DeckChoice(random=True), realm
        )
    hosted = await handlers_lobby.create_table(ctx, "t2", player("h2"), TableSettings(realm), DECK)
    assert hosted.settings.rules.realm == RealmModules(lair=True)


async def test_a_realm_3x3_table_deals_house_hands_of_five(ctx: Context, fakes: Fakes) -> None:
    """RULES.md 11 (house hands: "a 4x4 or 5x5 board (or a Realm table)") and 17 ("Realm
    tables use house hands or saved decks", on 3x3 or 4x4): a 3x3 Realm table may deal."""
    rules = replace(GREAT_CLOTH, board=3)
    assert mapping.rules_back(mapping.rules(rules)) == rules
    hosted = await handlers_lobby.create_table(ctx, "t", player("ho"), TableSettings(rules), None)
    joined = await handlers_lobby.join_table(ctx, "j", player("gu"), hosted.table_id, None)
    spec = fakes.matches.created[joined.match_id]
    assert [len(s.cards) for s in spec.seats] == [5, 5] and len(spec.draw_pile) == 10
    with pytest.raises(InvalidArgument, match="house hands are dealt on the 4x4 and 5x5"):
        mapping.rules_back(mapping.rules(replace(rules, realm=None, sudden_death=False)))


async def test_a_random_deck_brought_to_a_realm_table_is_refused(ctx: Context) -> None:
    """Found from outside: the table's Random flag was refused at a Realm table, but a
    Random deck brought by the host (CreateTable), the guest (JoinTable) or Find Game's
    guest sat down at one all the same (RULES.md 17: house hands or saved decks)."""
    realm = RuleSet(Visibility.ALL_OPEN, same=True, realm=RealmModules(lair=True))
    with pytest.raises(InvalidArgument, match="not Random decks"):
        await handlers_lobby.create_table(
            ctx, "t", player("ho"), TableSettings(realm), DeckChoice(random=True)
        )
    hosted = await handlers_lobby.create_table(ctx, "t2", player("h2"), TableSettings(realm), DECK)
    with pytest.raises(InvalidArgument, match="not Random decks"):
        await handlers_lobby.join_table(
            ctx, "j", player("gu"), hosted.table_id, DeckChoice(random=True)
        )
    with pytest.raises(NotFound):
        await handlers_find.find_game(
            ctx, "f", player("fi"), TableFilter(), DeckChoice(random=True)
        )
    joined = await handlers_lobby.join_table(ctx, "j2", player("g2"), hosted.table_id, DECK)
    assert joined.match_id


async def test_a_find_game_id_sent_again_with_other_realm_modules_is_refused(
    ctx: Context,
) -> None:
    """Found on reading the diff again: the request's fingerprint left the modules out,
    so the same id asking for other modules was answered with the first table."""
    realm = RuleSet(Visibility.ALL_OPEN, same=True, realm=RealmModules(lair=True))
    hosted = await handlers_lobby.create_table(ctx, "t", player("ho"), TableSettings(realm), DECK)
    guest = player("gu")

    def wanted(modules: RealmModules) -> TableFilter:
        return TableFilter(realm=True, realm_modules=modules)

    joined = await handlers_find.find_game(ctx, "f", guest, wanted(RealmModules(lair=True)), DECK)
    assert joined.table.table_id == hosted.table_id
    again = await handlers_find.find_game(ctx, "f", guest, wanted(RealmModules(lair=True)), DECK)
    assert again == joined  # a retry: the first answer
    with pytest.raises(RequestReused):
        await handlers_find.find_game(ctx, "f", guest, wanted(RealmModules(cursed=True)), DECK)
