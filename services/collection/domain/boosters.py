"""Boosters: the published odds, the pity rule, and the verifiable draw (``hmac-sha256-v1``).

Everything a client needs to recompute a booster is here and in ``FAIRNESS.md``; the
draw is a pure function of (catalog, server seed, client seed, counter, pity flag), so
the handler only chooses the seed and the counter and records the result.

The derivation, ``hmac-sha256-v1``
    * ``server_seed`` is 32 random bytes, shown as 64 lower-case hex digits. Before any
      draw from it the server publishes ``server_seed_hash = hex(SHA-256(seed bytes))``.
    * The random bytes of booster number ``counter`` (0, 1, 2... per seed) are the
      concatenation of ``HMAC-SHA256(key=seed bytes, msg=f"{client_seed}:{counter}:{block}")``
      (UTF-8) for ``block`` = 0, 1, 2, ...; they are read as big-endian unsigned
      32-bit integers ``u``, in order.
    * ``uniform(n)`` takes the next ``u``; if ``u >= (2**32 // n) * n`` it is thrown away
      and the next one taken (so no value is more likely than another); the result is
      ``u % n``.
    * For each slot in order, the card is drawn with four values:
      1. rank: ``r = uniform(sum of the slot's weights)``; walking the slot's ranks in
         ascending order, the rank is the first whose cumulative weight exceeds ``r``.
         When the pity rule applies, the last slot uses only its ranks of
         ``PITY.min_stars`` or more (same weights, renormalised).
      2. character: ``uniform(k)`` indexes the ``k`` characters of that rank sorted by id.
      3. holo: the card is Holographic if ``uniform(10000) < 500`` (5%).
      4. holo side (Holographic only, and only if some side is below A):
         ``uniform(m)`` indexes the ``m`` sides below A, in the order top, right,
         bottom, left (RULES.md 1 Decision). No value is taken otherwise.

Pity
    A card of ``PITY.min_stars`` or more is guaranteed within ``PITY.booster_count``
    boosters: when the previous ``booster_count - 1`` boosters held none, this booster's
    last slot draws from the guaranteed ranks only (``pity_applied``). The counter of
    boosters since such a card resets whenever one is drawn, by luck or by pity.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from services.collection.domain.catalog import Catalog, Character
from services.rules import Side, holo_candidates

ALGORITHM = "hmac-sha256-v1"
CARDS_PER_BOOSTER = 5
BOOSTER_PRICE = 100
HOLO_PER_10000 = 500
SEED_BYTES = 32


@dataclass(frozen=True, slots=True)
class SlotOdds:
    """Integer weights per star rank: chance = weight / total."""

    weights: tuple[tuple[int, int], ...]
    """(stars, weight) pairs in ascending star order."""

    @property
    def total(self) -> int:
        return sum(w for _, w in self.weights)

    def at_least(self, stars: int) -> SlotOdds:
        return SlotOdds(tuple((s, w) for s, w in self.weights if s >= stars))


@dataclass(frozen=True, slots=True)
class PityRule:
    booster_count: int
    min_stars: int

    @property
    def description(self) -> str:
        return (
            f"A {self.min_stars}★ or better card is guaranteed within {self.booster_count} "
            f"boosters: if the previous {self.booster_count - 1} boosters held none, the "
            f"last card of the next one is drawn from {self.min_stars}★ and up."
        )


COMMON_SLOT = SlotOdds(((1, 500), (2, 300), (3, 140), (4, 50), (5, 10)))
"""Slots 1 to 4: 50% 1★, 30% 2★, 14% 3★, 5% 4★, 1% 5★."""
RARE_SLOT = SlotOdds(((3, 700), (4, 250), (5, 50)))
"""Slot 5: 70% 3★, 25% 4★, 5% 5★."""
SLOTS: tuple[SlotOdds, ...] = (COMMON_SLOT,) * (CARDS_PER_BOOSTER - 1) + (RARE_SLOT,)
PITY = PityRule(booster_count=10, min_stars=4)


@dataclass(frozen=True, slots=True)
class DrawnCard:
    character: Character
    holo: bool
    holo_side: Side | None


@dataclass(frozen=True, slots=True)
class BoosterContents:
    cards: tuple[DrawnCard, ...]
    pity_applied: bool


def seed_hash(server_seed: str) -> str:
    """The commitment to a server seed: hex SHA-256 of its bytes."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def _words(server_seed: str, client_seed: str, counter: int) -> Iterator[int]:
    key = bytes.fromhex(server_seed)
    block = 0
    while True:
        message = f"{client_seed}:{counter}:{block}".encode()
        digest = hmac.new(key, message, hashlib.sha256).digest()
        for offset in range(0, len(digest), 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


class DrawSource:
    """Unbiased integers from the HMAC stream of one booster."""

    def __init__(self, server_seed: str, client_seed: str, counter: int) -> None:
        self._words = _words(server_seed, client_seed, counter)

    def uniform(self, n: int) -> int:
        if n < 1:
            raise ValueError("uniform(n) needs n >= 1")
        limit = (2**32 // n) * n
        for word in self._words:
            if word < limit:
                return word % n
        raise AssertionError("unreachable: the HMAC stream is endless")

    def weighted(self, odds: SlotOdds) -> int:
        r = self.uniform(odds.total)
        for stars, weight in odds.weights:
            if r < weight:
                return stars
            r -= weight
        raise AssertionError("unreachable: r < total")


def pity_due(boosters_since_pity: int) -> bool:
    return boosters_since_pity >= PITY.booster_count - 1


def boosters_since_pity_after(before: int, contents: BoosterContents) -> int:
    if any(c.character.stars >= PITY.min_stars for c in contents.cards):
        return 0
    return before + 1


def draw_booster(
    catalog: Catalog,
    server_seed: str,
    client_seed: str,
    counter: int,
    pity: bool,
    slots: Sequence[SlotOdds] = SLOTS,
) -> BoosterContents:
    """The five cards of booster ``counter`` under ``server_seed`` and ``client_seed``."""
    source = DrawSource(server_seed, client_seed, counter)
    cards = []
    for index, slot in enumerate(slots):
        pity_slot = pity and index == len(slots) - 1
        stars = source.weighted(slot.at_least(PITY.min_stars) if pity_slot else slot)
        of_rank = catalog.of_rank(stars)
        if not of_rank:
            raise ValueError(f"the catalog has no {stars}★ character")
        character = of_rank[source.uniform(len(of_rank))]
        holo = source.uniform(10_000) < HOLO_PER_10000
        side = None
        candidates = holo_candidates(character.sides)
        if holo and candidates:
            side = candidates[source.uniform(len(candidates))]
        cards.append(DrawnCard(character, holo, side))
    return BoosterContents(tuple(cards), pity)
