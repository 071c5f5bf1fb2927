"""The collection's use cases for a player's wealth: grants, decks, locks, currency,
seeds and boosters. One short function each: open a unit of work, load what the
decision needs, decide (``domain``), append. No protobuf, SQL or NATS here (STYLE 7).

A handler returns a small dict (ids, a balance) that ``Store.run`` records with the
request id, so a retried request answers from the first run's record.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from random import Random
from uuid import NAMESPACE_URL, UUID, uuid5

import structlog

from services.collection import boosters, domain, metrics
from services.collection.catalog import Catalog, Character
from services.collection.domain import ActiveSeed
from services.collection.events import (
    BoosterOpened,
    CopySource,
    CurrencyCredited,
    CurrencyDebited,
    CurrencyReason,
    DeckDeleted,
    Holder,
    OwnedCopy,
    PlayerEvent,
    PlayerRef,
    RandomDeckDrawn,
)
from services.collection.store import Request, Result, Store, Unit
from services.match.rules import Violation
from services.match.rules.deck import DECK_SIZE, DeckEntry, validate_deck
from services.platform.errors import (
    Conflict,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    short_id,
)

log = structlog.get_logger()


def new_server_seed() -> str:
    """32 bytes from the operating system's CSPRNG: a seed nobody can predict."""
    return secrets.token_hex(boosters.SEED_BYTES)


@dataclass(frozen=True, slots=True)
class Context:
    store: Store
    catalog: Catalog
    clock: Callable[[], datetime]
    rng: Random
    server_seed: Callable[[], str] = new_server_seed
    choice_seconds: float = 120.0
    pick_seconds: float = 180.0
    inactivity_seconds: float = 120.0
    pair_rewards_per_day: int = domain.PAIR_REWARDED_MATCHES_PER_DAY

    def new_id(self) -> str:
        return str(UUID(int=self.rng.getrandbits(128), version=4))


class PendingObligation(FailedPrecondition):
    """A player owes a trade or sits in a draft: no new match until it completes."""


def _coins(unit: Unit, player_id: str, at: datetime) -> Result:
    return {"coins": unit.coins(player_id), "at": at.isoformat()}


# --- grants ---------------------------------------------------------------------------------


async def grant_starter(ctx: Context, request: Request, player: PlayerRef) -> Result:
    """The starter collection and coins, once per player, however often asked."""
    grant_id = str(uuid5(NAMESPACE_URL, f"triad:starter:{player.player_id}"))

    async def work(unit: Unit) -> Result:
        row = await unit.player(player.player_id)
        now = ctx.clock()
        if row.starter_grant_id is None:
            characters = domain.starter_characters(ctx.catalog, ctx.rng)
            holos = [domain.draw_holo(c, ctx.rng) for c in characters]
            granted = domain.grant(
                player.player_id, grant_id, characters, holos, CopySource.STARTER, now
            )
            coins = domain.credit(
                player.player_id, row.coins, domain.STARTER_COINS, CurrencyReason.STARTER, grant_id
            )
            await unit.append_player(player.player_id, [*granted, coins])
            await unit.mark_starter(player.player_id, grant_id)
            metrics.COINS_IN.labels(reason=CurrencyReason.STARTER.value).inc(coins.amount)
            log.info("starter granted", player_id=player.player_id, copies=len(granted))
        return {"grant_id": grant_id, **_coins(unit, player.player_id, now)}

    return await ctx.store.run(work, request)


async def grant_copies(
    ctx: Context, request: Request, player_id: str, character_ids: Sequence[str], reason: str
) -> Result:
    """An operator's grant (compensation, events); the reason goes to the audit log."""
    unknown = ctx.catalog.unknown(character_ids)
    if unknown:
        raise NotFound(f"no characters {', '.join(unknown)} in the catalog")
    if not character_ids:
        raise InvalidArgument("name at least one character to grant")
    characters: list[Character] = []
    for i in character_ids:
        found = ctx.catalog.get(i)
        assert found is not None
        characters.append(found)
    grant_id = ctx.new_id()

    async def work(unit: Unit) -> Result:
        holos = [domain.draw_holo(c, ctx.rng) for c in characters]
        granted = domain.grant(
            player_id, grant_id, characters, holos, CopySource.GRANT, ctx.clock()
        )
        await unit.append_player(player_id, granted)
        log.info("copies granted", player_id=player_id, grant_id=grant_id, reason=reason)
        return {"grant_id": grant_id}

    return await ctx.store.run(work, request)


