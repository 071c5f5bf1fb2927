"""Use cases of decks (RULES.md 2, 6, 11) and locks (RULES.md 9): saving and deleting a
deck, checking one, the copies a player brings to a match (5, 8 or 13), a bot's deck, a
house hand, locking and releasing copies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from random import Random
from uuid import NAMESPACE_URL, uuid5

from services.collection.domain import decks
from services.collection.domain.catalog import Character
from services.collection.domain.events import (
    DeckDeleted,
    Holder,
    OwnedCopy,
    PlayerEvent,
    RandomDeckDrawn,
)
from services.collection.handlers import Context, PendingObligation
from services.collection.results import CopiesChanged, DeckChanged, DeckRecord, DeckResolved
from services.collection.store import Request, Unit
from services.platform.errors import InvalidArgument, NotFound, short_id
from services.rules import Violation
from services.rules.deck import (
    BOARD_HANDS,
    DECK_SIZE,
    STAR_LIMITS,
    DeckEntry,
    deck_size_problem,
    validate_deck,
)


def no_deck(deck_id: str) -> NotFound:
    return NotFound(f"you have no deck {short_id(deck_id)}")


async def save_deck(
    ctx: Context, request: Request, player_id: str, deck_id: str, name: str, copy_ids: list[str]
) -> DeckChanged:
    async def work(unit: Unit) -> DeckChanged:
        await unit.player(player_id)
        replaced = None
        if deck_id:
            replaced = await unit.deck(player_id, deck_id)
            if replaced is None:
                raise no_deck(deck_id)
        owned = await unit.copies(player_id, copy_ids)
        locks = await unit.locks([*copy_ids, *(replaced or ())])
        saved = decks.save_deck(
            player_id,
            deck_id or ctx.new_id(),
            name,
            copy_ids,
            owned,
            locks,
            replaced,
            await unit.deck_count(player_id),
        )
        await unit.append_player(player_id, [saved])
        return DeckChanged(saved.deck_id)

    return await ctx.store.run(work, request)


async def delete_deck(ctx: Context, request: Request, player_id: str, deck_id: str) -> DeckChanged:
    async def work(unit: Unit) -> DeckChanged:
        await unit.player(player_id)
        if await unit.deck(player_id, deck_id) is None:
            raise no_deck(deck_id)
        await unit.append_player(player_id, [DeckDeleted(player_id, deck_id)])
        return DeckChanged(deck_id)

    return await ctx.store.run(work, request)


async def deck(ctx: Context, player_id: str, deck_id: str) -> DeckRecord:
    """One of the player's saved decks; NOT_FOUND if it is not theirs."""
    found = await ctx.store.deck(player_id, deck_id)
    if found is None:
        raise no_deck(deck_id)
    return found


async def deck_page(
    ctx: Context, player_id: str, limit: int, after: tuple[datetime, str] | None = None
) -> list[DeckRecord]:
    """The player's decks, last changed first, after the keyset position ``after``."""
    return await ctx.store.decks(player_id, limit, after)


def board_of(hand_size: int) -> int | None:
    """The board (side length) a table's hand size is for; None for 0 (any deck)."""
    if not hand_size:
        return None
    boards = {hand: board for board, hand in BOARD_HANDS.items()}
    if hand_size not in boards:
        raise InvalidArgument(f"hand_size is 5, 8 or 13 (or 0 for any), not {hand_size}")
    return boards[hand_size]


async def deck_violations(
    ctx: Context, player_id: str, copy_ids: Sequence[str], hand_size: int = 0, saved: bool = False
) -> tuple[Violation, ...]:
    """Every rule the deck breaks now (RULES.md 2, 9 and 11: for a table of
    ``hand_size`` when given), read without locking. ``saved``: the copies of a saved
    deck, each the player's when it was saved, so one gone since is named."""
    owned = await ctx.store.copies(player_id, copy_ids)
    locks = await ctx.store.locks(copy_ids)
    gone = await _gone(ctx, copy_ids, owned) if saved else None
    return decks.deck_violations(copy_ids, owned, locks, board_of(hand_size), gone)


async def _gone(
    ctx: Context, copy_ids: Sequence[str], owned: Mapping[str, OwnedCopy]
) -> dict[str, OwnedCopy]:
    """The copies of a saved deck the player no longer owns (traded, sold): found from
    outside, a deck that lost two cards to a Difference trade named them only "copy
    4124db6a, copy ef468272", which no screen shows."""
    strangers = [i for i in copy_ids if i not in owned]
    return await ctx.store.copies_by_id(strangers) if strangers else {}


