"""Use cases after a match: settling a finished match (locks, coins, Trade One) and the
trade's choice, by the winner or by the server at the deadline (RULES.md 7 and 9).

``settle_match`` runs inside an idempotent consumer's transaction, so its effect and
the "processed" mark commit together. It is also idempotent on its own: the trade id
is derived from the match id and opened only at version 0 of its stream, and credits
are keyed by (player, reason, reference). A MatchFinished delivered any number of
times, with or without the same event id, opens one trade.
"""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from services.collection import metrics
from services.collection.domain import trade, wealth
from services.collection.domain.events import (
    CopiesLocked,
    CopiesReleased,
    FinishedMatch,
    FinishedSeat,
    Holder,
    HolderKind,
    TradeEvent,
)
from services.collection.domain.trade import Trade
from services.collection.handlers import Context
from services.collection.handlers_decks import release_in
from services.collection.handlers_economy import reward_match
from services.collection.results import CompletedTrade, Obligation, ObligationKind, TradeChosen
from services.collection.store import Request, Unit, trade_stream

__all__ = ["FinishedMatch", "FinishedSeat", "choose_card", "settle_match"]

log = structlog.get_logger()


def played_match(finished: FinishedMatch) -> wealth.PlayedMatch:
    winner = None if finished.winner is None else finished.seats[finished.winner]
    return wealth.PlayedMatch(
        match_id=finished.match_id,
        humans=tuple(s.player.player_id for s in finished.seats if not s.is_bot),
        winner=None if winner is None else winner.player.player_id,
        placements=finished.placements,
        day=finished.finished_at.astimezone(UTC).date().isoformat(),
    )


async def load_trade(unit: Unit, trade_id: str) -> Trade | None:
    events = [
        (e, at) for e, at in await unit.stream(trade_stream(trade_id)) if isinstance(e, TradeEvent)
    ]
    return trade.fold(events)


async def settle_match(ctx: Context, unit: Unit, finished: FinishedMatch) -> None:
    """Release the match's locks, pay for playing, and open Trade One when it applies."""
    humans = [s for s in finished.seats if not s.is_bot]
    await unit.players(*(s.player.player_id for s in humans))
    await release_in(unit, Holder(HolderKind.MATCH, finished.match_id))
    await reward_match(unit, played_match(finished), ctx.pair_rewards_per_day)
    if finished.winner is None:
        return  # a draw trades nothing (RULES.md 7)
    winner = finished.seats[finished.winner]
    loser = finished.seats[1 - finished.winner]
    if finished.trade_one and len(humans) == 2:
        await _open_trade(ctx, unit, finished.match_id, winner, loser)


async def _open_trade(
    ctx: Context, unit: Unit, match_id: str, winner: FinishedSeat, loser: FinishedSeat
) -> None:
    trade_id = trade.trade_id_for(match_id)
    if await load_trade(unit, trade_id) is not None:
        return  # opened by an earlier delivery
    loser_id = loser.player.player_id
    owned = await unit.copies(loser_id, loser.deck, lock=True)
    locks = await unit.locks(list(owned))
    offered = [owned[i] for i in dict.fromkeys(loser.deck) if i in owned and i not in locks]
    if not offered:
        log.warning("trade has nothing to offer", match_id=match_id, loser=loser_id)
        return
    opened = trade.open_trade(
        match_id, winner.player, loser.player, offered, ctx.clock(), ctx.choice_seconds
    )
    await unit.append(trade_stream(trade_id), 0, [opened])
    holder = Holder(HolderKind.TRADE, trade_id)
    await unit.append_player(
        loser_id, [CopiesLocked(loser_id, tuple(c.copy_id for c in offered), holder)]
    )
    # Settling commits with the consumer's processed mark after this returns (the
    # consumer has no hook after its commit): a loop woken now may look too early, and
    # then sleeps at most its poll ceiling, no longer than if it had not been woken.
    ctx.wakes.trades.due_at(opened.deadline)
    metrics.TRADES_OPENED.inc()
    log.info("trade opened", match_id=match_id, trade_id=trade_id, winner=winner.player.player_id)


