"""The deck rules (RULES.md section 2), each failure named with the cards it concerns.

A deck is five copies of five different characters with at most one 5★ and at most
one 4★, or two 4★ and no 5★ (equivalently #5★ ≤ 1 and #5★ + #4★ ≤ 2). Every copy
must be owned by the player and not locked (section 9) when the match starts; the
caller passes what it knows of ownership and locks, so the validator stays pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

DECK_SIZE = 5
MAX_FIVE_STARS = 1
MAX_FOUR_AND_FIVE_STARS = 2


class DeckRule(StrEnum):
    SIZE = "deck_size"
    DISTINCT_COPIES = "distinct_copies"
    DISTINCT_CHARACTERS = "distinct_characters"
    STARS = "star_rank_range"
    FIVE_STAR_LIMIT = "five_star_limit"
    FOUR_AND_FIVE_STAR_LIMIT = "four_and_five_star_limit"
    NOT_OWNED = "not_owned"
    LOCKED = "locked"


def within_star_limits(fives: int, fours: int) -> bool:
    """#5★ ≤ 1 and #5★ + #4★ ≤ 2."""
    return fives <= MAX_FIVE_STARS and fives + fours <= MAX_FOUR_AND_FIVE_STARS


@dataclass(frozen=True, slots=True)
class DeckEntry:
    copy_id: str
    character_id: str
    stars: int


@dataclass(frozen=True, slots=True)
class Violation:
    rule: DeckRule
    copy_ids: tuple[str, ...]
    message: str


def validate_deck(
    entries: Sequence[DeckEntry],
    owned: Collection[str] | None = None,
    locked: Collection[str] = (),
) -> tuple[Violation, ...]:
    """Every rule the deck breaks; an empty tuple means the deck is legal.

    ``owned`` is the set of copy ids the player owns (``None`` skips that check);
    ``locked`` the copy ids locked by an active trading match or a pending trade.
    """
    found: list[Violation] = []
    if len(entries) != DECK_SIZE:
        found.append(
            Violation(
                DeckRule.SIZE,
                tuple(e.copy_id for e in entries),
                f"a deck holds exactly {DECK_SIZE} cards, this one holds {len(entries)}",
            )
        )
    for copy_id, n in Counter(e.copy_id for e in entries).items():
        if n > 1:
            found.append(
                Violation(
                    DeckRule.DISTINCT_COPIES,
                    (copy_id,),
                    f"copy {copy_id} appears {n} times; each copy can be in a deck once",
                )
            )
    by_character: dict[str, list[str]] = {}
    for e in entries:
        by_character.setdefault(e.character_id, []).append(e.copy_id)
    for character, copies in by_character.items():
        if len(copies) > 1:
            found.append(
                Violation(
                    DeckRule.DISTINCT_CHARACTERS,
                    tuple(copies),
                    f"copies {', '.join(copies)} are all character {character}; "
                    "a deck needs five different characters",
                )
            )
    bad_stars = tuple(e.copy_id for e in entries if not 1 <= e.stars <= 5)
    if bad_stars:
        found.append(Violation(DeckRule.STARS, bad_stars, "star ranks run from 1 to 5"))
    fives = tuple(e.copy_id for e in entries if e.stars == 5)
    fours = tuple(e.copy_id for e in entries if e.stars == 4)
    if len(fives) > MAX_FIVE_STARS:
        found.append(
            Violation(
                DeckRule.FIVE_STAR_LIMIT,
                fives,
                f"{len(fives)} cards are 5★ ({', '.join(fives)}); a deck may hold at most one",
            )
        )
    if len(fives) + len(fours) > MAX_FOUR_AND_FIVE_STARS:
        found.append(
            Violation(
                DeckRule.FOUR_AND_FIVE_STAR_LIMIT,
                fives + fours,
                f"{len(fives)} 5★ and {len(fours)} 4★ cards ({', '.join(fives + fours)}); "
                "a deck may hold one 5★ and one 4★, or two 4★ and no 5★",
            )
        )
    if owned is not None:
        strangers = tuple(e.copy_id for e in entries if e.copy_id not in owned)
        if strangers:
            found.append(
                Violation(
                    DeckRule.NOT_OWNED,
                    strangers,
                    f"copies {', '.join(strangers)} are not in your collection",
                )
            )
    held = tuple(e.copy_id for e in entries if e.copy_id in locked)
    if held:
        found.append(
            Violation(
                DeckRule.LOCKED,
                held,
                f"copies {', '.join(held)} are locked by an active trading match or a "
                "pending trade until it completes",
            )
        )
    return tuple(found)
