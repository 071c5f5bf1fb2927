"""The Battle queue (Skirmish, issue 23): two tickets without decks pair, and the battle
service is asked to create their battle, once, under the start's id."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.matchmaker import handlers_pairing, handlers_queues
from services.matchmaker.domain import Mode, TicketState
from services.matchmaker.handlers import Context
from services.matchmaker.tests.conftest import DECK, Fakes, player
from services.platform.errors import FailedPrecondition, InvalidArgument


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
    fakes.battles.active[ann.player_id] = "older-battle"
    await handlers_queues.enqueue(ctx, "r1", ann, Mode.BATTLE, None)
    second = await handlers_queues.enqueue(ctx, "r2", bea, Mode.BATTLE, None)
    await handlers_pairing.pair_all(ctx)
    assert not fakes.battles.created
    again = await ctx.store.ticket(second.ticket_id)
    assert again is not None and again.state is TicketState.QUEUED, "bea waits on"
