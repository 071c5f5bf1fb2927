"""A player who left after queueing or opening their table is not seated
(``handlers_free.left_after_waiting``). Found in review: in the seconds before the
gateway gives up such a ticket, a pairing seated the absent player, who lost the match,
its rating and a card by the disconnection forfeit while the opponent waited."""

from __future__ import annotations

from datetime import timedelta

import pytest

from services.matchmaker import (
    handlers_find,
    handlers_lobby,
    handlers_pairing,
    handlers_queues,
)
from services.matchmaker.domain import CancelReason, Mode, RuleSet, TicketState, Visibility
from services.matchmaker.domain.tables import TableFilter, TableSettings, TableState
from services.matchmaker.handlers import Context
from services.matchmaker.tests.conftest import DECK, Clock, Fakes, player
from services.platform.errors import FailedPrecondition


async def test_a_pairing_with_a_player_gone_since_queueing_sends_the_other_back_to_wait(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    ann, bea = player("ann"), player("bea")
    gone = await handlers_queues.enqueue(ctx, "q1", ann, Mode.RANKED, DECK)
    clock.advance(2)
    fakes.matches.away[ann.player_id] = ctx.clock()  # her tab closed
    waiting = await handlers_queues.enqueue(ctx, "q2", bea, Mode.RANKED, DECK)
    await handlers_pairing.pair_all(ctx)

    assert not fakes.matches.created
    left = await ctx.store.ticket(gone.ticket_id)
    assert left is not None and left.state is TicketState.CANCELLED
    assert left.cancel_reason is CancelReason.PAIRING_FAILED
    assert "you left before it could start" in left.cancel_message, left.cancel_message
    kept = await ctx.store.ticket(waiting.ticket_id)
    assert kept is not None and kept.state is TicketState.QUEUED  # back, with her wait


async def test_a_ticket_made_after_the_session_ended_is_paired(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    """A one-shot command needs no session: the last one ended before the ticket."""
    ann, bea = player("ann"), player("bea")
    fakes.matches.away[ann.player_id] = ctx.clock() - timedelta(hours=1)
    await handlers_queues.enqueue(ctx, "q1", ann, Mode.RANKED, DECK)
    await handlers_queues.enqueue(ctx, "q2", bea, Mode.RANKED, DECK)
    assert await handlers_pairing.pair_all(ctx)
    (spec,) = fakes.matches.created.values()
    assert {s.player_id for s in spec.seats} == {ann.player_id, bea.player_id}


async def test_a_table_whose_host_left_closes_for_the_guest(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    host, guest = player("host"), player("guest")
    settings = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True))
    table = await handlers_lobby.create_table(ctx, "t", host, settings, DECK)
    clock.advance(1)
    fakes.matches.away[host.player_id] = ctx.clock()
    with pytest.raises(FailedPrecondition, match="host cannot play right now") as refused:
        await handlers_lobby.join_table(ctx, "j", guest, table.table_id, DECK)
    assert "look for another table" in str(refused.value)
    closed = await handlers_lobby.get_table(ctx, host, table.table_id)
    assert closed.state is TableState.CLOSED and "you left" in closed.closed_because
    assert not fakes.matches.created


async def test_find_game_passes_over_a_table_whose_host_left(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    """Joining it would only be refused (and close it): the next oldest is joined."""
    gone, there, guest = player("gone"), player("there"), player("guest")
    settings = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True))
    left = await handlers_lobby.create_table(ctx, "t1", gone, settings, DECK)
    clock.advance(1)
    kept = await handlers_lobby.create_table(ctx, "t2", there, settings, DECK)
    clock.advance(1)
    fakes.matches.away[gone.player_id] = ctx.clock()
    joined = await handlers_find.find_game(ctx, "f", guest, TableFilter(), DECK)
    assert joined.table.table_id == kept.table_id and joined.match_id
    still = await handlers_lobby.get_table(ctx, gone, left.table_id)
    assert still.state is TableState.OPEN  # the gateway closes it in its time
