"""Use cases of coins and boosters: credits and spends, what a finished match pays for
playing it, the server seed (commit, rotate, reveal) and opening a booster, with the
queries the edge shows them through."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import TypeVar

import structlog

from services.collection import metrics
from services.collection.domain import seeds, wealth
from services.collection.domain.events import (
    BoosterDraw,
    BoosterOpened,
    CurrencyChange,
    CurrencyCredited,
    CurrencyDebited,
    CurrencyReason,
    PlayerEvent,
)
from services.collection.domain.seeds import ActiveSeed
from services.collection.handlers import Context
from services.collection.results import Balance, BoosterBought, SeedRecord, SeedRotated
from services.collection.store import Request, Unit
from services.platform.errors import Conflict, NotFound, require_found, short_id

log = structlog.get_logger()

ChangeT = TypeVar("ChangeT", CurrencyCredited, CurrencyDebited)
CoinStep = Callable[[Unit, str, int, CurrencyReason, str], Awaitable[CurrencyChange | None]]
"""A credit or a spend inside a transaction: (unit, player, amount, reason, reference)."""


def _balance(unit: Unit, player_id: str, ctx: Context) -> Balance:
    return Balance(unit.coins(player_id), ctx.clock())


# --- currency -------------------------------------------------------------------------------


async def balance(ctx: Context, player_id: str) -> Balance:
    return await ctx.store.balance(player_id)


async def change_coins(
    ctx: Context,
    request: Request | None,
    player_id: str,
    amount: int,
    reason: CurrencyReason,
    reference_id: str,
    *,
    step: CoinStep,
) -> Balance:
    """Credit or spend (``step``: ``credit_in`` or ``spend_in``) in one transaction;
    the balance it leaves."""

    async def work(unit: Unit) -> Balance:
        await step(unit, player_id, amount, reason, reference_id)
        return _balance(unit, player_id, ctx)

    return await ctx.store.run(work, request)


async def credit_in(
    unit: Unit, player_id: str, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyCredited | None:
    """Add coins once per (player, reason, reference): None if added before."""
    row = await unit.player(player_id)
    if await unit.credited(player_id, reason.value, reference_id):
        return None
    return await _record(unit, wealth.credit(player_id, row.coins, amount, reason, reference_id))


async def spend_in(
    unit: Unit, player_id: str, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyDebited:
    """Take coins: never below zero."""
    row = await unit.player(player_id)
    return await _record(unit, wealth.spend(player_id, row.coins, amount, reason, reference_id))


async def _record(unit: Unit, event: ChangeT) -> ChangeT:
    """Append a credit or a debit to its player's stream, and count its coins."""
    await unit.append_player(event.player_id, [event])
    metrics.count_coins(event)
    return event


# The use cases: (ctx, request, player_id, amount, reason, reference_id) -> Balance.
credit = partial(change_coins, step=credit_in)
spend = partial(change_coins, step=spend_in)


async def reward_match(unit: Unit, played: wealth.PlayedMatch, pair_limit: int) -> None:
    """Pay for playing a finished match (``wealth.match_reward``), once per match.

    Runs in the settling transaction: the decision row, the credits and the consumer's
    processed mark commit together, so a replay or a crash neither pays nor counts twice.
    Both humans' rows are locked first, so two matches of one pair settle in turn and
    the daily count each reads is exact."""
    await unit.players(*played.humans)
    if await unit.match_reward(played.match_id) is not None:
        return  # settled by an earlier delivery
    pair = wealth.reward_pair(played.humans)
    earlier = 0 if pair is None else await unit.pair_rewarded(pair, played.day)
    reward = wealth.match_reward(played, earlier, pair_limit)
    await unit.record_match_reward(played.match_id, reward.decision, played.day, pair)
    for player_id in reward.first_match:
        await credit_in(
            unit,
            player_id,
            wealth.DAILY_FIRST_MATCH_COINS,
            CurrencyReason.DAILY_FIRST_MATCH,
            played.day,
        )
    if reward.winner is not None:
        await credit_in(
            unit, reward.winner, wealth.MATCH_WIN_COINS, CurrencyReason.MATCH_WIN, played.match_id
        )
    metrics.MATCH_REWARDS.labels(decision=reward.decision.value).inc()
    if reward.decision is not wealth.RewardDecision.PAID:
        log.info(
            "match paid nothing",
            match_id=played.match_id,
            decision=reward.decision.value,
            players=list(played.humans),
            placements=played.placements,
        )


# --- seeds and boosters ---------------------------------------------------------------------


async def _seed_in_force(ctx: Context, unit: Unit, player_id: str) -> ActiveSeed:
    """The seed in force, committing a first one (with a drawn client seed) if none."""
    seed = await unit.active_seed(player_id)
    if seed is not None:
        return seed
    return await _commit(ctx, unit, player_id, f"{ctx.rng.getrandbits(64):016x}", [])


