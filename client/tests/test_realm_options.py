"""Realm tables from the command line (RULES.md 17): ``host --realm`` names the family
and its modules, ``find --realm`` filters by it, ``place --lair`` declares Lair."""

from __future__ import annotations

import pytest
from triad.v1 import common_pb2 as pb

from client.commands_cards import practice_deck
from client.commands_lobby import table_filter, table_settings
from client.connection import ClientError, CommandError
from client.main import parser, practice_mode


def test_host_realm_all_turns_every_module_on_over_the_great_cloth() -> None:
    args = parser().parse_args(
        ["host", "--realm", "all", "--board", "4x4", "--house-hands", "--sudden-death"]
    )
    rules = table_settings(args, None).rules
    assert rules.family == pb.RULES_FAMILY_REALM and rules.board.rows == 4
    assert rules.realm == pb.RealmModules(
        type_advantage=True, alignment_clash=True, lair=True, resistance=True, cursed=True
    )
    assert rules.same and rules.plus and rules.combo and rules.sudden_death


def test_host_realm_takes_named_modules_none_or_refuses_an_unknown_one() -> None:
    some = table_settings(parser().parse_args(["host", "--realm", "lair,cursed"]), None).rules
    assert (some.realm.lair, some.realm.cursed, some.realm.resistance) == (True, True, False)
    bare = table_settings(parser().parse_args(["host", "--realm"]), None).rules
    assert bare.family == pb.RULES_FAMILY_REALM and bare.realm == pb.RealmModules()
    # Found from outside: the help's 'none: Same/Plus/Combo only' typed was refused.
    assert table_settings(parser().parse_args(["host", "--realm", "none"]), None).rules == bare
    plain = table_settings(parser().parse_args(["host"]), None).rules
    assert plain.family == pb.RULES_FAMILY_UNSPECIFIED and not plain.HasField("realm")
    with pytest.raises(CommandError, match="unknown Realm modules"):
        table_settings(parser().parse_args(["host", "--realm", "dragons"]), None)


def test_find_filters_realm_tables_and_place_declares_lair() -> None:
    assert parser().parse_args(["find", "--realm"]).realm is True
    assert parser().parse_args(["find", "--no-realm"]).realm is False
    assert parser().parse_args(["place", "m", "0", "5", "--lair"]).lair


def test_find_realm_modules_asks_for_realm_tables_with_exactly_those_modules() -> None:
    wanted = table_filter(parser().parse_args(["find", "--realm-modules", "clash,cursed"]))
    assert wanted.realm and wanted.HasField("realm")
    assert wanted.realm_modules == pb.RealmModules(alignment_clash=True, cursed=True)
    assert table_filter(parser().parse_args(["tables", "--realm-modules", "none"])).HasField(
        "realm_modules"
    )
    assert not table_filter(parser().parse_args(["find", "--realm"])).HasField("realm_modules")
    with pytest.raises(CommandError, match="unknown Realm modules"):
        table_filter(parser().parse_args(["find", "--realm-modules", "dragons"]))


def test_practice_realm_is_a_custom_practice_with_house_hands_unless_a_deck_is_named() -> None:
    """Found from outside: the API took a Realm practice against a bot, the terminal
    had no `practice --realm`. Realm tables never play Random decks (RULES.md 17): a
    Realm practice without --deck is dealt house hands."""
    args = parser().parse_args(["practice", "--realm", "lair,cursed", "--level", "hard"])
    assert practice_mode(args) == "custom"
    rules = table_settings(args, None).rules
    assert rules.family == pb.RULES_FAMILY_REALM and rules.house_hands
    assert rules.realm == pb.RealmModules(lair=True, cursed=True)
    decked = table_settings(parser().parse_args(["practice", "--realm", "--deck", "d1"]), None)
    assert decked.rules.family == pb.RULES_FAMILY_REALM and not decked.rules.house_hands
    plain = table_settings(parser().parse_args(["practice", "--board", "4x4"]), None).rules
    assert plain.family == pb.RULES_FAMILY_UNSPECIFIED and not plain.house_hands
    with pytest.raises(ClientError, match="--realm sets a custom practice's rules"):
        practice_mode(parser().parse_args(["practice", "--mode", "ranked", "--realm", "all"]))


async def test_a_house_hands_practice_sends_no_deck_and_refuses_one_named() -> None:
    """The server refuses a deck at a practice dealing house hands (RULES.md 11): the
    terminal sends none there, says so for a --deck named, and still sends Random or the
    deck named where hands are not dealt."""
    nobody = object()  # never called: no deck is looked up
    dealt = parser().parse_args(["practice", "--board", "4x4", "--house-hands"])
    assert await practice_deck(nobody, dealt, table_settings(dealt, None)) is None  # type: ignore[arg-type]
    realm = parser().parse_args(["practice", "--realm", "all"])
    assert await practice_deck(nobody, realm, table_settings(realm, None)) is None  # type: ignore[arg-type]
    named = parser().parse_args(["practice", "--house-hands", "--board", "4x4", "--deck", "d1"])
    with pytest.raises(CommandError, match="house hands are dealt from the catalog"):
        await practice_deck(nobody, named, table_settings(named, None))  # type: ignore[arg-type]
    plain = parser().parse_args(["practice"])
    assert (await practice_deck(nobody, plain, None)) == pb.DeckChoice(random=pb.RandomDeck())  # type: ignore[arg-type]
