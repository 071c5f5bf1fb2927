"""The Battle queue and custom battles (Skirmish, issue 23): two tickets without decks
pair, or a guest joins a battle table, and the battle service is asked to create their
battle, once, under the start's id."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.matchmaker import (
    handlers_find,
    handlers_lobby,
    handlers_pairing,
    handlers_queues,
    handlers_status,
)
from services.matchmaker.domain import (
    MODE_RULES,
    Mode,
    TableFilter,
    TableSettings,
    TicketState,
    Visibility,
)
from services.matchmaker.handlers import Context
from services.matchmaker.tests.conftest import DECK, Fakes, player
from services.matchmaker.tests.test_lobby import PLAIN
from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound


async def test_two_battle_tickets_pair_into_one_battle(ctx: Context, fakes: Fakes) -> None:
    ann, bea = player("ann"), player("bea")
    first = await handlers_queues.enqueue(ctx, "r1", ann, Mode.BATTLE, None)
    assert first.state is TicketState.QUEUED and first.deck is None
    await handlers_queues.enqueue(ctx, "r2", bea, Mode.BATTLE, None)
    assert await handlers_pairing.pair_all(ctx)
    [(battle_id, players)] = fakes.battles.created.items()
    assert sorted(players) == [(ann.player_id, "ann"), (bea.player_id, "bea")]
    ticket = await ctx.store.ticket(first.ticket_id)
    assert ticket is not None and ticket.state is TicketState.PAIRED
    assert ticket.match_id == battle_id, "a paired ticket names its battle"
    assert not fakes.matches.of(ann.player_id), "no Triad match is made"


async def test_a_battle_ticket_takes_no_deck_and_needs_the_battle_service(
    ctx: Context, fakes: Fakes
) -> None:
    with pytest.raises(InvalidArgument, match="not a deck"):
        await handlers_queues.enqueue(ctx, "r1", player("ann"), Mode.BATTLE, DECK)
    closed = replace(ctx, ports=replace(fakes.ports(), battles=None))
    with pytest.raises(FailedPrecondition, match="Battle queue is closed"):
        await handlers_queues.enqueue(closed, "r2", player("ann"), Mode.BATTLE, None)


async def test_a_player_in_another_battle_is_refused_and_the_other_waits_again(
    ctx: Context, fakes: Fakes
) -> None:
    ann, bea = player("ann"), player("bea")
    await handlers_queues.enqueue(ctx, "r1", ann, Mode.BATTLE, None)
    fakes.battles.active[ann.player_id] = "older-battle"  # begun since (a practice)
    second = await handlers_queues.enqueue(ctx, "r2", bea, Mode.BATTLE, None)
    await handlers_pairing.pair_all(ctx)
    assert not fakes.battles.created
    again = await ctx.store.ticket(second.ticket_id)
    assert again is not None and again.state is TicketState.QUEUED, "bea waits on"


BATTLE_TABLE = TableSettings(MODE_RULES[Mode.BATTLE], battle=True)


async def test_a_custom_battle_table_starts_a_battle_when_its_guest_joins(
    ctx: Context, fakes: Fakes
) -> None:
    ann, bea = player("ann"), player("bea")
    with pytest.raises(InvalidArgument, match="characters, not a deck"):
        await handlers_lobby.create_table(ctx, "t0", ann, BATTLE_TABLE, DECK)
    table = await handlers_lobby.create_table(ctx, "t1", ann, BATTLE_TABLE, None, bea)
    joined = await handlers_lobby.join_table(ctx, "j1", bea, table.table_id, None)
    assert fakes.battles.created[joined.match_id] == [
        (ann.player_id, "ann"),
        (bea.player_id, "bea"),
    ]
    assert not fakes.matches.of(ann.player_id), "no Triad match is made"


async def test_find_game_keeps_battle_tables_and_triad_tables_apart(
    ctx: Context, fakes: Fakes
) -> None:
    ann, bea, cid = player("ann"), player("bea"), player("cid")
    battle = await handlers_lobby.create_table(ctx, "t1", ann, BATTLE_TABLE, None)
    triad = TableSettings(MODE_RULES[Mode.UNRANKED], random_deck=True)
    await handlers_lobby.create_table(ctx, "t2", cid, triad, None)
    listed = await handlers_lobby.list_tables(ctx, bea, TableFilter(battles=True), 10, "")
    assert [t.table_id for t in listed.tables] == [battle.table_id]
    found = await handlers_find.find_game(ctx, "f1", bea, TableFilter(), None)
    assert found.table.table_id != battle.table_id, "a Triad player never lands in a battle"
    dan = player("dan")
    joined = await handlers_find.find_game(ctx, "f2", dan, TableFilter(battles=True), None)
    assert joined.table.table_id == battle.table_id and joined.match_id in fakes.battles.created


async def test_find_game_without_a_battle_table_says_so_not_the_triad_decks_advice(
    ctx: Context,
) -> None:
    """Found from outside: FindGame for battle tables, none open, answered "no open table
    fits your filters (without a deck, only Random tables and house hands fit)": a
    battle takes no deck, and neither kind of table was what was asked for."""
    with pytest.raises(NotFound) as refused:
        await handlers_find.find_game(ctx, "f1", player("bea"), TableFilter(battles=True), None)
    said = str(refused.value)
    assert said.startswith("no open battle table to join right now"), said
    assert "deck" not in said and "settings.battle" in said, said


async def test_triad_rule_filters_do_not_hide_battle_tables(ctx: Context, fakes: Fakes) -> None:
    """A battle table's rules play no part: with filter.battles, a Triad rule filter
    (Same off, a 4x4 board, Closed, no Random deck) neither hides a battle table from the
    list nor keeps Find Game from joining it."""
    ann, bea = player("ann"), player("bea")
    battle = await handlers_lobby.create_table(ctx, "t1", ann, BATTLE_TABLE, None)
    for triad in (
        TableFilter(same=False),
        TableFilter(boards=frozenset({4})),
        TableFilter(visibilities=frozenset({Visibility.CLOSED})),
        TableFilter(random_deck=True),
    ):
        asked = replace(triad, battles=True)
        listed = await handlers_lobby.list_tables(ctx, bea, asked, 10, "")
        assert [t.table_id for t in listed.tables] == [battle.table_id], asked
    asked = TableFilter(random_deck=False, house_hands=False, battles=True)
    joined = await handlers_find.find_game(ctx, "f1", bea, asked, None)
    assert joined.table.table_id == battle.table_id and joined.match_id in fakes.battles.created


async def test_a_player_in_a_battle_is_busy_for_every_queue_table_and_challenge(
    ctx: Context, fakes: Fakes
) -> None:
    """Found from outside: a player in a battle could queue, host a table, start a
    Triad practice or be challenged, and the one who joined them was refused."""
    ann, bea = player("ann"), player("bea")
    fakes.battles.active[ann.player_id] = "battle-1"
    busy = "you are playing battle battle-1; finish it first"
    for mode, deck in ((Mode.BATTLE, None), (Mode.UNRANKED, DECK)):
        with pytest.raises(FailedPrecondition, match=busy):
            await handlers_queues.enqueue(ctx, f"q-{mode}", ann, mode, deck)
    with pytest.raises(FailedPrecondition, match=busy):
        await handlers_queues.start_practice(ctx, "p1", ann, Mode.UNRANKED, None, DECK, None)
    with pytest.raises(FailedPrecondition, match=busy):
        await handlers_lobby.create_table(ctx, "t1", ann, BATTLE_TABLE, None)
    with pytest.raises(FailedPrecondition, match="ann is playing a battle right now"):
        await handlers_lobby.create_table(ctx, "t2", bea, BATTLE_TABLE, None, ann)
    assert not fakes.battles.created and not fakes.matches.of(ann.player_id)


async def test_a_guest_is_told_the_host_is_busy_without_the_id_of_the_hosts_game(
    ctx: Context, fakes: Fakes
) -> None:
    """Found from outside: a guest sitting at the table of a host who had started a
    battle meanwhile read "ann is playing battle <id>; finish it first": the id of
    another player's battle, and an order the guest cannot follow."""
    ann, bea = player("ann"), player("bea")
    table = await handlers_lobby.create_table(ctx, "t1", ann, PLAIN, DECK)
    fakes.battles.active[ann.player_id] = "battle-of-ann"
    with pytest.raises(FailedPrecondition) as refused:
        await handlers_lobby.join_table(ctx, "j1", bea, table.table_id, DECK)
    told = str(refused.value)
    assert "ann cannot play right now" in told, told
    assert "battle-of-ann" not in told and "finish it first" not in told, told


async def test_a_battle_ticket_offers_no_switch_to_a_practice_match(
    ctx: Context, fakes: Fakes
) -> None:
    """Found from outside: a Battle ticket said practice_available, and SwitchToPractice
    answered "practising from the Draft queue needs a deck of yours" (or, with a deck,
    "practice starts from Unranked, Ranked, ..."): words about another queue."""
    ann = player("ann")
    ticket = await handlers_queues.enqueue(ctx, "r1", ann, Mode.BATTLE, None)
    shown = await handlers_status.view_of(ctx, ticket, ctx.clock())
    assert not shown.practice_available, "a Battle ticket has no practice match"
    for deck in (None, DECK):
        with pytest.raises(FailedPrecondition) as refused:
            await handlers_queues.switch_to_practice(ctx, "s", ann, ticket.ticket_id, None, deck)
        told = str(refused.value)
        assert "Battle queue" in told and "practice battle" in told, told
        assert "Draft" not in told, told
    still = await ctx.store.ticket(ticket.ticket_id)
    assert still is not None and still.state is TicketState.QUEUED, "the ticket waits on"
    assert not fakes.matches.of(ann.player_id) and not fakes.battles.created