# --- decks ----------------------------------------------------------------------------------


async def save_deck(
    ctx: Context, request: Request, player_id: str, deck_id: str, name: str, copy_ids: list[str]
) -> Result:
    async def work(unit: Unit) -> Result:
        await unit.player(player_id)
        replaced = None
        if deck_id:
            replaced = await unit.deck(player_id, deck_id)
            if replaced is None:
                raise NotFound(f"you have no deck {short_id(deck_id)}")
        owned = await unit.copies(player_id, copy_ids)
        locks = await unit.locks([*copy_ids, *(replaced or ())])
        saved = domain.save_deck(
            player_id,
            deck_id or ctx.new_id(),
            name,
            copy_ids,
            owned,
            locks.keys(),
            replaced,
            await unit.deck_count(player_id),
        )
        await unit.append_player(player_id, [saved])
        return {"deck_id": saved.deck_id}

    return await ctx.store.run(work, request)


async def delete_deck(ctx: Context, request: Request, player_id: str, deck_id: str) -> Result:
    async def work(unit: Unit) -> Result:
        await unit.player(player_id)
        if await unit.deck(player_id, deck_id) is None:
            raise NotFound(f"you have no deck {short_id(deck_id)}")
        await unit.append_player(player_id, [DeckDeleted(player_id, deck_id)])
        return {"deck_id": deck_id}

    return await ctx.store.run(work, request)


async def deck_violations(
    ctx: Context, player_id: str, copy_ids: Sequence[str]
) -> tuple[Violation, ...]:
    """Every rule the deck breaks now (RULES.md 2 and 9), read without locking."""
    owned = await ctx.store.copies(player_id, copy_ids)
    locks = await ctx.store.locks(copy_ids)
    return domain.deck_violations(copy_ids, owned, locks.keys())


async def random_deck_possible(ctx: Context, player_id: str) -> str | None:
    """Why no Random deck can be drawn from the free copies now, or None if one can."""
    free = await _free_copies(ctx, player_id)
    try:
        domain.draw_random_deck(free, Random(0))
    except domain.NoRandomDeck as error:
        return str(error)
    return None


async def _free_copies(ctx: Context, player_id: str, unit: Unit | None = None) -> list[OwnedCopy]:
    owned = await (unit.copies(player_id) if unit else ctx.store.copies(player_id))
    locks = await (unit.locks(list(owned)) if unit else ctx.store.locks(list(owned)))
    return [c for i, c in owned.items() if i not in locks]


async def resolve_deck_for_match(
    ctx: Context,
    request: Request,
    player_id: str,
    deck_id: str | None,
    purpose_id: str,
    lock_for: Holder | None,
) -> Result:
    """The five copies a player brings to a match: a saved deck checked now, or a Random
    deck drawn and recorded; locked for a trading match in the same transaction."""

    async def work(unit: Unit) -> Result:
        await unit.player(player_id)
        done = await unit.resolution(player_id, purpose_id)
        if done is not None:
            return {"copy_ids": done[0], "random": done[1]}
        trade_id = await unit.pending_trade_of(player_id)
        if trade_id is not None:
            # The words of the obligation (HasPendingObligations) for the same case.
            raise PendingObligation("a Trade One card must change hands before your next match")
        draft_id = await unit.open_draft_of(player_id)
        if draft_id is not None:
            raise PendingObligation("finish your draft before starting another match")
        events: list[PlayerEvent] = []
        if deck_id is None:
            free = await _free_copies(ctx, player_id, unit)
            drawn = domain.draw_random_deck(free, ctx.rng)
            copy_ids = [c.copy_id for c in drawn]
            events.append(RandomDeckDrawn(player_id, purpose_id, tuple(copy_ids)))
        else:
            saved = await unit.deck(player_id, deck_id)
            if saved is None:
                raise NotFound(f"you have no deck {short_id(deck_id)}")
            copy_ids = list(saved)
        owned = await unit.copies(player_id, copy_ids, lock=True)
        locks = await unit.locks(copy_ids)
        # A copy already locked for this very match is no obstacle (the lock is retried).
        others = [i for i, holder in locks.items() if holder != lock_for]
        broken = domain.deck_violations(copy_ids, owned, others)
        if broken:
            raise domain.DeckUnavailable(broken)
        if lock_for is not None:
            locked = domain.lock(player_id, copy_ids, owned.keys(), locks, lock_for)
            if locked is not None:
                events.append(locked)
        await unit.append_player(player_id, events)
        await unit.save_resolution(player_id, purpose_id, copy_ids, deck_id is None)
        return {"copy_ids": copy_ids, "random": deck_id is None}

    return await ctx.store.run(work, request)


