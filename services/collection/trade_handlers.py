"""Use cases after a match: settling a finished match (locks, coins, Trade One) and the
trade's choice, by the winner or by the server at the deadline (RULES.md 7 and 9).

``settle_match`` runs inside an idempotent consumer's transaction, so its effect and
the "processed" mark commit together. It is also idempotent on its own: the trade id
is derived from the match id and opened only at version 0 of its stream, and credits
are keyed by (player, reason, reference). A MatchFinished delivered any number of
times, with or without the same event id, opens one trade.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from services.collection import domain, metrics, trade
from services.collection.events import (
    CopiesLocked,
    CopiesReleased,
    Holder,
    HolderKind,
    PlayerRef,
    TradeEvent,
)
from services.collection.handlers import Context, release_in, reward_match
from services.collection.store import Request, Result, Unit, trade_stream
from services.collection.trade import Trade

log = structlog.get_logger()


@dataclass(frozen=True, slots=True)
class FinishedSeat:
    player: PlayerRef
    is_bot: bool
    deck: tuple[str, ...]
    """The seat's original five card ids (copy ids for owned copies), in deck order."""


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """What the collection needs of a MatchFinished event."""

    match_id: str
    seats: tuple[FinishedSeat, FinishedSeat]
    winner: int | None
    """Index of the winning seat; None for a draw."""
    trade_one: bool
    finished_at: datetime
    placements: int
    """Cards placed on the board: what the reward for playing depends on."""


def played_match(finished: FinishedMatch) -> domain.PlayedMatch:
    winner = None if finished.winner is None else finished.seats[finished.winner]
    return domain.PlayedMatch(
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
) -> Result:
    async def work(unit: Unit) -> Result:
        if not await unit.claim_trade(trade_id):
            raise trade.no_trade(trade_id)
        state = await load_trade(unit, trade_id)
        events = trade.choose(state, trade_id, player_id, copy_id, ctx.clock())
        assert state is not None
        await _complete(unit, state, events)
        metrics.TRADES_COMPLETED.labels(chooser="winner").inc()
        log.info("trade card chosen", trade_id=trade_id, copy_id=copy_id)
        return {"trade_id": trade_id}

    return await ctx.store.run(work, request)


async def fire_due_trade(ctx: Context) -> bool:
    """Auto-pick for the most overdue trade, if any: a random card of the five, drawn
    here and recorded. True if one was claimed."""
    now = ctx.clock()

    async def work(unit: Unit) -> Result:
        trade_id = await ctx.store.due("trades", now, unit.conn)
        if trade_id is None:
            return {"claimed": False}
        state = await load_trade(unit, trade_id)
        if state is not None and state.chosen is None:
            events = trade.auto_pick(state, ctx.rng.randrange(len(state.offered)), now)
            if events is not None:
                await _complete(unit, state, events)
                metrics.TRADES_COMPLETED.labels(chooser="server").inc()
                log.info("trade auto-picked", trade_id=trade_id, copy_id=events[0].copy_id)
        return {"claimed": True}

    return bool((await ctx.store.run(work))["claimed"])


async def trade_for(ctx: Context, trade_id: str, player_id: str) -> Trade:
    async def work(unit: Unit) -> Trade:
        state = await load_trade(unit, trade_id)
        if state is None:
            raise trade.no_trade(trade_id)
        state.party(player_id)
        return state

    async with ctx.store.pool.acquire() as conn:
        return await ctx.store.run_in(conn, work)


async def pending_trade(ctx: Context, player_id: str) -> Trade | None:
    trade_id = await ctx.store.pending_trade_of(player_id)
    return None if trade_id is None else await trade_for(ctx, trade_id, player_id)
