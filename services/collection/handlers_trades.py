"""Use cases after a match: settling a finished match (locks, coins, its trade rule) and
the trade's choice, by the winner or by the server at the deadline (RULES.md 7, 9, 13).

One and Difference open a trade that waits for the winner's choice (the offered copies
locked for it); All and Direct move their copies while settling, in the same
transaction (the match's locks released and the copies moved at one commit).

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
    OwnedCopy,
    TradeEvent,
    TradeRule,
)
from services.collection.domain.trade import Trade
from services.collection.handlers import Context, fire_due
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
    """Release the match's locks, pay for playing, and settle its trade rule."""
    humans = [s for s in finished.seats if not s.is_bot]
    await unit.players(*(s.player.player_id for s in humans))
    await release_in(unit, Holder(HolderKind.MATCH, finished.match_id))
    await reward_match(unit, played_match(finished), ctx.pair_rewards_per_day)
    if finished.trade is TradeRule.NONE or len(humans) != 2:
        return
    if await load_trade(unit, trade.trade_id_for(finished.match_id)) is not None:
        return  # settled by an earlier delivery
    if finished.trade is TradeRule.DIRECT:
        await _direct(ctx, unit, finished)  # whatever the result, a draw too
        return
    if finished.winner is None:
        return  # a draw trades nothing (RULES.md 7, 13)
    winner = finished.seats[finished.winner]
    loser = finished.seats[1 - finished.winner]
    if finished.trade is TradeRule.ALL:
        await _all(ctx, unit, finished.match_id, winner, loser)
        return
    count = 1
    if finished.trade is TradeRule.DIFFERENCE:
        count = trade.difference(winner.score, loser.score, len(loser.deck))
    await _open_trade(ctx, unit, finished, winner, loser, count)


async def _tradeable(unit: Unit, seat: FinishedSeat, card_ids: tuple[str, ...]) -> list[OwnedCopy]:
    """The copies of ``card_ids`` the seat's player still owns and nothing else holds
    (the match's own locks are released by now), in the order given."""
    owner = seat.player.player_id
    owned = await unit.copies(owner, card_ids, lock=True)
    locks = await unit.locks(list(owned))
    return [owned[i] for i in dict.fromkeys(card_ids) if i in owned and i not in locks]


async def _all(
    ctx: Context, unit: Unit, match_id: str, winner: FinishedSeat, loser: FinishedSeat
) -> None:
    """RULES.md 13 All: the loser's whole original deck moves to the winner at once."""
    moving = [(c, winner.player.player_id) for c in await _tradeable(unit, loser, loser.deck)]
    await _settle_at_once(ctx, unit, match_id, winner, loser, TradeRule.ALL, moving)


async def _direct(ctx: Context, unit: Unit, finished: FinishedMatch) -> None:
    """RULES.md 13 Direct: each player receives the copies of the opponent's deck that
    they own on the final board (at a forfeit, the board then); hands stay put."""
    first = 0 if finished.winner is None else finished.winner
    receiver, giver = finished.seats[first], finished.seats[1 - first]
    moving: list[tuple[OwnedCopy, str]] = []
    for to, source in ((receiver, giver), (giver, receiver)):
        won = tuple(i for i in to.board if i in set(source.deck))
        moving += [(c, to.player.player_id) for c in await _tradeable(unit, source, won)]
    await _settle_at_once(ctx, unit, finished.match_id, receiver, giver, TradeRule.DIRECT, moving)


async def _settle_at_once(
    ctx: Context,
    unit: Unit,
    match_id: str,
    winner: FinishedSeat,
    loser: FinishedSeat,
    rule: TradeRule,
    moving: list[tuple[OwnedCopy, str]],
) -> None:
    if not moving:
        log.info("trade moves nothing", match_id=match_id, rule=rule.value)
        return
    events = trade.settle_at_once(match_id, winner.player, loser.player, rule, moving, ctx.clock())
    await unit.append(trade_stream(trade.trade_id_for(match_id)), 0, events)
    metrics.TRADES_OPENED.inc()
    metrics.TRADES_COMPLETED.labels(chooser="rule").inc()
    log.info("trade settled at once", match_id=match_id, rule=rule.value, copies=len(moving))