async def _complete(unit: Unit, state: Trade, events: tuple[TradeEvent, ...]) -> None:
    """Choice and transfer, and the trade's locks released, in one transaction."""
    loser_id = state.loser.player_id
    await unit.player(loser_id)
    await unit.append(trade_stream(state.trade_id), state.version, events)
    holder = Holder(HolderKind.TRADE, state.trade_id)
    held = (await unit.held_by(holder)).get(loser_id, [])
    await unit.append_player(loser_id, [CopiesReleased(loser_id, tuple(held), holder)])


async def choose_card(
    ctx: Context, request: Request, trade_id: str, player_id: str, copy_id: str
) -> TradeChosen:
    async def work(unit: Unit) -> TradeChosen:
        if not await unit.claim_trade(trade_id):
            raise trade.no_trade(trade_id)
        state = await load_trade(unit, trade_id)
        events = trade.choose(state, trade_id, player_id, copy_id, ctx.clock())
        assert state is not None
        await _complete(unit, state, events)
        metrics.TRADES_COMPLETED.labels(chooser="winner").inc()
        log.info("trade card chosen", trade_id=trade_id, copy_id=copy_id)
        return TradeChosen(trade_id)

    return await ctx.store.run(work, request)


async def fire_due_trade(ctx: Context) -> bool:
    """Auto-pick for the most overdue trade, if any: a random card of the five, drawn
    here and recorded. True if one was claimed."""
    now = ctx.clock()

    async def work(unit: Unit) -> bool:
        trade_id = await unit.due_trade(now)
        if trade_id is None:
            return False
        state = await load_trade(unit, trade_id)
        if state is not None and state.chosen is None:
            events = trade.auto_pick(state, ctx.rng.randrange(len(state.offered)), now)
            if events is not None:
                await _complete(unit, state, events)
                metrics.TRADES_COMPLETED.labels(chooser="server").inc()
                log.info("trade auto-picked", trade_id=trade_id, copy_id=events[0].copy_id)
        return True

    return await ctx.store.run(work)


async def trade_for(ctx: Context, trade_id: str, player_id: str) -> Trade:
    async def work(unit: Unit) -> Trade:
        state = await load_trade(unit, trade_id)
        if state is None:
            raise trade.no_trade(trade_id)
        state.party(player_id)
        return state

    return await ctx.store.read(work)


async def pending_trade(ctx: Context, player_id: str) -> Trade | None:
    trade_id = await ctx.store.pending_trade_of(player_id)
    return None if trade_id is None else await trade_for(ctx, trade_id, player_id)


async def completed_since(ctx: Context, player_id: str, after: datetime) -> list[CompletedTrade]:
    """The player's trades completed after ``after``, oldest first."""
    return await ctx.store.trades_completed_since(player_id, after)


async def pending_trade_id(ctx: Context, player_id: str) -> str | None:
    return await ctx.store.pending_trade_of(player_id)


async def obligations(ctx: Context, player_id: str, current_match_id: str) -> list[Obligation]:
    """What the player owes before a next match: a Trade One (pending, or being opened by
    a settlement of a trading match other than ``current_match_id``), an open draft."""
    found = []
    # The match's locks first: a settlement committing between the two reads has
    # opened the trade by the time the second one looks, so no moment goes unseen.
    settling = await ctx.store.settling_match_of(player_id, current_match_id)
    trade_id = await ctx.store.pending_trade_of(player_id)
    if trade_id is None and settling is not None:
        found.append(
            Obligation(
                ObligationKind.PENDING_TRADE,
                trade.trade_id_for(settling),
                "the Trade One of your last match is being opened: a card must change hands "
                "before your next match",
            )
        )
    if trade_id is not None:
        found.append(
            Obligation(
                ObligationKind.PENDING_TRADE,
                trade_id,
                "a Trade One card must change hands before your next match",
            )
        )
    draft_id = await ctx.store.open_draft_of(player_id)
    if draft_id is not None:
        found.append(
            Obligation(
                ObligationKind.OPEN_DRAFT,
                draft_id,
                "finish your draft before starting another match",
            )
        )
    return found
