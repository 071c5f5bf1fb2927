"""A player's wealth, on both repository adapters: starter, currency, decks, locks, boosters.

Each refusal is checked to change nothing: the event log and every table stay as they
were (``snapshot``)."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from services.collection import handlers, handlers_decks, handlers_economy
from services.collection.domain import decks, wealth
from services.collection.domain.events import (
    CurrencyDebited,
    CurrencyReason,
    Holder,
    HolderKind,
    PlayerRef,
)
from services.collection.handlers import Context
from services.collection.store import InsufficientBalance, Repository, Request, Store
from services.collection.tests.helpers import key, refused, snapshot, starter
from services.platform.errors import DomainError
from services.rules import DeckEntry, validate_deck


async def test_a_new_player_gets_a_starter_collection_once_that_allows_a_legal_deck(
    ctx: Context,
) -> None:
    first = await handlers.grant_starter(ctx, key("p1", "a"), PlayerRef("p1", "Ann"))
    again = await handlers.grant_starter(ctx, key("p1", "b"), PlayerRef("p1", "Ann"))
    assert first.grant_id == again.grant_id and again.coins == wealth.STARTER_COINS
    copies = await ctx.store.copies("p1")
    assert len(copies) == len(wealth.STARTER_RANKS)
    deck = [DeckEntry(c.copy_id, c.character.id, c.character.stars) for c in copies.values()][:5]
    assert validate_deck(deck, owned=copies.keys()) == ()


async def test_concurrent_spends_never_take_a_balance_below_zero(ctx: Context) -> None:
    await handlers_economy.credit(ctx, key("p1", "c"), "p1", 1000, CurrencyReason.GRANT, "gift")

    async def spend(n: int) -> bool:
        try:
            await handlers_economy.spend(
                ctx, key("p1", f"s{n}"), "p1", 100, CurrencyReason.GRANT, f"r{n}"
            )
        except wealth.InsufficientFunds:
            return False
        return True

    results = await asyncio.gather(*(spend(n) for n in range(30)))
    assert sum(results) == 10
    assert (await ctx.store.balance("p1")).coins == 0
    await refused(
        ctx.store,
        handlers_economy.spend(ctx, key("p1", "late"), "p1", 1, CurrencyReason.GRANT, "late"),
        wealth.InsufficientFunds,
        "balance too low",
    )


def test_a_player_short_of_coins_is_told_how_coins_are_earned() -> None:
    """Found from outside: "win matches to earn more", though a win against a bot pays
    nothing (only the day's first match does) and sales pay too."""
    with pytest.raises(wealth.InsufficientFunds) as refused_spend:
        wealth.spend("p1", 2, 100, CurrencyReason.BOOSTER_PURCHASE, "b")
    said = str(refused_spend.value)
    assert "100 coins needed, 2 held" in said
    assert "60 for your first of the UTC day, 40 for a win against another player" in said
    assert "Auction House sales" in said


async def test_the_schema_refuses_a_negative_balance_whatever_python_decided(
    ctx: Context, store: Repository
) -> None:
    await handlers_economy.credit(ctx, key("p1", "c"), "p1", 50, CurrencyReason.GRANT, "gift")

    async def overspend(unit: Any) -> dict[str, Any]:
        await unit.player("p1")
        await unit.append_player("p1", [CurrencyDebited("p1", 80, CurrencyReason.GRANT, "x", -30)])
        return {}

    await refused(store, store.run(overspend), InsufficientBalance, "never goes negative")
    if isinstance(store, Store):  # the constraint itself, whatever wrote the row
        with pytest.raises(asyncpg.CheckViolationError):
            await store.pool.execute(f"UPDATE {store.tables.players} SET coins = -1")


async def test_a_retried_request_returns_the_first_result_and_acts_once(ctx: Context) -> None:
    request = key("p1", "once")
    first = await handlers_economy.credit(ctx, request, "p1", 70, CurrencyReason.GRANT, "r1")
    before = await snapshot(ctx.store)
    assert (
        await handlers_economy.credit(ctx, request, "p1", 70, CurrencyReason.GRANT, "r1") == first
    )
    assert await snapshot(ctx.store) == before
    reused = Request.of("p1", "once", "something else")
    await refused(
        ctx.store,
        handlers_economy.credit(ctx, reused, "p1", 5, CurrencyReason.GRANT, "r2"),
        DomainError,
        "already used",
    )


async def test_decks_are_saved_only_when_legal_and_every_refusal_names_the_rule(
    ctx: Context,
) -> None:
    mine = await starter(ctx)
    theirs = await starter(ctx, "p2")
    done = await handlers_decks.save_deck(ctx, key("p1", "d"), "p1", "", "Main", mine[:5])
    assert (await ctx.store.deck("p1", done.deck_id)) is not None
    cases = [
        (mine[:4], decks.DeckBroken, "a deck holds 5 cards"),
        ([*mine[:4], mine[0]], decks.DeckBroken, "appears 2 times"),
        (
            [*mine[:4], theirs[0]],
            decks.DeckUnavailable,
            f"copy {theirs[0][:8]} is not in your collection",
        ),
    ]
    for n, (ids, kind, rule) in enumerate(cases):
        await refused(
            ctx.store,
            handlers_decks.save_deck(ctx, key("p1", f"bad{n}"), "p1", "", "Bad", ids),
            kind,
            rule,
        )


async def test_a_locked_copy_cannot_join_a_deck_another_match_or_a_trade(ctx: Context) -> None:
    mine = await starter(ctx)
    match = Holder(HolderKind.MATCH, "m1")
    await handlers_decks.lock_copies(ctx, key("p1", "l1"), "p1", mine[:5], match)
    await refused(
        ctx.store,
        handlers_decks.save_deck(ctx, key("p1", "d"), "p1", "", "Main", [mine[0], *mine[5:9]]),
        decks.DeckUnavailable,
        rf"\({mine[0][:8]}\) is locked",
    )
    await refused(
        ctx.store,
        handlers_decks.lock_copies(
            ctx, key("p1", "l2"), "p1", mine[4:6], Holder(HolderKind.MATCH, "m2")
        ),
        decks.CopiesLockedError,
        "locked by match m1",
    )
    released = await handlers_decks.release_copies(ctx, key("x", "r"), match)
    assert sorted(released.copy_ids) == sorted(mine[:5])
    await handlers_decks.save_deck(ctx, key("p1", "d2"), "p1", "", "Main", mine[:5])


async def test_resolving_a_deck_for_a_trading_match_locks_it_once(ctx: Context) -> None:
    mine = await starter(ctx)
    deck = (await handlers_decks.save_deck(ctx, key("p1", "d"), "p1", "", "Main", mine[:5])).deck_id
    match = Holder(HolderKind.MATCH, "m1")
    first = await handlers_decks.resolve_deck_for_match(
        ctx, key("p1", "r1"), "p1", deck, "m1", match
    )
    again = await handlers_decks.resolve_deck_for_match(
        ctx, key("p1", "r2"), "p1", deck, "m1", match
    )
    assert first.copy_ids == again.copy_ids == tuple(mine[:5])
    assert set(await ctx.store.locks(mine)) == set(mine[:5])
    drawn = await handlers_decks.resolve_deck_for_match(
        ctx, key("p1", "r3"), "p1", None, "m2", None
    )
    assert drawn.random and not set(drawn.copy_ids) & set(mine[:5])  # free copies only
    copies = await ctx.store.copies("p1")
    entries = [
        DeckEntry(i, copies[i].character.id, copies[i].character.stars) for i in drawn.copy_ids
    ]
    assert validate_deck(entries) == ()


async def test_a_booster_costs_its_price_and_a_rotation_reveals_the_seed(ctx: Context) -> None:
    await starter(ctx)
    seed = await handlers_economy.seed_commitment(ctx, "p1")
    for n in range(3):
        await handlers_economy.open_booster(ctx, key("p1", f"b{n}"), "p1", seed.seed_hash)
    assert (await ctx.store.balance("p1")).coins == 0
    assert len(await ctx.store.copies("p1")) == len(wealth.STARTER_RANKS) + 15
    await refused(
        ctx.store,
        handlers_economy.open_booster(ctx, key("p1", "b9"), "p1", ""),
        wealth.InsufficientFunds,
        "balance too low",
    )
    rotated = await handlers_economy.set_client_seed(ctx, key("p1", "cs"), "p1", "my-luck")
    assert rotated.revealed == seed.seed_id
    rows = {r.seed_id: r for r in await ctx.store.seeds("p1", 10)}
    assert rows[seed.seed_id].revealed_at is not None and rows[seed.seed_id].draw_count == 3
    assert rows[rotated.seed_id].client_seed == "my-luck"
    await handlers_economy.credit(ctx, key("p1", "c"), "p1", 100, CurrencyReason.GRANT, "g")
    await refused(
        ctx.store,
        handlers_economy.open_booster(ctx, key("p1", "stale"), "p1", seed.seed_hash),
        DomainError,
        "is not the one in force",
    )
