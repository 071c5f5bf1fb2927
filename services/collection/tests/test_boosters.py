"""Booster odds, the pity rule and the ``hmac-sha256-v1`` derivation."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

from services.collection.domain import boosters
from services.collection.domain.boosters import (
    COMMON_SLOT,
    PITY,
    RARE_SLOT,
    DrawSource,
    boosters_since_pity_after,
    draw_booster,
    pity_due,
    seed_hash,
)
from services.collection.domain.catalog import load_catalog

CATALOG = load_catalog()
SEED = "7f" * 32


def test_the_commitment_is_the_sha256_of_the_seed_bytes() -> None:
    assert seed_hash(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_the_first_words_are_the_hmac_of_client_seed_counter_and_block() -> None:
    digest = hmac.new(bytes.fromhex(SEED), b"alice:3:0", hashlib.sha256).digest()
    first = int.from_bytes(digest[:4], "big")
    assert DrawSource(SEED, "alice", 3).uniform(2**32) == first


def test_uniform_throws_away_words_that_would_bias_the_result() -> None:
    # n = 3 * 2**30: only words below 3 * 2**30 are kept, so results cover 0..n-1 evenly.
    source = DrawSource(SEED, "bias", 0)
    values = [source.uniform(3 * 2**30) for _ in range(2000)]
    assert max(values) < 3 * 2**30
    assert sum(v >= 2**31 for v in values) > 500  # the top third is reached too


def test_a_draw_is_a_pure_function_of_seed_client_seed_counter_and_pity() -> None:
    a = draw_booster(CATALOG, SEED, "alice", 7, False)
    assert a == draw_booster(CATALOG, SEED, "alice", 7, False)
    assert a != draw_booster(CATALOG, SEED, "alice", 8, False)
    assert a != draw_booster(CATALOG, SEED, "bob", 7, False)


def test_drawn_ranks_and_holo_follow_the_published_odds() -> None:
    common: Counter[int] = Counter()
    rare: Counter[int] = Counter()
    holo = cards = 0
    for counter in range(3000):
        drawn = draw_booster(CATALOG, SEED, "odds", counter, False).cards
        common.update(c.character.stars for c in drawn[:-1])
        rare[drawn[-1].character.stars] += 1
        holo += sum(c.holo for c in drawn)
        cards += len(drawn)
        for card in drawn:
            if card.holo and card.holo_side is not None:
                assert card.character.sides[card.holo_side] < 10
    for odds, seen in ((COMMON_SLOT, common), (RARE_SLOT, rare)):
        total = sum(seen.values())
        for stars, weight in odds.weights:
            expected = weight / odds.total
            assert abs(seen[stars] / total - expected) < 0.02 + expected * 0.15, (stars, seen)
    assert abs(holo / cards - 0.05) < 0.01


def test_pity_guarantees_a_4_star_or_better_within_ten_boosters() -> None:
    since = longest = 0
    for counter in range(2000):
        contents = draw_booster(CATALOG, SEED, "pity", counter, pity_due(since))
        if contents.pity_applied:
            assert contents.cards[-1].character.stars >= PITY.min_stars
        since = boosters_since_pity_after(since, contents)
        longest = max(longest, since)
    assert longest == PITY.booster_count - 1  # reached, never exceeded


def test_the_published_rule_reads_as_the_code_applies_it() -> None:
    assert "10 boosters" in PITY.description and "4★" in PITY.description
    assert boosters.ALGORITHM == "hmac-sha256-v1"
    assert not pity_due(PITY.booster_count - 2) and pity_due(PITY.booster_count - 1)
