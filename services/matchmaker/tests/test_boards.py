"""Boards (RULES.md 11, 16) from the lobby to the match: a table or practice chooses
3x3, 4x4 or 5x5 with k blocked cells on 5x5 and house hands; the choice crosses the
edge both ways, is kept by the table (in memory and in PostgreSQL) and the start plan,
shown and filtered in the lobby, and reaches CreateMatch with hands of the board's size
(a saved deck, Random, a bot's or house hands dealt from the catalog). What cannot be
played is refused saying why."""

from __future__ import annotations

import json
from random import Random

import pytest
from triad.v1 import common_pb2 as pb

from services.matchmaker import handlers_find, handlers_lobby, handlers_queues, mapping
from services.matchmaker.clients import draw_deck
from services.matchmaker.domain import (
    DeckChoice,
    Mode,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    TableFilter,
    TableSettings,
    Visibility,
)
from services.matchmaker.domain.modes import practice_rules
from services.matchmaker.handlers import Context
from services.matchmaker.store import TableQuery
from services.matchmaker.store.plans import plan_from, plan_json
from services.matchmaker.tests.conftest import DECK, Fakes, player
from services.matchmaker.tests.test_store_contract import Adapter, adapter, key
from services.matchmaker.tests.test_store_contract_lobby import table
from services.platform.errors import FailedPrecondition, InvalidArgument

__all__ = ["adapter"]  # the fixture, parametrised over both adapters

QUINTRA = RuleSet(Visibility.THREE_OPEN, same=True, board=5, blocked=3, house_hands=True)
CLOTH = RuleSet(Visibility.ALL_OPEN, same=True, plus=True, board=4)


def test_the_board_crosses_the_edge_both_ways_and_into_practice() -> None:
    message = pb.Rules(
        visibility=pb.VISIBILITY_THREE_OPEN,
        same=True,
        board=pb.BoardShape(rows=5, columns=5, blocked_count=3),
        house_hands=True,
    )
    rules = mapping.rules_back(message)
    assert rules == QUINTRA and rules.hand_size == 13
    back = mapping.rules(rules)
    assert (back.board.rows, back.board.columns, back.board.blocked_count) == (5, 5, 3)
    assert back.house_hands and not back.board.blocked_cells
    assert mapping.rules_back(pb.Rules(visibility=pb.VISIBILITY_CLOSED)).board == 3
    assert practice_rules(Mode.CUSTOM, rules, 0) == QUINTRA
    assert rules.without_trade() == QUINTRA


@pytest.mark.parametrize(
    ("board", "house", "trade", "says"),
    [
        (pb.BoardShape(rows=5, columns=5, blocked_count=6), False, False, "blocks 0 to 5 cells"),
        (pb.BoardShape(rows=4, columns=4, blocked_count=1), False, False, "5x5 board only"),
        (pb.BoardShape(rows=3, columns=3, blocked_count=2), False, False, "5x5 board only"),
        (pb.BoardShape(rows=5, columns=5, blocked_cells=[3]), False, False, "blocked_count"),
        (pb.BoardShape(rows=6, columns=6), False, False, "3x3, 4x4 or 5x5 board, not 6x6"),
        (pb.BoardShape(rows=4, columns=5), False, False, "not 4x5"),
        (pb.BoardShape(), True, False, "house hands are dealt on the 4x4 and 5x5"),
        (pb.BoardShape(rows=4, columns=4), True, True, "house hands never trade"),
    ],
)
def test_what_no_table_can_play_is_refused_at_the_edge_saying_why(
    board: pb.BoardShape, house: bool, trade: bool, says: str
) -> None:
    message = pb.Rules(
        visibility=pb.VISIBILITY_CLOSED,
        same=True,
        plus=True,
        combo=True,
        board=board,
        house_hands=house,
        trade_rule=pb.TRADE_RULE_ONE if trade else pb.TRADE_RULE_NONE,
    )
    with pytest.raises(InvalidArgument, match=says):
        mapping.rules_back(message)


async def test_a_table_keeps_its_board_and_the_lobby_filters_by_it(adapter: Adapter) -> None:
    quintra = table("qu", 0, same=True, board=5, blocked=3, house_hands=True)  # type: ignore[arg-type]
    cloth, plain = table("cl", 1, board=4), table("pl", 2)  # type: ignore[arg-type]
    for t in (quintra, cloth, plain):
        await adapter.lobby.create_table(t, key(t.host_name, "t"))
    found = await adapter.lobby.table(quintra.table_id)
    assert found == quintra and found is not None and found.settings.rules.blocked == 3
    shown = mapping.table(found).settings.rules
    assert (shown.board.rows, shown.board.blocked_count, shown.house_hands) == (5, 3, True)

    async def listed(filters: TableFilter) -> set[str]:
        tables = await adapter.lobby.list_tables(
            TableQuery("v", "viewer", filters, cloth.created_at, 10, None)
        )
        return {t.host_name for t in tables}

    assert await listed(TableFilter()) == {"qu", "cl", "pl"}
    assert await listed(TableFilter(boards=frozenset({4, 5}))) == {"qu", "cl"}
    assert await listed(TableFilter(boards=frozenset({3}))) == {"pl"}
    assert await listed(TableFilter(house_hands=True)) == {"qu"}
    oldest = await adapter.lobby.oldest_table(
        "v", TableFilter(boards=frozenset({4})), cloth.created_at, ()
    )
    assert oldest is not None and oldest.host_name == "cl"


