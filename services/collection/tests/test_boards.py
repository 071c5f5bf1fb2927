"""Decks for every board (RULES.md 11) on both repository adapters: saved decks of 5, 8
and 13 with their own star limits, a table asking for its size (a clear refusal
otherwise), Random of every size from the player's own free copies, and house hands
dealt from the whole catalog that never touch a collection."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from services.collection import handlers_decks
from services.collection.domain import decks
from services.collection.handlers import Context
from services.collection.tests.helpers import key, refused, starter
from services.platform.errors import InvalidArgument
from services.rules import DeckEntry, validate_deck
from services.rules.deck import STAR_LIMITS


async def test_decks_of_five_and_eight_are_saved_and_each_table_asks_for_its_own_size(
    ctx: Context,
) -> None:
    mine = await starter(ctx)  # ten characters of 3★ or less
    eight = await handlers_decks.save_deck(ctx, key("p1", "d8"), "p1", "", "Cloth", mine[:8])
    assert list((await handlers_decks.deck(ctx, "p1", eight.deck_id)).copy_ids) == mine[:8]
    await refused(
        ctx.store,
        handlers_decks.save_deck(ctx, key("p1", "d6"), "p1", "", "Six", mine[:6]),
        decks.DeckBroken,
        "a deck holds 5 cards \\(3x3 board\\), 8 \\(4x4\\) or 13 \\(5x5\\); this one holds 6",
    )
    assert await handlers_decks.deck_violations(ctx, "p1", mine[:8], 8) == ()
    broken = await handlers_decks.deck_violations(ctx, "p1", mine[:5], 8)
    assert [v.message for v in broken] == ["a 4x4 table needs a deck of 8; this one holds 5"]
    with pytest.raises(decks.DeckUnavailable, match="a 3x3 table needs a deck of 5"):
        await handlers_decks.resolve_deck_for_match(
            ctx, key("p1", "r"), "p1", eight.deck_id, "m1", None, 5
        )
    resolved = await handlers_decks.resolve_deck_for_match(
        ctx, key("p1", "r8"), "p1", eight.deck_id, "m2", None, 8
    )
    assert resolved.copy_ids == tuple(mine[:8])


async def test_random_draws_a_deck_of_the_tables_size_from_the_players_own_free_copies(
    ctx: Context,
) -> None:
    mine = await starter(ctx)
    drawn = await handlers_decks.resolve_deck_for_match(
        ctx, key("p1", "r"), "p1", None, "m1", None, 8
    )
    assert drawn.random and len(drawn.copy_ids) == 8 and set(drawn.copy_ids) <= set(mine)
    copies = await ctx.store.copies("p1")
    entries = [DeckEntry(i, copies[i].character.id, copies[i].character.stars) for i in mine]
    assert validate_deck([e for e in entries if e.copy_id in drawn.copy_ids]) == ()
    assert await handlers_decks.random_deck_possible(ctx, "p1", 8) is None
    # Ten characters hold no deck of thirteen: said so, with the size.
    reason = await handlers_decks.random_deck_possible(ctx, "p1", 13)
    assert reason is not None and "no legal deck of 13" in reason
    assert "yours hold 10 different characters (a booster brings more)" in reason


@pytest.mark.parametrize("size", [5, 8, 13])
def test_a_house_hand_is_a_legal_hand_from_the_whole_catalog_the_same_for_a_retry(
    ctx: Context, size: int
) -> None:
    hand = handlers_decks.deal_house_hand(ctx, "start-1:p1", size)
    assert hand == handlers_decks.deal_house_hand(ctx, "start-1:p1", size)
    assert hand != handlers_decks.deal_house_hand(ctx, "start-1:p2", size)
    entries = [DeckEntry(c.character.id, c.character.id, c.character.stars) for c in hand]
    assert len(entries) == size and validate_deck(entries) == ()
    ids = {handlers_decks.house_card_id("start-1:p1", n) for n in range(size)}
    assert len(ids) == size


def test_house_hands_are_holographic_one_card_in_twenty_and_reach_every_rank(
    ctx: Context,
) -> None:
    rng = Random(3)
    cards = [card for _ in range(400) for card in decks.deal_house_hand(list(ctx.catalog), 13, rng)]
    holo = sum(1 for card in cards if card.holo)
    assert 0.035 < holo / len(cards) < 0.065  # 5,200 cards: 5% within about 4 sigma
    assert all(card.holo for card in cards if card.holo_side is not None)
    ranks = Counter(card.character.stars for card in cards)
    assert set(ranks) == {1, 2, 3, 4, 5}
    most_fives, _ = STAR_LIMITS[13]
    assert ranks[5] <= 400 * most_fives


def test_a_bot_deck_of_every_size_is_legal_and_a_hand_of_six_is_refused(ctx: Context) -> None:
    for size in (5, 8, 13):
        deck = handlers_decks.draw_bot_deck(ctx, f"bot-{size}", size)
        entries = [DeckEntry(c.id, c.id, c.stars) for c in deck]
        assert len(deck) == size and validate_deck(entries) == ()
    with pytest.raises(InvalidArgument, match="this one holds 6"):
        handlers_decks.draw_bot_deck(ctx, "bot-6", 6)