async def random_deck_possible(
    ctx: Context, player_id: str, hand_size: int = DECK_SIZE
) -> str | None:
    """Why no Random deck of ``hand_size`` can be drawn from the free copies now, or
    None if one can."""
    board_of(hand_size)
    free = await _free_copies(ctx, player_id)
    try:
        decks.draw_random_deck(free, Random(0), hand_size or DECK_SIZE)
    except decks.NoRandomDeck as error:
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
    hand_size: int = DECK_SIZE,
) -> DeckResolved:
    """The copies a player brings to a match of ``hand_size`` (5, 8 or 13): a saved
    deck of that size checked now, or a Random deck drawn and recorded; locked for a
    trading match in the same transaction."""
    board = board_of(hand_size or DECK_SIZE)

    async def work(unit: Unit) -> DeckResolved:
        await unit.player(player_id)
        done = await unit.resolution(player_id, purpose_id)
        if done is not None:
            return done
        if await unit.pending_trade_of(player_id) is not None:
            # The words of the obligation (HasPendingObligations) for the same case.
            raise PendingObligation("a Trade One card must change hands before your next match")
        if await unit.open_draft_of(player_id) is not None:
            raise PendingObligation("finish your draft before starting another match")
        events: list[PlayerEvent] = []
        if deck_id is None:
            free = await _free_copies(ctx, player_id, unit)
            drawn = decks.draw_random_deck(free, ctx.rng, hand_size or DECK_SIZE)
            copy_ids = [c.copy_id for c in drawn]
            events.append(RandomDeckDrawn(player_id, purpose_id, tuple(copy_ids)))
        else:
            saved = await unit.deck(player_id, deck_id)
            if saved is None:
                raise no_deck(deck_id)
            copy_ids = list(saved)
        owned = await unit.copies(player_id, copy_ids, lock=True)
        locks = await unit.locks(copy_ids)
        # A copy already locked for this very match is no obstacle (the lock is retried).
        others = {i: holder for i, holder in locks.items() if holder != lock_for}
        # A saved deck's copies gone since are named by their characters; a deck whose
        # copies are all still the player's reads nothing more.
        gone = await _gone(ctx, copy_ids, owned)
        broken = decks.deck_violations(copy_ids, owned, others, board, gone)
        if broken:
            raise decks.DeckUnavailable(broken)
        if lock_for is not None:
            locked = decks.lock(player_id, copy_ids, owned.keys(), locks, lock_for)
            if locked is not None:
                events.append(locked)
        await unit.append_player(player_id, events)
        await unit.save_resolution(player_id, purpose_id, copy_ids, deck_id is None)
        return DeckResolved(tuple(copy_ids), deck_id is None)

    return await ctx.store.run(work, request)


def draw_bot_deck(ctx: Context, request_id: str, hand_size: int) -> list[Character]:
    """A legal deck from the catalog for a bot; the same request id draws the same deck.
    Hands of 8 and 13 (RULES.md 11) are drawn like house hands, without holo."""
    if (problem := deck_size_problem(hand_size or DECK_SIZE)) is not None:
        raise InvalidArgument(f"hand_size: {problem}")
    rng = Random(uuid5(NAMESPACE_URL, f"triad:bot-deck:{request_id}").int)
    pool = [c for c in ctx.catalog if c.stars <= 4]
    if hand_size and hand_size != DECK_SIZE:
        return [card.character for card in decks.deal_house_hand(pool, hand_size, rng)]
    while True:
        deck = rng.sample(pool, DECK_SIZE)
        entries = [DeckEntry(c.id, c.id, c.stars) for c in deck]
        if not validate_deck(entries):
            return deck


def deal_house_hand(ctx: Context, request_id: str, hand_size: int) -> tuple[decks.HouseCard, ...]:
    """A house hand (RULES.md 11) of ``hand_size`` from the whole catalog, 5% holo; the
    same request id deals the same hand (the match records it; nothing is stored here,
    as the cards never enter a collection)."""
    if hand_size not in STAR_LIMITS:
        raise InvalidArgument(f"a house hand holds 5, 8 or 13 cards, not {hand_size}")
    rng = Random(uuid5(NAMESPACE_URL, f"triad:house-hand:{request_id}").int)
    return decks.deal_house_hand(list(ctx.catalog), hand_size, rng)


def house_card_id(request_id: str, index: int) -> str:
    """The id of a house hand's card, derived from the request like a bot's."""
    return f"house-{uuid5(NAMESPACE_URL, f'triad:house-card:{request_id}:{index}')}"


def bot_card_id(request_id: str, index: int) -> str:
    """The id of a bot's card: derived from the request, so a retry gets the same ids."""
    return f"bot-{uuid5(NAMESPACE_URL, f'triad:bot-card:{request_id}:{index}')}"


# --- locks (RULES.md 9) ---------------------------------------------------------------------


async def lock_copies(
    ctx: Context, request: Request, player_id: str, copy_ids: Sequence[str], holder: Holder
) -> CopiesChanged:
    async def work(unit: Unit) -> CopiesChanged:
        await unit.player(player_id)
        owned = await unit.copies(player_id, copy_ids, lock=True)
        locked = decks.lock(player_id, copy_ids, owned.keys(), await unit.locks(copy_ids), holder)
        if locked is not None:
            await unit.append_player(player_id, [locked])
        return CopiesChanged(tuple(dict.fromkeys(copy_ids)))

    return await ctx.store.run(work, request)


async def release_copies(ctx: Context, request: Request | None, holder: Holder) -> CopiesChanged:
    async def work(unit: Unit) -> CopiesChanged:
        return CopiesChanged(tuple(await release_in(unit, holder)))

    return await ctx.store.run(work, request)


async def release_in(unit: Unit, holder: Holder) -> list[str]:
    held = await unit.held_by(holder)
    await unit.players(*held)
    released: list[str] = []
    for owner, ids in sorted(held.items()):
        event = decks.release(owner, ids, holder)
        if event is not None:
            await unit.append_player(owner, [event])
            released += ids
    return released