async def _commit(
    ctx: Context, unit: Unit, player_id: str, client_seed: str, before: list[PlayerEvent]
) -> ActiveSeed:
    secret = ctx.server_seed()
    seed_id = ctx.new_id()
    committed = seeds.commit_seed(player_id, seed_id, secret, client_seed)
    now = ctx.clock()
    await unit.save_seed(player_id, seed_id, secret, committed.seed_hash, client_seed, now)
    await unit.append_player(player_id, [*before, committed])
    return ActiveSeed(seed_id, secret, committed.seed_hash, client_seed, 0, now)


async def seed_commitment(ctx: Context, player_id: str) -> ActiveSeed:
    found = await ctx.store.active_seed(player_id)
    if found is not None:
        return found

    async def work(unit: Unit) -> ActiveSeed:
        await unit.player(player_id)
        return await _seed_in_force(ctx, unit, player_id)

    await ctx.store.run(work)
    seed = await ctx.store.active_seed(player_id)
    assert seed is not None
    return seed


async def set_client_seed(
    ctx: Context, request: Request, player_id: str, client_seed: str
) -> SeedRotated:
    """Rotate: the seed in force is revealed, a new one committed with the new client seed."""
    seeds.valid_client_seed(client_seed)

    async def work(unit: Unit) -> SeedRotated:
        await unit.player(player_id)
        old = await unit.active_seed(player_id)
        if old is None:
            new = await _commit(ctx, unit, player_id, client_seed, [])
            return SeedRotated(new.seed_id, None)
        revealed, _ = seeds.rotate_seed(player_id, old, "", ctx.server_seed(), client_seed)
        await unit.reveal_seed(old.seed_id, ctx.clock())
        new = await _commit(ctx, unit, player_id, client_seed, [revealed])
        return SeedRotated(new.seed_id, old.seed_id if old.draw_count else None)

    return await ctx.store.run(work, request)


async def seed_page(
    ctx: Context, player_id: str, limit: int, after: tuple[datetime, str] | None = None
) -> list[SeedRecord]:
    """The player's server seeds, newest first, after the keyset position ``after``
    (committed_at, seed_id) if given: the secret only of revealed ones."""
    return await ctx.store.seeds(player_id, limit, after)


SEED_PAGE = 50


async def seed_records(ctx: Context, player_id: str, *seed_ids: str) -> dict[str, SeedRecord]:
    """These of the player's seeds. Usually the latest two (the one in force and the one
    before), but a rotation retried after later ones, or raced by another, names older
    seeds: read back page by page, newest first, until every one is found."""
    wanted = {seed_id for seed_id in seed_ids if seed_id}
    found: dict[str, SeedRecord] = {}
    after: tuple[datetime, str] | None = None
    while wanted - found.keys():
        page = await seed_page(ctx, player_id, SEED_PAGE, after)
        found |= {s.seed_id: s for s in page if s.seed_id in wanted}
        if len(page) < SEED_PAGE:
            break
        after = (page[-1].committed_at, page[-1].seed_id)
    return found


async def open_booster(
    ctx: Context, request: Request, player_id: str, expected_seed_hash: str
) -> BoosterBought:
    """Pay and draw in one transaction, from the seed in force at its next counter."""

    async def work(unit: Unit) -> BoosterBought:
        row = await unit.player(player_id)
        seed = await _seed_in_force(ctx, unit, player_id)
        if expected_seed_hash and expected_seed_hash != seed.seed_hash:
            raise Conflict(
                f"the server seed hash you gave ({short_id(expected_seed_hash)}) is not the "
                "one in force (it rotated since, or was mistyped): the commitment in force is "
                f"{seed.seed_hash}; check it and try again"
            )
        now = ctx.clock()
        paid, opened = seeds.open_booster(
            ctx.catalog, player_id, ctx.new_id(), row.coins, seed, row.boosters_since_pity, now
        )
        await unit.append_player(player_id, [paid, opened])
        metrics.count_coins(paid)
        _count_booster(opened)
        return BoosterBought(opened.draw.draw_id, coins=unit.coins(player_id), at=now)

    return await ctx.store.run(work, request)


def _count_booster(opened: BoosterOpened) -> None:
    metrics.BOOSTERS_OPENED.labels(pity=str(opened.draw.pity_applied).lower()).inc()
    for copy in opened.draw.copies:
        metrics.CARDS_DRAWN.labels(
            stars=str(copy.character.stars), holo=str(copy.holo).lower()
        ).inc()


async def booster_draw(ctx: Context, draw_id: str) -> BoosterDraw:
    return require_found(await ctx.store.draw(draw_id), f"no booster draw {draw_id}")


async def booster_draws(
    ctx: Context,
    player_id: str,
    seed_id: str,
    limit: int,
    after: tuple[datetime, int, str] | None = None,
) -> list[BoosterDraw]:
    """The player's draws, newest first (``seed_id``: of that seed, which must be theirs),
    after the keyset position ``after`` (opened_at, counter, draw_id) if given."""
    if seed_id:
        mine = {s.seed_id for s in await seed_page(ctx, player_id, 10_000)}
        if seed_id not in mine:
            raise NotFound(f"you have no server seed {seed_id}")
    return await ctx.store.draws(player_id, seed_id, limit, after)


async def boosters_since_pity(ctx: Context, player_id: str) -> int:
    return await ctx.store.boosters_since_pity(player_id)