async def _open_trade(
    ctx: Context,
    unit: Unit,
    finished: FinishedMatch,
    winner: FinishedSeat,
    loser: FinishedSeat,
    count: int,
) -> None:
    match_id = finished.match_id
    trade_id = trade.trade_id_for(match_id)
    loser_id = loser.player.player_id
    offered = await _tradeable(unit, loser, loser.deck)
    if not offered:
        log.warning("trade has nothing to offer", match_id=match_id, loser=loser_id)
        return
    opened = trade.open_trade(
        match_id,
        winner.player,
        loser.player,
        offered,
        ctx.clock(),
        ctx.choice_seconds,
        finished.trade,
        count,
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
    log.info(
        "trade opened",
        match_id=match_id,
        trade_id=trade_id,
        winner=winner.player.player_id,
        rule=finished.trade.value,
        count=opened.count,
    )


def _parties(state: Trade) -> dict[str, str]:
    """A trade's match and players, for the log lines of its end."""
    return {
        "trade_id": state.trade_id,
        "match_id": state.match_id,
        "winner": state.winner.player_id,
        "loser": state.loser.player_id,
    }


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
    """Trade One's choice: the one copy the winner takes."""
    return await choose_cards(ctx, request, trade_id, player_id, (copy_id,))


async def choose_cards(
    ctx: Context, request: Request, trade_id: str, player_id: str, copy_ids: tuple[str, ...]
) -> TradeChosen:
    """The winner's choice: one copy (One) or the trade's d copies at once (Difference)."""

    async def work(unit: Unit) -> TradeChosen:
        if not await unit.claim_trade(trade_id):
            raise trade.no_trade(trade_id)
        state = await load_trade(unit, trade_id)
        events = trade.choose(state, trade_id, player_id, copy_ids, ctx.clock())
        assert state is not None
        await _complete(unit, state, events)
        metrics.TRADES_COMPLETED.labels(chooser="winner").inc()
        log.info("trade cards chosen", **_parties(state), copy_ids=list(copy_ids))
        return TradeChosen(trade_id)

    return await ctx.store.run(work, request)


async def fire_due_trade(ctx: Context) -> bool:
    """Auto-pick for the most overdue trade, if any: random cards of those offered (one,
    or d distinct ones), drawn here and recorded. True if one was claimed."""

    async def auto_pick(unit: Unit, trade_id: str, now: datetime) -> None:
        state = await load_trade(unit, trade_id)
        if state is not None and not state.chosen:
            size = len(state.offered)
            drawn = (
                [ctx.rng.randrange(size)]
                if state.count == 1
                else ctx.rng.sample(range(size), state.count)
            )
            events = trade.auto_pick(state, drawn, now)
            if events is not None:
                await _complete(unit, state, events)
                metrics.TRADES_COMPLETED.labels(chooser="server").inc()
                log.info("trade auto-picked", **_parties(state), drawn=drawn)

    return await fire_due(ctx, lambda unit, now: unit.due_trade(now), auto_pick)


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


async def _owed(ctx: Context, trade_id: str) -> str:
    """What a pending trade owes, in the rule's words (only One and Difference wait)."""
    state = await ctx.store.read(lambda unit: load_trade(unit, trade_id))
    if state is None or state.rule is TradeRule.ONE:
        return "a Trade One card must change hands before your next match"
    return (
        f"the {state.rule.label} trade of your last match: {state.count} "
        f"card{'s' if state.count != 1 else ''} must change hands before your next match"
    )


async def obligations(ctx: Context, player_id: str, current_match_id: str) -> list[Obligation]:
    """What the player owes before a next match: a trade (pending, or being settled by
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
                "the trade of your last match is being settled: its cards must change "
                "hands before your next match",
            )
        )
    if trade_id is not None:
        found.append(Obligation(ObligationKind.PENDING_TRADE, trade_id, await _owed(ctx, trade_id)))
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
