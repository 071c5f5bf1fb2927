"""Draft boosters and picks (RULES.md section 8), as pure functions of a random source.

**Decision** (RULES.md 8): each temporary booster holds five cards: three of any
rank, one of 3★ or more, one of 4★ or more; each card is Holographic with
probability 5%. Within a slot every character allowed there is equally likely.
The three boosters of a player are redrawn until at least one legal deck exists among
the fifteen cards; only the final draw is recorded. At the deadline the remaining
picks are completed with a legal completion drawn at random from all of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from random import Random

from services.collection.domain.catalog import Character
from services.rules import DeckEntry, Side, holo_candidates, with_holo
from services.rules.deck import DECK_SIZE, within_star_limits

BOOSTERS_PER_PLAYER = 3
SLOT_MIN_STARS = (1, 1, 1, 3, 4)
"""The lowest star rank each of a booster's five slots may hold."""
HOLO_CHANCE = 0.05
MAX_REDRAWS = 1000


@dataclass(frozen=True, slots=True)
class DraftCard:
    """A temporary card: never an owned copy, never in any collection."""

    id: str
    """Unique within the draft: ``b{booster}-{slot}``."""
    character: Character
    holo_side: Side | None
    holo: bool

    @property
    def sides(self) -> tuple[int, int, int, int]:
        return with_holo(self.character.sides, self.holo_side)

    def entry(self) -> DeckEntry:
        return DeckEntry(self.id, self.character.id, self.character.stars)


def slot_odds(catalog: Sequence[Character]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per slot of a booster, each star rank allowed there with how many characters of
    it the catalog holds: every allowed character is equally likely (``draw_booster``),
    so a rank's chance is its count over the slot's total (published by GetBoosterOdds;
    found from outside: the Draft's odds were nowhere to be read)."""
    return tuple(
        tuple(
            (stars, count)
            for stars, count in sorted(Counter(c.stars for c in catalog).items())
            if stars >= min_stars
        )
        for min_stars in SLOT_MIN_STARS
    )


def draw_booster(catalog: Sequence[Character], booster: int, rng: Random) -> tuple[DraftCard, ...]:
    cards = []
    for slot, min_stars in enumerate(SLOT_MIN_STARS):
        allowed = [c for c in catalog if c.stars >= min_stars]
        if not allowed:
            raise ValueError(f"the catalog has no character of {min_stars}★ or more")
        character = rng.choice(allowed)
        holo = rng.random() < HOLO_CHANCE
        candidates = holo_candidates(character.sides)
        side = rng.choice(candidates) if holo and candidates else None
        cards.append(DraftCard(f"b{booster}-{slot}", character, side, holo))
    return tuple(cards)


def draw_pool(catalog: Sequence[Character], rng: Random) -> tuple[DraftCard, ...]:
    """Three boosters whose fifteen cards hold at least one legal deck."""
    for _ in range(MAX_REDRAWS):
        pool = tuple(
            card for b in range(BOOSTERS_PER_PLAYER) for card in draw_booster(catalog, b, rng)
        )
        if can_complete((), pool):
            return pool
    raise ValueError("the catalog cannot give a draft pool with a legal deck")


def _completions(
    picked: Sequence[DraftCard], pool: Sequence[DraftCard]
) -> Iterator[tuple[DraftCard, ...]]:
    chosen = {c.id for c in picked}
    rest = [c for c in pool if c.id not in chosen]
    missing = DECK_SIZE - len(picked)
    if missing < 0:
        return
    for extra in combinations(rest, missing):
        deck = (*picked, *extra)
        stars = [c.character.stars for c in deck]
        if len({c.character.id for c in deck}) == DECK_SIZE and within_star_limits(
            stars.count(5), stars.count(4)
        ):
            yield extra


def legal_completions(
    picked: Sequence[DraftCard], pool: Sequence[DraftCard]
) -> list[tuple[DraftCard, ...]]:
    """Every way to add cards from ``pool`` to ``picked`` that makes a legal deck
    (RULES.md 2: five different characters within the star limits)."""
    return list(_completions(picked, pool))


def can_complete(picked: Sequence[DraftCard], pool: Sequence[DraftCard]) -> bool:
    """Whether ``picked`` can still grow into a legal deck; a pick that breaks this is
    refused, so the deadline's automatic completion always exists."""
    return next(_completions(picked, pool), None) is not None


def complete_at_deadline(
    picked: Sequence[DraftCard], pool: Sequence[DraftCard], rng: Random
) -> tuple[DraftCard, ...]:
    """The deadline's automatic completion: one legal completion drawn at random."""
    options = legal_completions(picked, pool)
    if not options:
        raise ValueError("no legal completion exists for these picks")
    return rng.choice(options)