def test_the_filter_names_a_board_that_does_not_exist() -> None:
    with pytest.raises(InvalidArgument, match="not 6"):
        mapping.table_filter_back(pb.TableFilter(board_sizes=[6]))
    assert mapping.table_filter_back(pb.TableFilter(board_sizes=[5])).boards == {5}


def test_a_start_plan_keeps_the_board_and_an_older_plan_reads_as_3x3() -> None:
    plan = StartPlan(
        start_id="s-1",
        kind=StartKind.TABLE,
        mode=Mode.CUSTOM,
        rules=QUINTRA,
        seats=tuple(
            Seat(f"p-{n}", name, deck=DeckChoice(random=True),
                 cards=draw_deck(Random(n), name, "house", 13))
            for n, name in enumerate(("ann", "bea"))
        ),  # type: ignore[arg-type]
        match_id="m-1",
        origin_id="t-1",
        table_id="t-1",
    )  # fmt: skip
    assert plan_from(plan_json(plan)) == plan
    older = json.loads(plan_json(plan))
    older["rules"] = older["rules"][:8]  # written before boards
    rules = plan_from(json.dumps(older)).rules
    assert (rules.board, rules.blocked, rules.house_hands) == (3, 0, False)


async def test_a_house_hands_table_deals_both_hands_and_takes_no_deck(
    ctx: Context, fakes: Fakes
) -> None:
    settings = TableSettings(QUINTRA)
    with pytest.raises(InvalidArgument, match="send no deck"):
        await handlers_lobby.create_table(ctx, "t0", player("ho"), settings, DECK)
    hosted = await handlers_lobby.create_table(ctx, "t", player("ho"), settings, None)
    with pytest.raises(InvalidArgument, match="house hands"):
        await handlers_lobby.join_table(ctx, "j0", player("gu"), hosted.table_id, DECK)
    joined = await handlers_lobby.join_table(ctx, "j", player("gu"), hosted.table_id, None)
    spec = fakes.matches.created[joined.match_id]
    assert spec.rules == QUINTRA
    for seat in spec.seats:
        assert len(seat.cards) == 13 and {c.origin for c in seat.cards} == {"house"}


async def test_a_4x4_table_brings_decks_of_eight_and_practice_plays_on_it(
    ctx: Context, fakes: Fakes
) -> None:
    hosted = await handlers_lobby.create_table(ctx, "t", player("ho"), TableSettings(CLOTH), DECK)
    joined = await handlers_lobby.join_table(ctx, "j", player("gu"), hosted.table_id, DECK)
    spec = fakes.matches.created[joined.match_id]
    assert [len(s.cards) for s in spec.seats] == [8, 8]
    match_id = await handlers_queues.start_practice(
        ctx, "p", player("pr"), Mode.CUSTOM, None, DeckChoice(random=True), CLOTH
    )
    practice = fakes.matches.created[match_id]
    assert practice.rules.board == 4 and [len(s.cards) for s in practice.seats] == [8, 8]
    dealt = await handlers_queues.start_practice(
        ctx, "p2", player("pq"), Mode.CUSTOM, None, None, QUINTRA
    )
    hands = fakes.matches.created[dealt].seats
    assert [len(s.cards) for s in hands] == [13, 13]
    assert {c.origin for c in hands[0].cards} == {"house"}
    assert {c.origin for c in hands[1].cards} == {"bot"}


async def test_find_game_seats_a_player_without_a_playable_deck_at_house_hands(
    ctx: Context, fakes: Fakes
) -> None:
    """RULES.md 11 and 14: house hands are dealt, so they fit a player with no deck, or
    with a saved deck that cannot play now. Found from outside: without a deck only
    Random tables were looked at, and a broken deck was refused before any table."""
    host, guest = player("host"), player("guest")
    table = await handlers_lobby.create_table(ctx, "t", host, TableSettings(QUINTRA), None)
    joined = await handlers_find.find_game(ctx, "f1", guest, TableFilter(), None)
    assert joined.table.table_id == table.table_id and joined.match_id
    broken = DeckChoice(deck_id="sold-a-card")

    async def cannot_play(player_id: str, choice: DeckChoice, hand_size: int = 0) -> None:
        if choice == broken:
            raise FailedPrecondition("your deck cannot be played now: copy c1 is listed")

    ctx.ports.decks.check = cannot_play  # type: ignore[method-assign]
    other = await handlers_lobby.create_table(ctx, "t2", player("h2"), TableSettings(QUINTRA), None)
    found = await handlers_find.find_game(ctx, "f2", player("g2"), TableFilter(), broken)
    assert found.table.table_id == other.table_id
    with pytest.raises(FailedPrecondition, match="copy c1 is listed"):  # nothing else fits
        await handlers_find.find_game(ctx, "f3", player("g3"), TableFilter(), broken)