def draw_bot_deck(ctx: Context, request_id: str, hand_size: int) -> list[Character]:
    """A legal deck from the catalog for a bot; the same request id draws the same deck."""
    if hand_size not in (0, DECK_SIZE):
        raise InvalidArgument(f"only {DECK_SIZE}-card hands are available")
    rng = Random(uuid5(NAMESPACE_URL, f"triad:bot-deck:{request_id}").int)
    pool = [c for c in ctx.catalog if c.stars <= 4]
    while True:
        deck = rng.sample(pool, DECK_SIZE)
        entries = [DeckEntry(c.id, c.id, c.stars) for c in deck]
        if not validate_deck(entries):
            return deck


# --- locks (RULES.md 9) ---------------------------------------------------------------------


async def lock_copies(
    ctx: Context, request: Request, player_id: str, copy_ids: Sequence[str], holder: Holder
) -> Result:
    async def work(unit: Unit) -> Result:
        await unit.player(player_id)
        owned = await unit.copies(player_id, copy_ids, lock=True)
        locked = domain.lock(player_id, copy_ids, owned.keys(), await unit.locks(copy_ids), holder)
        if locked is not None:
            await unit.append_player(player_id, [locked])
        return {"copy_ids": list(dict.fromkeys(copy_ids))}

    return await ctx.store.run(work, request)


async def release_copies(ctx: Context, request: Request | None, holder: Holder) -> Result:
    async def work(unit: Unit) -> Result:
        return {"copy_ids": await release_in(unit, holder)}

    return await ctx.store.run(work, request)


async def release_in(unit: Unit, holder: Holder) -> list[str]:
    held = await unit.held_by(holder)
    await unit.players(*held)
    released: list[str] = []
    for owner, ids in sorted(held.items()):
        event = domain.release(owner, ids, holder)
        if event is not None:
            await unit.append_player(owner, [event])
            released += ids
    return released


# --- currency -------------------------------------------------------------------------------


async def credit(
    ctx: Context,
    request: Request | None,
    player_id: str,
    amount: int,
    reason: CurrencyReason,
    reference_id: str,
) -> Result:
    """Add coins once per (player, reason, reference)."""

    async def work(unit: Unit) -> Result:
        await credit_in(unit, player_id, amount, reason, reference_id)
        return _coins(unit, player_id, ctx.clock())

    return await ctx.store.run(work, request)


async def credit_in(
    unit: Unit, player_id: str, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyCredited | None:
    row = await unit.player(player_id)
    if await unit.credited(player_id, reason.value, reference_id):
        return None
    event = domain.credit(player_id, row.coins, amount, reason, reference_id)
    await unit.append_player(player_id, [event])
    metrics.COINS_IN.labels(reason=reason.value).inc(amount)
    return event


async def reward_match(unit: Unit, played: domain.PlayedMatch, pair_limit: int) -> None:
    """Pay for playing a finished match (``domain.match_reward``), once per match.

    Runs in the settling transaction: the decision row, the credits and the consumer's
    processed mark commit together, so a replay or a crash neither pays nor counts twice.
    Both humans' rows are locked first, so two matches of one pair settle in turn and
    the daily count each reads is exact."""
    await unit.players(*played.humans)
    if await unit.match_reward(played.match_id) is not None:
        return  # settled by an earlier delivery
    pair = domain.reward_pair(played.humans)
    earlier = 0 if pair is None else await unit.pair_rewarded(pair, played.day)
    reward = domain.match_reward(played, earlier, pair_limit)
    await unit.record_match_reward(played.match_id, reward.decision.value, played.day, pair)
    for player_id in reward.first_match:
        await credit_in(
            unit,
            player_id,
            domain.DAILY_FIRST_MATCH_COINS,
            CurrencyReason.DAILY_FIRST_MATCH,
            played.day,
        )
    if reward.winner is not None:
        await credit_in(
            unit, reward.winner, domain.MATCH_WIN_COINS, CurrencyReason.MATCH_WIN, played.match_id
        )
    metrics.MATCH_REWARDS.labels(decision=reward.decision.value).inc()
    if reward.decision is not domain.RewardDecision.PAID:
        log.info(
            "match paid nothing",
            match_id=played.match_id,
            decision=reward.decision.value,
            players=list(played.humans),
            placements=played.placements,
        )


async def spend(
    ctx: Context,
    request: Request,
    player_id: str,
    amount: int,
    reason: CurrencyReason,
    reference_id: str,
) -> Result:
    async def work(unit: Unit) -> Result:
        row = await unit.player(player_id)
        event: CurrencyDebited = domain.spend(player_id, row.coins, amount, reason, reference_id)
        await unit.append_player(player_id, [event])
        metrics.COINS_OUT.labels(reason=reason.value).inc(amount)
        return _coins(unit, player_id, ctx.clock())

    return await ctx.store.run(work, request)


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
    committed = domain.commit_seed(player_id, seed_id, secret, client_seed)
    now = ctx.clock()
    await unit.save_seed(player_id, seed_id, secret, committed.seed_hash, client_seed, now)
    await unit.append_player(player_id, [*before, committed])
    return ActiveSeed(seed_id, secret, committed.seed_hash, client_seed, 0, now)


async def seed_commitment(ctx: Context, player_id: str) -> ActiveSeed:
    found = await ctx.store.active_seed(player_id)
    if found is not None:
        return found

    async def work(unit: Unit) -> Result:
        await unit.player(player_id)
        return {"seed_id": (await _seed_in_force(ctx, unit, player_id)).seed_id}

    await ctx.store.run(work)
    seed = await ctx.store.active_seed(player_id)
    assert seed is not None
    return seed


async def set_client_seed(
    ctx: Context, request: Request, player_id: str, client_seed: str
) -> Result:
    """Rotate: the seed in force is revealed, a new one committed with the new client seed."""
    domain.valid_client_seed(client_seed)

    async def work(unit: Unit) -> Result:
        await unit.player(player_id)
        old = await unit.active_seed(player_id)
        if old is None:
            new = await _commit(ctx, unit, player_id, client_seed, [])
            return {"seed_id": new.seed_id, "revealed": None}
        revealed, _ = domain.rotate_seed(player_id, old, "", ctx.server_seed(), client_seed)
        await unit.reveal_seed(old.seed_id, ctx.clock())
        new = await _commit(ctx, unit, player_id, client_seed, [revealed])
        return {"seed_id": new.seed_id, "revealed": old.seed_id if old.draw_count else None}

    return await ctx.store.run(work, request)


async def open_booster(
    ctx: Context, request: Request, player_id: str, expected_seed_hash: str
) -> Result:
    """Pay and draw in one transaction, from the seed in force at its next counter."""

    async def work(unit: Unit) -> Result:
        row = await unit.player(player_id)
        seed = await _seed_in_force(ctx, unit, player_id)
        if expected_seed_hash and expected_seed_hash != seed.seed_hash:
            raise Conflict(
                "the server seed you saw is no longer in force; fetch the new commitment "
                f"({seed.seed_hash}) and try again"
            )
        now = ctx.clock()
        paid, opened = domain.open_booster(
            ctx.catalog, player_id, ctx.new_id(), row.coins, seed, row.boosters_since_pity, now
        )
        await unit.append_player(player_id, [paid, opened])
        _count_booster(opened)
        return {"draw_id": opened.draw.draw_id, **_coins(unit, player_id, now)}

    return await ctx.store.run(work, request)


def _count_booster(opened: BoosterOpened) -> None:
    metrics.BOOSTERS_OPENED.labels(pity=str(opened.draw.pity_applied).lower()).inc()
    metrics.COINS_OUT.labels(reason=CurrencyReason.BOOSTER_PURCHASE.value).inc(opened.draw.price)
    for copy in opened.draw.copies:
        metrics.CARDS_DRAWN.labels(
            stars=str(copy.character.stars), holo=str(copy.holo).lower()
        ).inc()
